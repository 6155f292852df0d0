/* policy -> model: rule order and grouping, independent of any renderer. */
#include "netfilter/render.h"
#include "netfilter/ruleset_build.h"

#include <stdlib.h>

#include "check.h"
#include "fixtures.h"

static const struct nf_chain *chain(const struct nf_ruleset *rs, const char *name)
{
	for (size_t i = 0; i < rs->n_chains; i++)
		if (strcmp(rs->chains[i].name, name) == 0)
			return &rs->chains[i];
	return NULL;
}

/* Every refusal of the output chain comes after a log rule with the same
 * matches (the reset rule of a pair may add its TCP match), no log rule
 * decides anything, and nothing else is logged.  Then the log rules are
 * stripped, so the checks below see the verdicts alone. */
static void check_block_log(struct nf_ruleset *rs)
{
	const struct nf_chain *out = chain(rs, "output");
	size_t logs = 0, refusals = 0, removed;

	if (!out)
		return;
	for (size_t i = 0; i < out->n_rules; i++) {
		const struct nf_rule *r = &out->rules[i], *log = NULL;

		if (r->verdict == NF_VERDICT_LOG) {
			logs++;
			CHECK(i + 1 < out->n_rules && (out->rules[i + 1].verdict == NF_VERDICT_REJECT_RESET ||
						       out->rules[i + 1].verdict == NF_VERDICT_REJECT_ADMIN),
			      "log rule %zu is followed by a refusal", i);
			continue;
		}
		if (r->verdict != NF_VERDICT_REJECT_RESET && r->verdict != NF_VERDICT_REJECT_ADMIN)
			continue;
		refusals++;
		/* the log rule is right before, or before the pair's reset rule */
		for (size_t j = i; j-- > 0 && j + 2 >= i && !log;)
			if (out->rules[j].verdict == NF_VERDICT_LOG)
				log = &out->rules[j];
		CHECK(log != NULL, "refusal %zu (%s) is logged first", i, r->comment);
		if (log)
			CHECK(log->n_matches <= r->n_matches &&
			      memcmp(log->matches, r->matches, log->n_matches * sizeof(log->matches[0])) == 0,
			      "the log rule before refusal %zu has its matches", i);
	}
	CHECK(logs > 0 && refusals > logs && refusals <= 2 * logs, "%zu log rules for %zu refusals", logs, refusals);
	removed = ruleset_strip_log(rs);
	CHECK(removed == logs, "strip removes the %zu log rules (%zu)", logs, removed);
	for (size_t c = 0; c < rs->n_chains; c++)
		for (size_t i = 0; i < rs->chains[c].n_rules; i++)
			CHECK(rs->chains[c].rules[i].verdict != NF_VERDICT_LOG, "no log rule is left");
}

