#include "netfilter/nflog.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* Everything the bind needs in one config message: the group, the copy
 * range, and a queue threshold of 1, so each packet is sent at once
 * instead of after 100 packets or a second (the kernel's defaults). */
static int send_bind(struct mnl_socket *nl, uint16_t group, uint32_t snaplen, uint32_t seq)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;
	struct nfulnl_msg_config_cmd cmd = { .command = NFULNL_CFG_CMD_BIND };
	struct nfulnl_msg_config_mode mode = { .copy_range = htonl(snaplen), .copy_mode = NFULNL_COPY_PACKET };

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons(group);
	mnl_attr_put(nlh, NFULA_CFG_CMD, sizeof(cmd), &cmd);
	mnl_attr_put(nlh, NFULA_CFG_MODE, sizeof(mode), &mode);
	mnl_attr_put_u32(nlh, NFULA_CFG_QTHRESH, htonl(1));
	return mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ? -1 : 0;
}

/* The kernel's answer to the bind: 0, or -1 with errno. */
static int read_ack(struct mnl_socket *nl, uint32_t seq)
{
	char buf[8192];
	uint32_t portid = mnl_socket_get_portid(nl);

	for (int tries = 0; tries < 8; tries++) {
		ssize_t n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		int rc;

		if (n < 0)
			return -1;
		rc = mnl_cb_run(buf, (size_t)n, seq, portid, NULL, NULL);
		if (rc == MNL_CB_STOP)
			return 0;
		if (rc < 0)
			return -1;
	}
	errno = EPROTO;
	return -1;
}

struct mnl_socket *nflog_open(uint16_t group, uint32_t snaplen, struct cs_error *err)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	uint32_t seq = (uint32_t)time(NULL);
	int fd, fl;

	if (!nl) {
		cs_fail(err, CS_EXIT_OSERR, "cannot open a netfilter netlink socket (%s)", strerror(errno));
		return NULL;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 || send_bind(nl, group, snaplen, seq) ||
	    read_ack(nl, seq)) {
		int e = errno;

		cs_fail(err, CS_EXIT_OSERR, "the kernel refused to bind NFLOG group %u (%s%s)", group, strerror(e),
			e == EPERM || e == EBUSY ? ": another listener holds it, or CAP_NET_ADMIN is missing" :
			e == EOPNOTSUPP || e == ENOENT || e == EPROTONOSUPPORT ? ": the kernel has no nfnetlink_log" : "");
		mnl_socket_close(nl);
		return NULL;
	}
	/* Non-blocking from here: the supervisor's loop must never wait on it. */
	fd = mnl_socket_get_fd(nl);
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		cs_fail(err, CS_EXIT_OSERR, "cannot make the NFLOG socket non-blocking (%s)", strerror(errno));
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

static bool has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_DCCP;
}

/* The transport header at p (len bytes left), unless a fragment hides it. */
static void parse_transport(const uint8_t *p, size_t len, bool first_fragment, struct nflog_event *ev)
{
	if (!first_fragment)
		return;
	if (has_ports(ev->l4proto) && len >= 4) {
		ev->has_port = true;
		ev->dport = (uint16_t)(p[2] << 8 | p[3]);
	} else if ((ev->l4proto == IPPROTO_ICMP || ev->l4proto == IPPROTO_ICMPV6) && len >= 1) {
		ev->has_icmp = true;
		ev->icmp_type = p[0];
	}
}

static bool parse_ipv4(const uint8_t *p, size_t len, struct nflog_event *ev)
{
	size_t ihl;

	if (len < 20)
		return false;
	ihl = (size_t)(p[0] & 0x0f) * 4;
	if (ihl < 20 || ihl > len)
		return false;
	ev->family = 4;
	ev->l4proto = p[9];
	memcpy(ev->daddr, p + 16, 4);
	parse_transport(p + ihl, len - ihl, ((p[6] << 8 | p[7]) & 0x1fff) == 0, ev);
	return true;
}

/* Walks at most 8 extension headers; a header cut off by the snap length
 * leaves the event without a port. */
