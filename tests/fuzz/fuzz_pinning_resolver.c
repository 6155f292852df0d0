/* libFuzzer harness for the pinning resolver's pure paths (resolver/): every
 * input is read both as a client's query and as the upstream's answer to
 * the A query for "api.test" with id 0x1234 (the seeds are such answers,
 * corpus-dns-answer).  Nothing may crash or read outside the message (an
 * exactly sized heap copy), and:
 *   - a query verdict to forward is an A query of class IN for a listed name;
 *   - an answer to pin has 1 to 32 distinct addresses, none forbidden and
 *     none private (api.test is not internal);
 *   - every reply fits its room, and a reply with records reads back, as
 *     an answer, as the same addresses (what the client gets is what was
 *     pinned). */
#include "fuzz.h"
#include "base/ipv4.h"
#include "resolver/answer.h"
#include "resolver/query.h"
#include "resolver/reply.h"

static struct allowlist names;

static void query_path(const uint8_t *msg, size_t size)
{
	struct query q;
	enum query_verdict v = query_judge(msg, size, &names, &q);
	uint8_t out[REPLY_MAX];

	if (v == QUERY_FORWARD)
		invariant(q.qtype == DNS_T_A && q.qclass == DNS_C_IN && q.pin != NULL);
	if (v == QUERY_DROP || v == QUERY_FORMERR || v == QUERY_NOTIMP)
		return;
	invariant(reply_build(out, 512, msg, &q, DNS_RCODE_NXDOMAIN, NULL, 60) <= 512);
}

static void answer_path(const uint8_t *msg, size_t size)
{
	static const uint8_t query[] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
					 3, 'a', 'p', 'i', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1 };
	struct answer a, back;
	struct query q;
	uint8_t out[REPLY_MAX];
	size_t n;

	answer_judge(msg, size, 0x1234, "api.test", false, &a);
	if (a.kind != ANSWER_PIN) {
		invariant(a.n_addrs == 0);
		return;
	}
	invariant(a.n_addrs >= 1 && a.n_addrs <= ANSWER_A_MAX);
	for (size_t i = 0; i < a.n_addrs; i++) {
		invariant(!ipv4_forbidden_destination(a.addrs[i]) && !ipv4_private_address(a.addrs[i]));
		for (size_t k = 0; k < i; k++)
			invariant(a.addrs[i] != a.addrs[k]);
	}
	invariant(query_judge(query, sizeof(query), &names, &q) == QUERY_FORWARD);
	n = reply_build(out, REPLY_MAX, query, &q, DNS_RCODE_NOERROR, &a, 60);
	invariant(n > sizeof(query) && n <= REPLY_MAX);
	answer_judge(out, n, 0x1234, "api.test", false, &back);
	invariant(back.kind == ANSWER_PIN && back.n_addrs == a.n_addrs &&
		  memcmp(back.addrs, a.addrs, a.n_addrs * sizeof(a.addrs[0])) == 0 && back.ttl_min <= 60);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct cs_error err;

	if (!names.n && allowlist_add(&names, "api.test:443", false, &err) != 0)
		abort();
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	query_path(copy, size);
	answer_path(copy, size);
	free(copy);
	return 0;
}
