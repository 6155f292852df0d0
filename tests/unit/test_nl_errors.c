/* Kernel errors become one line that names the problem and the fix: the
 * errno values a container start really meets, some of which cannot be
 * provoked on a test machine (no nf_tables, a missing module). */
#include <errno.h>

#include "netfilter/nl_transport.h"
#include "check.h"

static void expect(int errnum, const char *what, const char *detail, const char *fragment)
{
	struct cs_error err = { 0 };

	CHECK(nl_fail(&err, errnum, what, detail) == -1, "returns -1");
	CHECK(err.status == CS_EXIT_OSERR, "errno %d: status %d", errnum, err.status);
	CHECK(strstr(err.msg, fragment) != NULL, "errno %d: '%s' lacks '%s'", errnum, err.msg, fragment);
	CHECK(strchr(err.msg, '\n') == NULL, "one line");
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
	return check_done("test_nl_errors");
}