static void test_managed(void)
{
	struct policy p;
	struct nf_ruleset rs;
	struct cs_error err;
	const struct nf_chain *in, *fwd, *out;
	const struct nf_rule *last, *gw;

	CHECK(fixture_managed(&p) == 0 && ruleset_build(&p, &rs, &err) == 0, "build");
	check_block_log(&rs);
	CHECK_STR(rs.table, "cli_sandbox");
	CHECK(rs.n_chains == 3 && rs.n_sets == 0, "3 chains, no set");
	in = chain(&rs, "input");
	fwd = chain(&rs, "forward");
	out = chain(&rs, "output");
	CHECK(in && fwd && out, "chains present");
	if (!in || !fwd || !out)
		return;
	CHECK(in->hook == NF_HOOK_INPUT && fwd->hook == NF_HOOK_FORWARD && out->hook == NF_HOOK_OUTPUT, "hooks");
	CHECK(in->policy == NF_VERDICT_DROP && fwd->policy == NF_VERDICT_DROP && out->policy == NF_VERDICT_DROP, "policies drop");
	CHECK(fwd->n_rules == 0, "forward has no rule");
	CHECK(in->n_rules == 2, "input: loopback and replies (%zu)", in->n_rules);
	CHECK(in->rules[0].matches[0].kind == MATCH_IIF && strcmp(in->rules[0].matches[0].u.ifname, "lo") == 0, "input lo");
	CHECK(in->rules[1].matches[0].kind == MATCH_CT_STATE &&
	      in->rules[1].matches[0].u.ct_state_mask == (NF_CT_ESTABLISHED | NF_CT_RELATED), "input replies");
	/* Replies first (our own resets are related), then DNS and Docker's
	 * resolver refused before loopback is accepted. */
	CHECK(out->rules[0].matches[0].kind == MATCH_CT_STATE && out->rules[0].verdict == NF_VERDICT_ACCEPT, "replies first");
	for (size_t i = 1; i < 5; i++)
		CHECK(out->rules[i].verdict == (i % 2 ? NF_VERDICT_REJECT_ADMIN : NF_VERDICT_REJECT_RESET),
		      "output rule %zu rejects DNS, TCP with a reset", i);
	CHECK(out->rules[1].matches[1].kind == MATCH_CT_ORIG_DPORT && out->rules[1].matches[1].u.port == 53, "DNS by original port");
	CHECK(out->rules[5].verdict == NF_VERDICT_REJECT_RESET && out->rules[6].verdict == NF_VERDICT_REJECT_ADMIN &&
	      out->rules[5].matches[0].kind == MATCH_IP_DADDR && out->rules[5].matches[0].u.prefix.addr == IP4(127, 0, 0, 11) &&
	      out->rules[6].matches[0].kind == MATCH_IP_DADDR && out->rules[6].matches[0].u.prefix.addr == IP4(127, 0, 0, 11) &&
	      out->rules[5].matches[1].kind == MATCH_L4PROTO && out->rules[6].n_matches == 1,
	      "Docker's resolver refused on every port, TCP with a reset");
	CHECK(out->rules[7].matches[0].kind == MATCH_OIF, "then loopback");
	gw = &out->rules[8];
	CHECK(gw->verdict == NF_VERDICT_ACCEPT && gw->n_matches == 2 &&
	      gw->matches[0].kind == MATCH_IP_DADDR && gw->matches[0].u.prefix.addr == IP4(192, 0, 2, 10) &&
	      gw->matches[0].u.prefix.len == 32 && gw->matches[1].kind == MATCH_DPORT &&
	      gw->matches[1].u.dport.port == 8080 && gw->matches[1].u.dport.l4proto == IPPROTO_TCP,
	      "gateway /32 and port");
	CHECK(out->n_rules == 11, "11 output rules (%zu)", out->n_rules);
	last = &out->rules[out->n_rules - 2];
	CHECK(last->n_matches == 1 && last->matches[0].kind == MATCH_L4PROTO &&
	      last->matches[0].u.l4proto == IPPROTO_TCP && last->verdict == NF_VERDICT_REJECT_RESET,
	      "TCP ends with a reset");
	last = &out->rules[out->n_rules - 1];
	CHECK(last->n_matches == 0 && last->verdict == NF_VERDICT_REJECT_ADMIN, "everything else ends with admin-prohibited");
	for (size_t i = 0; i < out->n_rules; i++)
		for (size_t k = 0; k < out->rules[i].n_matches; k++)
			CHECK(out->rules[i].matches[k].kind != MATCH_SKUID, "managed lets no socket owner through");
	ruleset_free(&rs);
	policy_free(&p);
}

