/* The block log's kernel side: an NFLOG listener (nfnetlink_log) and the
 * parser of what it receives.
 *
 * nflog_open binds the group; that needs CAP_NET_ADMIN, so PID 1 calls it
 * before the privilege drop.  Receiving needs no capability afterwards.
 * The parser reads packet headers the command chose, so it trusts nothing:
 * every length is checked, and a message it does not understand is
 * skipped.  No libnetfilter_log: libmnl and the kernel's uapi headers. */
#ifndef CLI_SANDBOX_NFLOG_H
#define CLI_SANDBOX_NFLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libmnl/libmnl.h>

#include "base/status.h"

/* One refused packet, as far as the block log needs it. */
struct nflog_event {
	uint8_t family;     /* 4 or 6 */
	uint8_t l4proto;    /* IPPROTO_* of the transport header */
	uint8_t daddr[16];  /* IPv4 in the first 4 bytes */
	bool has_port;      /* TCP, UDP, UDP-Lite, SCTP, DCCP: dport is set */
	uint16_t dport;     /* host order */
	bool has_icmp;      /* ICMP or ICMPv6: icmp_type is set */
	uint8_t icmp_type;
	bool has_uid;       /* the sending socket's owner (absent for the kernel's own packets) */
	uint32_t uid;
};

/* A socket (close-on-exec, non-blocking) bound to NFLOG `group`, copying
 * `snaplen` bytes of each packet, flushed per packet.  NULL with err set
 * when the kernel refuses (no nfnetlink_log, no CAP_NET_ADMIN, the group
 * taken by another listener); the caller only warns. */
struct mnl_socket *nflog_open(uint16_t group, uint32_t snaplen, struct cs_error *err);

/* Parses one datagram of netlink messages: calls `cb` for every packet
 * message whose headers it understands; returns how many it passed on. */
size_t nflog_parse(const void *buf, size_t len,
		   void (*cb)(const struct nflog_event *ev, void *ctx), void *ctx);

/* Parses an IPv4 or IPv6 packet that starts at its network header (what
 * NFLOG copies for the inet family).  false when it is too short or not
 * IP. */
bool nflog_parse_packet(const uint8_t *p, size_t len, struct nflog_event *ev);

#endif
