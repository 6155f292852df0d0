#include "resolver/confine.h"

#include <cap-ng.h>
#include <errno.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* What the loop calls between confinement and exit: its sockets (UDP and
 * TCP to clients, a UDP socket per upstream query, the netlink socket
 * opened before), poll, the clock, randomness for query ids, malloc, the
 * log line on stderr. */
static const char *const loop_calls[] = {
	"read", "write", "writev", "close", "poll", "ppoll", "connect", "sendto", "recvfrom", "sendmsg",
	"recvmsg", "accept4", "accept", "setsockopt", "getsockopt", "getsockname", "shutdown", "fcntl",
	"getrandom", "clock_gettime", "gettimeofday", "brk", "mmap", "munmap", "mremap", "madvise",
	"mprotect", "futex", "newfstatat", "fstat", "lseek", "exit", "exit_group", "rt_sigreturn",
	"rt_sigprocmask", "restart_syscall", "getpid", "gettid",
};

static int load_filter(const char **what)
{
	scmp_filter_ctx ctx;
	int rc;

	*what = "seccomp_init";
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return -ENOMEM;
	*what = "the allowed calls";
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (size_t i = 0; i < sizeof(loop_calls) / sizeof(loop_calls[0]) && rc == 0; i++) {
		int nr = seccomp_syscall_resolve_name(loop_calls[i]);

		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	/* new sockets: IPv4 only (the upstream queries) */
	if (rc == 0) {
		*what = "the socket rule";
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffull, AF_INET));
	}
	/* prctl: reading the seccomp mode back, nothing else */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_GET_SECCOMP, 0));
	if (rc == 0) {
		*what = "seccomp_load";
		rc = seccomp_load(ctx);
	}
	seccomp_release(ctx);
	return rc;
}

/* CapEff and CapPrm of /proc/self/status: NET_ADMIN alone. */
static int caps_read_back(struct cs_error *err)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = ~0ull, prm = ~0ull, amb = 0;
	const unsigned long long want = 1ull << CAP_NET_ADMIN;

	if (!f)
		return cs_fail(err, CS_EXIT_OSERR, "cannot read /proc/self/status to verify the resolver's capabilities (%s); mount /proc", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "CapEff: %llx", &eff);
		sscanf(line, "CapPrm: %llx", &prm);
		sscanf(line, "CapAmb: %llx", &amb);
	}
	fclose(f);
	if (eff != want || prm != want || amb != 0)
		return cs_fail(err, CS_EXIT_OSERR, "the resolver holds capabilities %llx (permitted %llx), not CAP_NET_ADMIN alone; start it with --cap-drop=ALL --cap-add=NET_ADMIN",
			       eff, prm);
	return 0;
}

int resolver_confine(uid_t uid, gid_t gid, struct cs_error *err)
{
	uid_t r, e, s;
	gid_t gr, ge, gs;
	const char *what;
	int rc;
	bool have_setpcap;

	/* Not read: fail closed, as if CAP_SETPCAP were missing (the ids still
	 * change; the bounding set is then left as it is and the readback below
	 * decides). */
	have_setpcap = capng_get_caps_process() == 0 &&
		       capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	capng_clear(CAPNG_SELECT_BOTH);
	capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_ADMIN);
	if (getuid() == 0 || geteuid() == 0) {
		if (uid == 0)
			return cs_fail(err, CS_EXIT_CONFIG, "the resolver never runs as root; give it its own uid with --user UID:GID");
		/* Decided before the change, not by retrying: a failed first
		 * change may already have changed the ids and left CAP_SETGID out
		 * of the effective set, so that a second one cannot (found in a
		 * pod without CAP_SETPCAP).  Without CAP_SETPCAP the bounding
		 * set stays; no_new_privs covers it. */
		rc = capng_change_id((int)uid, (int)gid,
				     have_setpcap ? CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING : CAPNG_DROP_SUPP_GRP);
	} else {
		rc = capng_apply(CAPNG_SELECT_CAPS);
	}
	if (rc != 0)
		return cs_fail(err, CS_EXIT_OSERR, "the resolver could not change to uid %u gid %u keeping CAP_NET_ADMIN (libcap-ng %d); start it as root with SETUID, SETGID and NET_ADMIN",
			       (unsigned)uid, (unsigned)gid, rc);
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if (getresuid(&r, &e, &s) != 0 || getresgid(&gr, &ge, &gs) != 0 || r != uid || e != uid || s != uid ||
	    gr != gid || ge != gid || gs != gid || getgroups(0, NULL) != 0)
		return cs_fail(err, CS_EXIT_OSERR, "the resolver is not uid %u gid %u without supplementary groups after the change; refusing to serve",
			       (unsigned)uid, (unsigned)gid);
	if (caps_read_back(err) != 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return cs_fail(err, CS_EXIT_OSERR, "no_new_privs could not be set for the resolver; refusing to serve");
	rc = load_filter(&what);
	if (rc != 0)
		return cs_fail(err, CS_EXIT_OSERR, "the resolver's seccomp filter failed at %s (%s); refusing to serve", what, strerror(-rc));
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		return cs_fail(err, CS_EXIT_OSERR, "the resolver's seccomp filter is not in force after loading it; refusing to serve");
	return 0;
}