static void test_interactive_grouping(void)
{
	struct policy p;
	struct nf_ruleset rs;
	struct cs_error err;
	const struct nf_set *s443 = NULL, *s22 = NULL;

	CHECK(fixture_interactive(&p) == 0 && ruleset_build(&p, &rs, &err) == 0, "build");
	check_block_log(&rs);
	for (size_t i = 0; i < rs.n_sets; i++) {
		if (strcmp(rs.sets[i].name, "allow_tcp_443") == 0)
			s443 = &rs.sets[i];
		if (strcmp(rs.sets[i].name, "allow_tcp_22") == 0)
			s22 = &rs.sets[i];
	}
	CHECK(rs.n_sets == 2 && s443 && s22, "one set per (proto, port) with more than one prefix");
	if (s443) {
		CHECK(s443->n_elems == 3, "443: merged to 3 ranges (%zu)", s443->n_elems);
		CHECK(s443->elems[0].first == IP4(192, 0, 2, 5) && s443->elems[0].last == IP4(192, 0, 2, 9), "overlap merged");
		CHECK(s443->elems[2].first == IP4(198, 51, 100, 0) && s443->elems[2].last == IP4(198, 51, 100, 255), "adjacent merged");
	}
	if (s22)
		CHECK(s22->n_elems == 2 && s22->elems[1].last == UINT32_MAX, "top of address space kept");
	{
		const struct nf_chain *out = chain(&rs, "output"), *in = chain(&rs, "input");
		bool port8443 = false;

		/* After the replies, 2 resolvers x udp/tcp accepted, then (127.0.0.11
		 * is one of them) the Docker resolver's own upstream queries, by
		 * socket owner root and port 53 only, before the DNS rejections. */
		for (size_t i = 1; i < 5; i++)
			CHECK(out->rules[i].verdict == NF_VERDICT_ACCEPT && out->rules[i].matches[1].kind == MATCH_CT_ORIG_DADDR, "resolver %zu", i);
		for (size_t i = 5; i < 7; i++)
			CHECK(out->rules[i].verdict == NF_VERDICT_ACCEPT && out->rules[i].n_matches == 3 &&
			      out->rules[i].matches[0].kind == MATCH_SKUID && out->rules[i].matches[0].u.uid == 0 &&
			      out->rules[i].matches[2].kind == MATCH_CT_ORIG_DPORT && out->rules[i].matches[2].u.port == 53,
			      "Docker resolver upstream %zu", i);
		CHECK(out->rules[7].verdict == NF_VERDICT_REJECT_ADMIN, "then DNS refused");
		for (size_t i = 0; i < out->n_rules; i++)
			port8443 = port8443 || (out->rules[i].n_matches == 2 && out->rules[i].matches[0].kind == MATCH_IP_DADDR &&
						out->rules[i].matches[0].u.prefix.len == 27 && out->rules[i].matches[1].u.dport.port == 8443);
		CHECK(port8443, "a single prefix becomes a plain match");
		CHECK(in->n_rules == 3 && in->rules[2].matches[0].kind == MATCH_IP_SADDR &&
		      in->rules[2].matches[0].u.prefix.len == 24, "host network in");
	}
	ruleset_free(&rs);
	policy_free(&p);
}

/* More than NF_SET_MAX_ELEMS ranges for one port: split into consecutive
 * sets in address order, each with its own accept rule, nothing lost. */
