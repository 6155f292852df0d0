/* The ruleset model: what the firewall is, independent of how it is loaded.
 *
 * One inet table with base chains, interval sets of IPv4 ranges, and rules
 * made of a small vocabulary of matches and one verdict.  The nft text, the
 * nft JSON and the netlink renderers all read this model, so the dry-run and
 * the real start cannot disagree.  The model holds no pointers into other
 * stages' memory; ruleset_free() releases everything it owns. */
#ifndef CLI_SANDBOX_MODEL_H
#define CLI_SANDBOX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipv4.h"

#define NF_NAME_MAX 32          /* table, chain and set names */
#define NF_COMMENT_MAX 160      /* operator-facing comment of a rule */
#define NF_MAX_MATCHES 6

enum nf_hook { NF_HOOK_INPUT, NF_HOOK_FORWARD, NF_HOOK_OUTPUT };

enum nf_verdict {
	NF_VERDICT_ACCEPT,
	NF_VERDICT_DROP,
	NF_VERDICT_REJECT_ADMIN,  /* reject with icmpx admin-prohibited */
	NF_VERDICT_REJECT_RESET,  /* reject with tcp reset: only in a rule that matches TCP */
	/* Not a verdict: the rule's statements are "limit rate ... log group
	 * ...", so a rate-limited copy of the packet's headers goes to the
	 * block log (NF_LOG_GROUP) and the packet goes on to the next rule.
	 * The builder puts one before each refusal, with the same matches. */
	NF_VERDICT_LOG,
};

/* The block log's NFLOG group and the limits of every log rule.  Each log
 * rule has its own token bucket (an anonymous limit): a flood of refused
 * packets costs the kernel one bucket test per packet and sends PID 1 at
 * most NF_LOG_RATE messages per second per rule after a burst of
 * NF_LOG_BURST.  The snap length covers an IPv4 or IPv6 header, a few
 * extension headers and the transport ports; nothing of the payload is
 * needed.  docs/block-log.md explains the choice. */
#define NF_LOG_GROUP 1701
#define NF_LOG_SNAPLEN 128
#define NF_LOG_RATE 20      /* packets per second, per log rule */
#define NF_LOG_BURST 50     /* packets */

/* ct state bits, as the kernel defines them (host byte order). */
enum nf_ct_state {
	NF_CT_INVALID = 1,
	NF_CT_ESTABLISHED = 2,
	NF_CT_RELATED = 4,
	NF_CT_NEW = 8,
	NF_CT_UNTRACKED = 0x40,
};

enum nf_match_kind {
	MATCH_IIF,            /* meta iif "<name>" */
	MATCH_OIF,            /* meta oif "<name>" */
	MATCH_L4PROTO,        /* meta l4proto tcp|udp */
	MATCH_CT_STATE,       /* ct state <any bit of mask> */
	MATCH_IP_SADDR,       /* ip saddr <prefix> */
	MATCH_IP_DADDR,       /* ip daddr <prefix> */
	MATCH_IP_DADDR_SET,   /* ip daddr @<set> */
	MATCH_DPORT,          /* tcp|udp dport <port>; needs no separate l4proto match */
	MATCH_CT_ORIG_DADDR,  /* ct original ip daddr <prefix>: before NAT */
	MATCH_CT_ORIG_DPORT,  /* ct original proto-dst <port>: after a MATCH_L4PROTO */
	MATCH_SKUID,          /* meta skuid <uid>: the owner of the local socket that sent it */
	MATCH_SKUID_NOT,      /* meta skuid != <uid> (a packet without a socket matches neither) */
	MATCH_DADDR_TCP_DPORT_SET, /* ip daddr . tcp dport @<dynamic set> */
};

struct nf_prefix {
	uint32_t addr;  /* host byte order, host bits zero */
	uint8_t len;    /* 0..32 */
};

struct nf_match {
	enum nf_match_kind kind;
	union {
		char ifname[16];          /* MATCH_IIF, MATCH_OIF */
		uint8_t l4proto;          /* MATCH_L4PROTO: IPPROTO_TCP or IPPROTO_UDP */
		uint32_t ct_state_mask;   /* MATCH_CT_STATE */
		struct nf_prefix prefix;  /* MATCH_IP_SADDR, MATCH_IP_DADDR, MATCH_CT_ORIG_DADDR */
		size_t set_index;         /* MATCH_IP_DADDR_SET, MATCH_DADDR_TCP_DPORT_SET: index into ruleset.sets */
		struct {
			uint8_t l4proto;
			uint16_t port;
		} dport;                  /* MATCH_DPORT */
		uint16_t port;            /* MATCH_CT_ORIG_DPORT */
		uint32_t uid;             /* MATCH_SKUID, MATCH_SKUID_NOT */
	} u;
};

