#include "entrypoint/blocked_lines.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

void blocked_lines_init(struct blocked_lines *b)
{
	memset(b, 0, sizeof(*b));
}

/* The flow's identity; the event is memset when parsed, so padding and
 * unused bytes are zero and a plain comparison of the fields works. */
static bool same_flow(const struct nflog_event *a, const struct nflog_event *b)
{
	return a->family == b->family && a->l4proto == b->l4proto &&
	       memcmp(a->daddr, b->daddr, sizeof(a->daddr)) == 0 &&
	       a->has_port == b->has_port && a->dport == b->dport &&
	       a->has_icmp == b->has_icmp && a->icmp_type == b->icmp_type &&
	       a->has_uid == b->has_uid && a->uid == b->uid;
}

static uint32_t flow_hash(const struct nflog_event *e)
{
	uint32_t h = 2166136261u;  /* FNV-1a */
	uint8_t k[28];

	memcpy(k, e->daddr, 16);
	k[16] = e->family;
	k[17] = e->l4proto;
	k[18] = (uint8_t)(e->dport >> 8);
	k[19] = (uint8_t)e->dport;
	k[20] = e->icmp_type;
	k[21] = (uint8_t)(e->has_port | e->has_icmp << 1 | e->has_uid << 2);
	k[22] = (uint8_t)(e->uid >> 24);
	k[23] = (uint8_t)(e->uid >> 16);
	k[24] = (uint8_t)(e->uid >> 8);
	k[25] = (uint8_t)e->uid;
	k[26] = k[27] = 0;
	for (size_t i = 0; i < sizeof(k); i++)
		h = (h ^ k[i]) * 16777619u;
	return h;
}

#define PROBES 8

/* The flow's slot, or the slot it should take (a free one, else the
 * oldest of its probe window). */
static struct blocked_slot *find(struct blocked_lines *b, const struct nflog_event *ev, bool *found)
{
	uint32_t h = flow_hash(ev);
	struct blocked_slot *victim = NULL;

	*found = false;
	for (uint32_t i = 0; i < PROBES; i++) {
		struct blocked_slot *s = &b->slot[(h + i) % BLOCKED_SLOTS];

		if (s->used && same_flow(&s->ev, ev)) {
			*found = true;
			return s;
		}
		if (!s->used) {
			if (!victim || victim->used)
				victim = s;
		} else if (!victim || (victim->used && s->shown_ms < victim->shown_ms)) {
			victim = s;
		}
	}
	return victim;
}

/* The line bucket: credit in milliseconds, one line costs 1000/rate. */
static bool take_token(struct blocked_lines *b, int64_t now_ms)
{
	const int64_t cost = 1000 / BLOCKED_LINES_PER_S, cap = cost * BLOCKED_LINES_BURST;

	if (!b->started) {
		b->started = true;
		b->tokens_ms = cap;
	} else if (now_ms > b->last_ms) {
		b->tokens_ms += now_ms - b->last_ms;
		if (b->tokens_ms > cap)
			b->tokens_ms = cap;
	}
	b->last_ms = now_ms > b->last_ms ? now_ms : b->last_ms;
	if (b->tokens_ms < cost)
		return false;
	b->tokens_ms -= cost;
	return true;
}

static const char *proto_name(uint8_t p, char *buf, size_t len)
{
	switch (p) {
	case IPPROTO_TCP: return "tcp";
	case IPPROTO_UDP: return "udp";
	case IPPROTO_UDPLITE: return "udplite";
	case IPPROTO_SCTP: return "sctp";
	case IPPROTO_DCCP: return "dccp";
	case IPPROTO_ICMP: return "icmp";
	case IPPROTO_ICMPV6: return "icmpv6";
	}
	snprintf(buf, len, "proto %u", p);
	return buf;
}

static void format(char line[BLOCKED_LINE_MAX], const struct nflog_event *ev, time_t wall,
		   uint32_t repeats, uint64_t not_shown)
{
	char addr[INET6_ADDRSTRLEN] = "?", stamp[32] = "?", pbuf[16], what[32] = "", uid[24] = "uid ?";
	char extra[96] = "";
	struct tm tm;
	size_t n;

	inet_ntop(ev->family == 6 ? AF_INET6 : AF_INET, ev->daddr, addr, sizeof(addr));
	if (gmtime_r(&wall, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (ev->has_port)
		snprintf(what, sizeof(what), " port %u", ev->dport);
	else if (ev->has_icmp)
		snprintf(what, sizeof(what), " type %u", ev->icmp_type);
	if (ev->has_uid)
		snprintf(uid, sizeof(uid), "uid %u", ev->uid);
	if (repeats)
		snprintf(extra, sizeof(extra), " (%u more since its last line)", repeats);
	n = strlen(extra);
	if (not_shown)
		snprintf(extra + n, sizeof(extra) - n, " (%llu other lines not shown: rate limit)",
			 (unsigned long long)not_shown);
	snprintf(line, BLOCKED_LINE_MAX, "%s refused %s to %s%s %s%s", stamp,
		 proto_name(ev->l4proto, pbuf, sizeof(pbuf)), addr, what, uid, extra);
}

bool blocked_lines_add(struct blocked_lines *b, const struct nflog_event *ev, int64_t now_ms,
		       time_t wall, char line[BLOCKED_LINE_MAX])
{
	bool found;
	struct blocked_slot *s = find(b, ev, &found);
	uint32_t repeats = 0;

	if (found && now_ms - s->shown_ms < BLOCKED_REPEAT_MS) {
		if (s->repeats < UINT32_MAX)
			s->repeats++;
		return false;
	}
	if (!take_token(b, now_ms)) {
		b->not_shown++;
		if (found && s->repeats < UINT32_MAX)
			s->repeats++;
		return false;
	}
	if (found)
		repeats = s->repeats;
	format(line, ev, wall, repeats, b->not_shown);
	b->not_shown = 0;
	s->ev = *ev;
	s->used = true;
	s->shown_ms = now_ms;
	s->repeats = 0;
	return true;
}
