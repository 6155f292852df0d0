/* host-address: the IPv4 address at which a container on an engine's
 * network reaches this host, for the runner's host_url (an endpoint on
 * localhost, 127.0.0.1 or 'host' means the container itself inside it).
 * The network's gateway, as the engine's 'network inspect' lists it; docker
 * 20.10 lists none for a network made with --subnet alone, whose bridge then
 * has the subnet's first address.  Prints the address, exit 0; exit 1 when
 * the engine names none.
 * With --url URL (the runner's host_url): URL with its host replaced by that
 * address (host_url= and host_addr= lines; CLI_SANDBOX_HOST_ADDRESS first,
 * as the person's override), or host_error= with the fix, exit 0 either way.
 * The runner asks only for a URL whose host is localhost, 127.0.0.1 or
 * host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ipv4.h"
#include "hostctl/cmds.h"
#include "hostctl/printable.h"
#include "hostctl/spawn.h"

static const char help[] =
	"Usage: cli-sandbox-ctl host-address [--url URL [--uid N]] docker|podman [NETWORK] [-- ENGINE-GLOBAL-ARGS...]\n"
	"The IPv4 address at which a container on NETWORK (default: docker's bridge, podman's\n"
	"podman) reaches this host: its gateway, else its subnet's first address.  Exit 1 when\n"
	"the engine names none.  --url: URL with its host replaced by it, as host_url= and\n"
	"host_addr= lines (CLI_SANDBOX_HOST_ADDRESS first), or host_error= with the fix (--uid:\n"
	"the invoking user's, for rootless podman's), exit 0.\n";

#define MAX_GLOBAL 32

/* The subnet's first host address of "a.b.c.d/n" (n 1..30) into out. */
static bool first_host(const char *cidr, char out[IPV4_TEXT_MAX])
{
	uint32_t addr;
	unsigned plen;
	bool host_bits;

	if (ipv4_prefix_parse(cidr, strlen(cidr), &addr, &plen, &host_bits) != 0 || plen < 1 || plen > 30)
		return false;
	ipv4_to_string(((addr >> (32 - plen)) << (32 - plen)) + 1, out);
	return true;
}

/* One word of the engine's answer: "GATEWAY" or "GATEWAY|SUBNET" (docker). */
static bool address_of(char *word, char out[IPV4_TEXT_MAX])
{
	char *bar = strchr(word, '|');
	uint32_t addr;

	if (bar)
		*bar = '\0';
	if (ipv4_parse_strict(word, strlen(word), &addr) == 0) {
		ipv4_to_string(addr, out);
		return true;
	}
	return bar && first_host(bar + 1, out);
}

/* --url's answer: url's host (up to its port or path) replaced by addr. */
static int url_lines(const char *url, const char *addr)
{
	const char *rest = strstr(url, "://") + 3;
	size_t host = strcspn(rest, ":/");

	printf("host_url=%.*s%s%s\nhost_addr=%s\n", (int)(rest - url), url, addr, rest + host, addr);
	return 0;
}

/* --url's refusal: the runner stops with it (or doctor reports it). */
static int url_error(const char *engine, const char *network, bool rootless)
{
	if (rootless)
		printf("host_error=rootless podman has no fixed address for the host: set CLI_SANDBOX_HOST_ADDRESS to an IPv4 "
		       "address of this host that containers reach\n");
	else
		printf("host_error=cannot learn the host's address from %s's %s%s: start %s, or set CLI_SANDBOX_HOST_ADDRESS to "
		       "an IPv4 address of this host that containers reach\n",
		       engine, *network ? "network " : "default network", network, engine);
	return 0;
}

int cmd_host_address(int argc, char **argv)
{
	const char *engine, *network = "", *named, *url = NULL, *uid = "0", *given = getenv("CLI_SANDBOX_HOST_ADDRESS");
	char *args[MAX_GLOBAL + 8], answer[4096], addr[IPV4_TEXT_MAX];
	int n = 0, i = 2, first = 1;
	bool docker;

	if (ctl_help(argc, argv, help))
		return 0;
	for (; first + 1 < argc && (strcmp(argv[first], "--url") == 0 || strcmp(argv[first], "--uid") == 0); first += 2)
		*(strcmp(argv[first], "--url") == 0 ? &url : &uid) = argv[first + 1];
	argc -= first - 1, argv += first - 1;
	if (url && !strstr(url, "://"))
		return ctl_usage("host-address --url takes a URL with a scheme (http://HOST...)");
	if (argc < 2 || (strcmp(argv[1], "docker") != 0 && strcmp(argv[1], "podman") != 0))
		return ctl_usage("usage: cli-sandbox-ctl host-address [--url URL [--uid N]] docker|podman [NETWORK] [-- ENGINE-GLOBAL-ARGS...]");
	engine = argv[1];
	if (url && given && *given)
		return one_line(given) && one_line(url) ? url_lines(url, given)
						: ctl_usage("CLI_SANDBOX_HOST_ADDRESS and the URL are one line each");
	if (url && strcmp(engine, "podman") == 0 && strcmp(uid, "0") != 0)
		return url_error(engine, "", true);
	docker = strcmp(engine, "docker") == 0;
	if (i < argc && strcmp(argv[i], "--") != 0)
		network = argv[i++];
	named = network;  /* as the person named it, for the error */
	if (!*network)
		network = docker ? "bridge" : "podman";
	args[n++] = (char *)engine;
	if (i < argc && strcmp(argv[i], "--") == 0)
		for (i++; i < argc; i++) {
			if (n > MAX_GLOBAL)
				return ctl_usage("host-address: more than %d engine global arguments", MAX_GLOBAL);
			args[n++] = argv[i];
		}
	else if (i < argc)
		return ctl_usage("usage: cli-sandbox-ctl host-address docker|podman [NETWORK] [-- ENGINE-GLOBAL-ARGS...]");
	args[n++] = "network";
	args[n++] = "inspect";
	args[n++] = (char *)network;
	args[n++] = "--format";
	args[n++] = docker ? "{{range .IPAM.Config}}{{.Gateway}}|{{.Subnet}} {{end}}" : "{{range .Subnets}}{{.Gateway}} {{end}}";
	args[n] = NULL;
	if (spawn_capture(args, answer, sizeof(answer), 10000) == 0)
		for (char *save = NULL, *w = strtok_r(answer, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
			if (address_of(w, addr)) {
				if (url)
					return url_lines(url, addr);
				printf("%s\n", addr);
				return 0;
			}
	return url ? url_error(engine, named, false) : 1;
}
