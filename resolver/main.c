/* cli-sandbox-resolver: the pinning resolver of the interactive profile.
 *
 *   cli-sandbox-resolver [--names-for COMMAND] [--upstream A.B.C.D[:PORT] ...]
 *       [--allow NAME:PORT ...] [--internal NAME:PORT ...] [--resolv-conf PATH]
 *       [--user UID:GID] [--listen A.B.C.D:PORT] [--table NAME] [--set NAME]
 *       [--timeout SECONDS] [--ttl-margin SECONDS]
 *
 * --names-for COMMAND takes the names, and the uid (CLI_SANDBOX_RESOLVER_UID)
 * unless --user gives one, from the sandbox's own environment and profile
 * (resolver/from_env.h): the sidecar's way.  Without --upstream, the
 * upstreams are the nameservers of resolv.conf (the container's own,
 * /etc/resolv.conf, as the engine wrote it).
 *
 * It binds UDP and TCP on the listen address (127.0.0.1:53), opens the
 * netfilter socket, confines itself (resolver/confine.h) and serves
 * (resolver/server.h).  Exit: 78 for a bad option, 71 when it cannot bind,
 * confine itself or keep serving. */
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/ipv4.h"
#include "base/status.h"
#include "netfilter/nl_transport.h"
#include "resolver/confine.h"
#include "resolver/from_env.h"
#include "resolver/server.h"

static int fail(const struct cs_error *err)
{
	fprintf(stderr, "cli-sandbox-resolver: error: %s\n", err->msg);
	return err->status;
}

/* "A.B.C.D[:PORT]" into sa (port default_port when absent); 0 or -1. */
static int parse_addr(const char *s, uint16_t default_port, struct sockaddr_in *sa)
{
	const char *colon = strchr(s, ':');
	size_t alen = colon ? (size_t)(colon - s) : strlen(s);
	uint32_t a;
	uint16_t port = default_port;

	if (ipv4_parse_strict(s, alen, &a) != 0 ||
	    (colon && port_parse_strict(colon + 1, strlen(colon + 1), &port) != 0))
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(a);
	sa->sin_port = htons(port);
	return 0;
}

