/* The resolver child's seccomp filter (issue 23, item 4), with the real
 * lookup_all() and the real filter, no privileges needed: the child runs
 * under it (its /proc status says Seccomp: 2), glibc's getaddrinfo still
 * answers from /etc/hosts, a socket family outside its list gets an errno,
 * and a system call outside its list kills the child, after which the
 * lookup fails closed (71) and none of the child's answers counts. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps/sandbox_filter.h"
#include "profiles/lookup.h"
#include "profiles/resolver.h"
#include "check.h"

static int isolate(void *ctx, struct cs_error *err)
{
	(void)ctx;
	return resolver_filter_install(err);
}

/* The resolver's answer is what the test asks the child about itself. */
static size_t probe(const char *name, uint32_t *addrs, size_t max, void *ctx)
{
	(void)max;
	(void)ctx;
	if (strcmp(name, "seccomp") == 0) {  /* its Seccomp: field, as an "address" */
		FILE *f = fopen("/proc/self/status", "re");
		char line[256];

		addrs[0] = 99;
		while (f && fgets(line, sizeof(line), f))
			if (strncmp(line, "Seccomp:", 8) == 0)
				addrs[0] = (uint32_t)strtoul(line + 8, NULL, 10);
		if (f)
			fclose(f);
		return 1;
	}
	if (strcmp(name, "localhost") == 0)  /* glibc, NSS files, under the filter */
		return resolver_getaddrinfo(name, addrs, max, NULL);
	if (strcmp(name, "packet") == 0) {  /* a family outside the list: an errno */
		int fd = socket(AF_PACKET, SOCK_DGRAM, 0);

		addrs[0] = fd < 0 ? (uint32_t)errno : 0;
		return 1;
	}
	if (strcmp(name, "getcwd") == 0) {  /* a call outside the list */
		char buf[64];

		syscall(SYS_getcwd, buf, sizeof(buf));
		addrs[0] = 1;
		return 1;
	}
	if (strcmp(name, "fork") == 0) {  /* a process, not a thread */
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		addrs[0] = 1;
		return 1;
	}
	return 0;
}

static int run(const char *name, struct lookup_result *r, struct cs_error *err)
{
	struct lookup_isolation iso = { isolate, NULL };
	const char *names[] = { name };

	memset(err, 0, sizeof(*err));
	return lookup_all(probe, NULL, &iso, NULL, names, 1, 5000, r, err);
}

int main(void)
{
	struct lookup_result r;
	struct cs_error err;

	CHECK(run("seccomp", &r, &err) == 0 && r.answered && r.n == 1 && r.addrs[0] == 2,
	      "the child runs under a seccomp filter: Seccomp: %u (%s)", r.addrs[0], err.msg);
	CHECK(run("localhost", &r, &err) == 0 && r.answered && r.n >= 1 && r.addrs[0] == 0x7f000001u,
	      "getaddrinfo still answers from /etc/hosts (%s)", err.msg);
	CHECK(run("packet", &r, &err) == 0 && r.answered && r.addrs[0] == EAFNOSUPPORT,
	      "socket(AF_PACKET) gets EAFNOSUPPORT, the child lives (%u)", r.addrs[0]);
	CHECK(run("getcwd", &r, &err) == -1 && err.status == CS_EXIT_OSERR && strstr(err.msg, "seccomp") &&
	      strstr(err.msg, "SIGSYS"), "getcwd(2), outside the list: killed, the lookup fails closed: %s", err.msg);
	CHECK(!r.answered, "... and its answer does not count");
	CHECK(run("fork", &r, &err) == -1 && err.status == CS_EXIT_OSERR && strstr(err.msg, "SIGSYS"),
	      "fork(), a process rather than a thread: killed, fails closed: %s", err.msg);
	return check_done("test_resolver_filter");
}