struct nf_rule {
	struct nf_match matches[NF_MAX_MATCHES];
	size_t n_matches;
	enum nf_verdict verdict;
	char comment[NF_COMMENT_MAX];  /* why the rule exists; not sent to the kernel */
};

struct nf_chain {
	char name[NF_NAME_MAX];
	enum nf_hook hook;
	int priority;
	enum nf_verdict policy;  /* NF_VERDICT_ACCEPT or NF_VERDICT_DROP */
	struct nf_rule *rules;
	size_t n_rules, cap_rules;
};

/* The most elements a set holds: larger lists are split into several sets
 * (ruleset_build.c says why). */
#define NF_SET_MAX_ELEMS 4096

/* A named set of IPv4 addresses with the interval flag.  Elements are sorted,
 * non-overlapping and non-adjacent (ruleset_add_set normalises them). */
struct nf_set {
	char name[NF_NAME_MAX];
	struct ipv4_range *elems;
	size_t n_elems;
	char comment[NF_COMMENT_MAX];
	/* A dynamic set instead (CLI_SANDBOX_DNS=pinned): `type ipv4_addr .
	 * inet_service; flags timeout; timeout T; size N`, planned without
	 * elements; the pinning resolver adds them, each with a timeout and
	 * an expiration.  Rendered, read back and digested by its definition. */
	bool dynamic;
	uint32_t timeout_s;
	uint32_t size;
};

struct nf_ruleset {
	char table[NF_NAME_MAX];  /* family is always inet */
	struct nf_set *sets;
	size_t n_sets, cap_sets;
	struct nf_chain *chains;
	size_t n_chains, cap_chains;
};

/* Building.  Every function returns 0, or -1 when memory runs out or an
 * argument breaks the model's invariants (the ruleset is then unusable and
 * must be freed). */
int ruleset_init(struct nf_ruleset *rs, const char *table);
void ruleset_free(struct nf_ruleset *rs);
/* Returns the index of the new chain, or -1. */
int ruleset_add_chain(struct nf_ruleset *rs, const char *name, enum nf_hook hook,
		      int priority, enum nf_verdict policy);
/* Copies, sorts and merges the ranges; returns the set's index, or -1. */
int ruleset_add_set(struct nf_ruleset *rs, const char *name,
		    const struct ipv4_range *ranges, size_t n, const char *comment);
/* A dynamic `ipv4_addr . inet_service` set with flags timeout; returns its
 * index, or -1. */
int ruleset_add_dynamic_set(struct nf_ruleset *rs, const char *name, uint32_t timeout_s, uint32_t size,
			    const char *comment);
/* Appends a rule to chain `chain`; returns 0 or -1. */
int ruleset_add_rule(struct nf_ruleset *rs, size_t chain, const struct nf_rule *rule);

/* Helpers to write rules tersely. */
struct nf_match nf_match_iif(const char *ifname);
struct nf_match nf_match_oif(const char *ifname);
struct nf_match nf_match_l4proto(uint8_t proto);
struct nf_match nf_match_ct_state(uint32_t mask);
struct nf_match nf_match_ip_saddr(uint32_t addr, uint8_t len);
struct nf_match nf_match_ip_daddr(uint32_t addr, uint8_t len);
struct nf_match nf_match_ip_daddr_set(size_t set_index);
struct nf_match nf_match_dport(uint8_t l4proto, uint16_t port);
struct nf_match nf_match_ct_orig_daddr(uint32_t addr, uint8_t len);
struct nf_match nf_match_ct_orig_dport(uint16_t port);
struct nf_match nf_match_skuid(uint32_t uid);
struct nf_match nf_match_skuid_not(uint32_t uid);
struct nf_match nf_match_daddr_tcp_dport_set(size_t set_index);

/* Removes every NF_VERDICT_LOG rule (the firewall without its block log,
 * for a kernel that cannot log); the verdicts are unchanged, since a log
 * rule never decides anything.  Returns the number removed. */
size_t ruleset_strip_log(struct nf_ruleset *rs);

/* The number of rules in every chain together, for log lines. */
size_t ruleset_n_rules(const struct nf_ruleset *rs);

/* Names for renderers and messages. */
const char *nf_hook_name(enum nf_hook hook);
const char *nf_l4proto_name(uint8_t proto);

#endif