static void test_large_set_split(void)
{
	size_t n = 2 * NF_SET_MAX_ELEMS + 5, total = 0, rules = 0;
	struct ipv4_range *r = calloc(n, sizeof(*r));
	struct policy p;
	struct nf_ruleset rs;
	struct cs_error err;
	const struct nf_chain *out;
	uint32_t last = 0;
	bool ordered = true;

	CHECK(r != NULL, "alloc");
	if (!r)
		return;
	for (size_t i = 0; i < n; i++)  /* disjoint, non-adjacent, given in reverse */
		r[i].first = r[i].last = IP4(10, 0, 0, 0) + 2 * (uint32_t)(n - i);
	policy_init(&p, CS_PROFILE_INTERACTIVE);
	CHECK(policy_add_dest(&p, IPPROTO_TCP, 443, r, n, "big.json") == 0, "dest");
	CHECK(ruleset_build(&p, &rs, &err) == 0, "build");
	CHECK(rs.n_sets == 3, "3 sets for %zu ranges (%zu)", n, rs.n_sets);
	for (size_t i = 0; i < rs.n_sets && rs.n_sets == 3; i++) {
		const struct nf_set *s = &rs.sets[i];
		const char *want[] = { "allow_tcp_443", "allow_tcp_443_2", "allow_tcp_443_3" };

		CHECK(strcmp(s->name, want[i]) == 0, "set %zu is named %s (%s)", i, want[i], s->name);
		CHECK(s->n_elems == (i < 2 ? (size_t)NF_SET_MAX_ELEMS : 5), "set %zu holds %zu", i, s->n_elems);
		for (size_t k = 0; k < s->n_elems; k++) {
			ordered = ordered && s->elems[k].first > last;
			last = s->elems[k].last;
		}
		total += s->n_elems;
	}
	CHECK(total == n && ordered, "every range once, in ascending order across the sets");
	out = chain(&rs, "output");
	for (size_t i = 0; out && i < out->n_rules; i++)
		if (out->rules[i].n_matches == 2 && out->rules[i].matches[0].kind == MATCH_IP_DADDR_SET &&
		    out->rules[i].verdict == NF_VERDICT_ACCEPT && out->rules[i].matches[1].u.dport.port == 443 &&
		    out->rules[i].matches[0].u.set_index == rules)
			rules++;
	CHECK(rules == 3, "one accept rule per set, in set order (%zu)", rules);
	ruleset_free(&rs);
	policy_free(&p);
	free(r);
}

static void test_invariants(void)
{
	struct nf_ruleset rs;
	struct nf_rule bad = { .n_matches = 1, .verdict = NF_VERDICT_ACCEPT };
	struct ipv4_range r[] = { { 10, 5 } };

	CHECK(ruleset_init(&rs, "t") == 0, "init");
	CHECK(ruleset_add_chain(&rs, "c", NF_HOOK_OUTPUT, 0, NF_VERDICT_REJECT_ADMIN) == -1, "chain policy must be accept or drop");
	CHECK(ruleset_add_chain(&rs, "c", NF_HOOK_OUTPUT, 0, NF_VERDICT_DROP) == 0, "chain");
	bad.matches[0] = nf_match_ip_daddr(IP4(192, 0, 2, 1), 24);
	CHECK(ruleset_add_rule(&rs, 0, &bad) == -1, "host bits in a prefix are refused");
	bad.matches[0] = nf_match_ct_orig_dport(53);
	CHECK(ruleset_add_rule(&rs, 0, &bad) == -1, "proto-dst needs a preceding l4proto");
	bad.matches[0] = nf_match_ip_daddr_set(3);
	CHECK(ruleset_add_rule(&rs, 0, &bad) == -1, "unknown set");
	bad.matches[0] = nf_match_dport(IPPROTO_UDP, 53);
	bad.verdict = NF_VERDICT_REJECT_RESET;
	CHECK(ruleset_add_rule(&rs, 0, &bad) == -1, "a TCP reset needs a TCP match");
	bad.matches[0] = nf_match_l4proto(IPPROTO_TCP);
	CHECK(ruleset_add_rule(&rs, 0, &bad) == 0, "a TCP reset after meta l4proto tcp");
	bad.matches[0] = nf_match_dport(IPPROTO_TCP, 53);
	CHECK(ruleset_add_rule(&rs, 0, &bad) == 0, "a TCP reset after tcp dport");
	bad.n_matches = 0;
	CHECK(ruleset_add_rule(&rs, 0, &bad) == -1, "a bare TCP reset is refused");
	CHECK(ruleset_add_set(&rs, "s", r, 1, NULL) == -1, "inverted range refused");
	CHECK(ruleset_add_set(&rs, "a_name_that_is_far_too_long_for_nft", NULL, 0, NULL) == -1, "long name refused");
	ruleset_free(&rs);
}

int main(void)
{
	test_managed();
	test_interactive_grouping();
	test_large_set_split();
	test_invariants();
	return check_done("test_ruleset_build");
}