static int parse_seconds(const char *s, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_user(const char *s, uid_t *uid, gid_t *gid)
{
	uint32_t u, g;
	const char *colon = strchr(s, ':');
	char ubuf[16];

	if (!colon || (size_t)(colon - s) >= sizeof(ubuf))
		return -1;
	memcpy(ubuf, s, (size_t)(colon - s));
	ubuf[colon - s] = '\0';
	if (parse_seconds(ubuf, 0x7fffffffu, &u) != 0 || parse_seconds(colon + 1, 0x7fffffffu, &g) != 0 || u == 0)
		return -1;
	*uid = u;
	*gid = g;
	return 0;
}

static int bind_socket(int type, const struct sockaddr_in *sa, struct cs_error *err)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return cs_fail(err, CS_EXIT_OSERR, "cannot open the resolver's socket (%s)", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 64) != 0)) {
		cs_fail(err, CS_EXIT_OSERR, "cannot listen on %s port %u (%s); binding port 53 needs root or CAP_NET_BIND_SERVICE at start, and nothing else on it",
			type == SOCK_STREAM ? "TCP" : "UDP", ntohs(sa->sin_port), strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int usage(const char *why)
{
	fprintf(stderr, "cli-sandbox-resolver: error: %s; usage: cli-sandbox-resolver [--names-for COMMAND] "
		"[--upstream A.B.C.D[:PORT]] [--allow NAME:PORT] [--internal NAME:PORT] [--resolv-conf PATH] "
		"[--user UID:GID] [--listen A.B.C.D:PORT] "
		"[--table NAME] [--set NAME] [--timeout SECONDS] [--ttl-margin SECONDS]\n", why);
	return CS_EXIT_CONFIG;
}

extern char **environ;

int main(int argc, char **argv)
{
	static struct server_config cfg = {
		.target = { .table = "cli_sandbox", .set = "pinned" },
		.timeout_s = 900,
		.margin_s = 60,
		.upstream_wait_ms = 1500,
	};
	struct sockaddr_in listen_at;
	struct server s;
	struct cs_error err;
	uid_t uid = 0;
	gid_t gid = 0;
	bool have_user = false;
	const char *names_for = NULL, *resolv_conf = "/etc/resolv.conf";

	parse_addr("127.0.0.1", 53, &listen_at);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return usage("an option without its value");
		i++;
		if (strcmp(o, "--upstream") == 0) {
			if (cfg.n_upstream == SERVER_UPSTREAMS_MAX)
				return usage("more than 3 upstreams");
			if (parse_addr(v, 53, &cfg.upstream[cfg.n_upstream++]) != 0)
				return usage("--upstream is not A.B.C.D[:PORT]");
		} else if (strcmp(o, "--allow") == 0 || strcmp(o, "--internal") == 0) {
			if (allowlist_add(&cfg.names, v, o[2] == 'i', &err) != 0)
				return fail(&err);
		} else if (strcmp(o, "--names-for") == 0) {
			names_for = v;
		} else if (strcmp(o, "--resolv-conf") == 0) {
			resolv_conf = v;
		} else if (strcmp(o, "--listen") == 0) {
			if (parse_addr(v, 53, &listen_at) != 0)
				return usage("--listen is not A.B.C.D[:PORT]");
		} else if (strcmp(o, "--user") == 0) {
			if (parse_user(v, &uid, &gid) != 0)
				return usage("--user is not UID:GID with a UID other than 0");
			have_user = true;
		} else if (strcmp(o, "--table") == 0) {
			cfg.target.table = v;
		} else if (strcmp(o, "--set") == 0) {
			cfg.target.set = v;
		} else if (strcmp(o, "--timeout") == 0) {
			if (parse_seconds(v, 86400, &cfg.timeout_s) != 0 || cfg.timeout_s == 0)
				return usage("--timeout is not 1-86400 seconds");
		} else if (strcmp(o, "--ttl-margin") == 0) {
			if (parse_seconds(v, 86400, &cfg.margin_s) != 0)
				return usage("--ttl-margin is not 0-86400 seconds");
		} else {
			return usage("unknown option");
		}
	}
	if (names_for) {
		uint32_t r_uid;

		if (resolver_names_from_env(&cfg.names, names_for, environ, 0, &r_uid, &err) != 0)
			return fail(&err);
		if (!have_user) {
			uid = r_uid;
			gid = r_uid;
			have_user = true;
		}
	}
	if (cfg.n_upstream == 0) {
		int n = resolver_upstreams_from_resolv_conf(resolv_conf, &listen_at, cfg.upstream, SERVER_UPSTREAMS_MAX, &err);

		if (n < 0)
			return fail(&err);
		if (n == 0) {
			fprintf(stderr, "cli-sandbox-resolver: error: %s names no IPv4 nameserver but this resolver; give the upstream with --upstream A.B.C.D\n", resolv_conf);
			return CS_EXIT_CONFIG;
		}
		cfg.n_upstream = (size_t)n;
	}
	if (cfg.names.n == 0)
		return usage("no --allow and no --names-for");
	if (cfg.margin_s >= cfg.timeout_s)
		return usage("--ttl-margin must be below --timeout");
	if (!have_user) {
		uid = getuid();
		gid = getgid();
	}
	cfg.target.timeout_ms = cfg.timeout_s * 1000u;
	s.cfg = &cfg;
	if ((s.udp = bind_socket(SOCK_DGRAM, &listen_at, &err)) < 0 ||
	    (s.tcp = bind_socket(SOCK_STREAM, &listen_at, &err)) < 0)
		return fail(&err);
	s.nl = nl_open(&err);
	if (!s.nl)
		return fail(&err);
	if (resolver_confine(uid, gid, &err) != 0)
		return fail(&err);
	/* what building the seccomp filter allocated goes back: the
	 * resolver stays resident beside the agent for the whole run */
	malloc_trim(0);
	{
		/* the upstreams by address: the host script writes them after
		 * 127.0.0.1 into the sandbox's resolv.conf, where the init's rule
		 * "upstream DNS for the resolver's uid alone" reads them */
		char up[SERVER_UPSTREAMS_MAX * (IPV4_TEXT_MAX + 1)] = "", a[IPV4_TEXT_MAX];

		for (size_t i = 0; i < cfg.n_upstream; i++)
			snprintf(up + strlen(up), sizeof(up) - strlen(up), "%s%s", i ? "," : "",
				 ipv4_to_string(ntohl(cfg.upstream[i].sin_addr.s_addr), a));
		fprintf(stderr, "cli-sandbox-resolver: serving %zu name(s) on port %u as uid %u, upstream %s, pinning into inet %s %s for %us\n",
			cfg.names.n, ntohs(listen_at.sin_port), (unsigned)uid, up, cfg.target.table, cfg.target.set, cfg.timeout_s);
	}
	return server_run(&s);
}