static bool parse_ipv6(const uint8_t *p, size_t len, struct nflog_event *ev)
{
	size_t off = 40;
	uint8_t next;
	bool first_fragment = true;

	if (len < 40)
		return false;
	ev->family = 6;
	memcpy(ev->daddr, p + 24, 16);
	next = p[6];
	for (int i = 0; i < 8; i++) {
		size_t hlen;

		if (next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING && next != IPPROTO_DSTOPTS &&
		    next != IPPROTO_FRAGMENT && next != IPPROTO_AH)
			break;
		if (len - off < 8) {
			ev->l4proto = next;
			return true;
		}
		if (next == IPPROTO_FRAGMENT) {
			hlen = 8;
			first_fragment = first_fragment && ((p[off + 2] << 8 | p[off + 3]) & 0xfff8) == 0;
		} else if (next == IPPROTO_AH) {
			hlen = ((size_t)p[off + 1] + 2) * 4;
		} else {
			hlen = ((size_t)p[off + 1] + 1) * 8;
		}
		next = p[off];
		if (hlen > len - off) {
			ev->l4proto = next;
			return true;
		}
		off += hlen;
	}
	ev->l4proto = next;
	parse_transport(p + off, len - off, first_fragment, ev);
	return true;
}

bool nflog_parse_packet(const uint8_t *p, size_t len, struct nflog_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (len < 1)
		return false;
	switch (p[0] >> 4) {
	case 4: return parse_ipv4(p, len, ev);
	case 6: return parse_ipv6(p, len, ev);
	}
	return false;
}

/* One NFULNL_MSG_PACKET: its payload and, when present, the socket's uid.
 * The attributes are walked by hand, inside nlmsg_len: libmnl's walk ends
 * at the aligned length, so an attribute of a last, unaligned message could
 * reach up to 3 bytes past the datagram (the fuzzer found it). */
static bool parse_message(const struct nlmsghdr *nlh, struct nflog_event *ev)
{
	const uint8_t *base = (const uint8_t *)nlh;
	const uint8_t *payload = NULL;
	size_t payload_len = 0, off = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg));
	size_t end = nlh->nlmsg_len;
	uint32_t uid = 0;
	bool has_uid = false;

	if (nlh->nlmsg_type != ((NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET) || end < off)
		return false;
	while (end - off >= sizeof(struct nlattr)) {
		struct nlattr a;
		size_t alen;

		memcpy(&a, base + off, sizeof(a));
		alen = a.nla_len;
		if (alen < sizeof(a) || alen > end - off)
			break;
		if ((a.nla_type & NLA_TYPE_MASK) == NFULA_PAYLOAD) {
			payload = base + off + sizeof(a);
			payload_len = alen - sizeof(a);
		} else if ((a.nla_type & NLA_TYPE_MASK) == NFULA_UID && alen == sizeof(a) + 4) {
			memcpy(&uid, base + off + sizeof(a), 4);
			has_uid = true;
		}
		if (MNL_ALIGN(alen) >= end - off)
			break;
		off += MNL_ALIGN(alen);
	}
	if (!payload || !nflog_parse_packet(payload, payload_len, ev))
		return false;
	if (has_uid) {
		ev->has_uid = true;
		ev->uid = ntohl(uid);
	}
	return true;
}

size_t nflog_parse(const void *buf, size_t len,
		   void (*cb)(const struct nflog_event *ev, void *ctx), void *ctx)
{
	const uint8_t *p = buf;
	size_t left = len, n = 0;

	/* Not mnl_nlmsg_ok: it compares the length as an int, so a length
	 * with the top bit set would pass and send the walk off the buffer. */
	while (left >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const void *)p;
		size_t l = nlh->nlmsg_len, step = MNL_ALIGN(l);
		struct nflog_event ev;

		if (l < sizeof(*nlh) || l > left)
			break;
		if (parse_message(nlh, &ev)) {
			cb(&ev, ctx);
			n++;
		}
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
	return n;
}
