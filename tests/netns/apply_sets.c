/* Programs a policy with N address ranges through the real netlink path
 * (batch paging, acknowledgements, readback) in the current network
 * namespace, and prints how long each stage took: a benchmark figure and a
 * test that large interval sets survive the round trip through the kernel.
 * usage: apply_sets N            program and read back
 *        apply_sets N verify     only read back what the same N ranges render to:
 *                                exit 0 when the kernel holds exactly that, 1 with
 *                                the reason on stderr otherwise */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netfilter/apply.h"
#include "netfilter/nl_transport.h"
#include "netfilter/readback.h"
#include "netfilter/render_netlink.h"
#include "netfilter/ruleset_build.h"
#include "profiles/policy.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	struct ipv4_range *r = calloc(n + 1, sizeof(*r));
	struct policy p;
	struct nf_ruleset rs;
	struct cs_error err = { 0 };
	uint32_t x = 2463534242u;
	double t0, t1, t2;

	if (!r)
		return 1;
	/* Pseudo-random prefixes of /16../32 anywhere in 1.0.0.0-223.255.255.255:
	 * overlapping and adjacent ones included, so the merge is exercised. */
	for (size_t i = 0; i < n; i++) {
		uint32_t len, base;

		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		len = 16 + x % 17;
		base = (1u << 24) + x % (222u << 24);
		base &= len == 32 ? UINT32_MAX : ~(UINT32_MAX >> len);
		r[i].first = base;
		r[i].last = base | (len == 32 ? 0 : UINT32_MAX >> len);
	}
	r[n].first = 0xffffff00;  /* and one range that reaches the top */
	r[n].last = UINT32_MAX;
	policy_init(&p, CS_PROFILE_INTERACTIVE);
	t0 = now();
	if (policy_add_dest(&p, IPPROTO_TCP, 443, r, n + 1, "benchmark ranges") ||
	    ruleset_build(&p, &rs, &err)) {
		fprintf(stderr, "build failed: %s\n", err.msg);
		return 1;
	}
	t1 = now();
	if (argc > 2 && strcmp(argv[2], "verify") == 0) {
		struct mnl_socket *nl = nl_open(&err);
		struct nl_batch *b = nl ? render_netlink(&rs, NL_TABLE_CREATE, 0, 1, &err) : NULL;
		int rc = b && readback_verify(nl, &rs, b, &err) == 0 ? 0 : 1;

		if (rc)
			fprintf(stderr, "%s\n", err.msg);
		nl_batch_free(b);
		if (nl)
			mnl_socket_close(nl);
		ruleset_free(&rs);
		policy_free(&p);
		free(r);
		return rc;
	}
	if (firewall_apply(&rs, &(bool){ false }, &err)) {
		fprintf(stderr, "apply failed: %s\n", err.msg);
		return 1;
	}
	t2 = now();
	{
		size_t elems = 0;

		for (size_t i = 0; i < rs.n_sets; i++)
			elems += rs.sets[i].n_elems;
		printf("ranges=%zu sets=%zu set_elements=%zu build_ms=%.1f netlink_apply_and_readback_ms=%.1f\n",
		       n + 1, rs.n_sets, elems, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
	}
	ruleset_free(&rs);
	policy_free(&p);
	free(r);
	return 0;
}
