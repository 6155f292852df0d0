/* Kernel errors become one line that names the problem and the fix: the
 * errno values a container start really meets, some of which cannot be
 * provoked on a test machine (no nf_tables, a missing module). */
#include <errno.h>

#include "netfilter/apply.h"
#include "netfilter/nl_transport.h"
#include "netfilter/render_netlink.h"
#include "netfilter/ruleset_build.h"
#include "check.h"
#include "fixtures.h"

static void expect(int errnum, const char *what, const char *detail, const char *fragment)
{
	struct cs_error err = { 0 };

	CHECK(nl_fail(&err, errnum, what, detail) == -1, "returns -1");
	CHECK(err.status == CS_EXIT_OSERR, "errno %d: status %d", errnum, err.status);
	CHECK(strstr(err.msg, fragment) != NULL, "errno %d: '%s' lacks '%s'", errnum, err.msg, fragment);
	CHECK(strchr(err.msg, '\n') == NULL, "one line");
}

/* Only a refused log rule whose expressions the kernel lacks leads to the
 * second attempt without log rules; the batch marks exactly those rules. */
static void test_log_fallback(void)
{
	struct policy p;
	struct nf_ruleset rs;
	struct cs_error err;
	struct nl_batch *b;
	size_t logs = 0, marked = 0;

	CHECK(firewall_log_unsupported(ENOENT, true), "ENOENT on a log rule: the kernel lacks the expressions");
	CHECK(firewall_log_unsupported(EOPNOTSUPP, true), "EOPNOTSUPP on a log rule too");
	CHECK(!firewall_log_unsupported(ENOENT, false), "ENOENT on another rule: a missing module, the start's error");
	CHECK(!firewall_log_unsupported(ENOBUFS, true) && !firewall_log_unsupported(EIO, true) &&
	      !firewall_log_unsupported(EINVAL, true), "any other errno, even on a log rule, is the start's error");
	CHECK(!firewall_log_unsupported(0, true), "no refusal (the send, the readback, the generation look)");
	CHECK(fixture_managed(&p) == 0 && ruleset_build(&p, &rs, &err) == 0, "build the managed ruleset");
	b = render_netlink(&rs, NL_TABLE_CREATE, 0, 100, &err);
	CHECK(b != NULL, "render it");
	for (size_t c = 0; c < rs.n_chains; c++)
		for (size_t i = 0; i < rs.chains[c].n_rules; i++)
			logs += rs.chains[c].rules[i].verdict == NF_VERDICT_LOG;
	for (uint32_t seq = 100; b && nl_batch_describe(b, seq); seq++)
		if (nl_batch_is_log(b, seq)) {
			marked++;
			CHECK(strstr(nl_batch_describe(b, seq), "rule ") == nl_batch_describe(b, seq),
			      "a marked message is a rule: %s", nl_batch_describe(b, seq));
		}
	CHECK(logs > 0 && marked == logs, "the batch marks its %zu log rules (%zu)", logs, marked);
	CHECK(b && !nl_batch_is_log(b, 99) && !nl_batch_is_log(b, 100), "BEGIN and unknown numbers are not");
	nl_batch_free(b);
	ruleset_free(&rs);
	policy_free(&p);
}

int main(void)
{
	expect(EPERM, "the batch start", NULL, "--cap-add=NET_ADMIN");
	expect(EACCES, "the batch start", NULL, "--cap-add=NET_ADMIN");
	expect(EOPNOTSUPP, "the batch start", NULL, "no nf_tables support");
	expect(EPROTONOSUPPORT, "the netlink socket", NULL, "modprobe nf_tables");
	expect(EPROTONOSUPPORT, "the netlink socket", NULL, "gVisor (runsc) has no nf_tables");
	expect(ENOENT, "rule 1 of chain output (no DNS)", NULL, "modprobe nf_conntrack nft_ct nft_reject_inet");
	expect(ENOENT, "rule 1 of chain output (no DNS)", NULL, "rule 1 of chain output");
	expect(EINVAL, "set allow_tcp_443", "Invalid set key", "set allow_tcp_443");
	expect(EINVAL, "set allow_tcp_443", "Invalid set key", "Invalid set key");
	expect(EINVAL, "set allow_tcp_443", NULL, "no command is started");
	/* Issue 23: a failure is reported as what it was, with its errno. */
	expect(ENOBUFS, "the netlink batch (sendmsg)", NULL, "ENOBUFS");
	expect(ENOBUFS, "the netlink batch (sendmsg)", NULL, "the netlink batch (sendmsg)");
	expect(EIO, "reading the kernel's acknowledgements", NULL, "EIO");
	test_log_fallback();
	return check_done("test_nl_errors");
}
