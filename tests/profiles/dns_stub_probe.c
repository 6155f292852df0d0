/* The resolver's fast path alone (profiles/dns_stub.h), against a real DNS
 * server, with a window that the caller chooses: a test that must not
 * depend on the machine's load gives it one no loaded machine misses (the
 * fast path returns as soon as every query is answered, so a long window
 * costs nothing when all goes well).  Prints one line a name:
 *   NAME answered A[,A...]   the fast path's answer, which stands
 *   NAME unanswered          left to glibc (negative, foreign, no answer)
 * usage: dns_stub_probe NAMESERVER RESOLV-CONF NSSWITCH-CONF HOSTS WAIT-MS NAME... */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/dns_stub.h"

#define PROBE_NAMES_MAX 16

int main(int argc, char **argv)
{
	struct lookup_result out[PROBE_NAMES_MAX];
	struct in_addr ns;
	struct dns_stub s;
	char *end;
	unsigned long wait;
	size_t n;

	if (argc < 7 || argc - 6 > PROBE_NAMES_MAX || inet_pton(AF_INET, argv[1], &ns) != 1) {
		fprintf(stderr, "usage: dns_stub_probe NAMESERVER RESOLV-CONF NSSWITCH-CONF HOSTS WAIT-MS NAME... (at most %d names)\n",
			PROBE_NAMES_MAX);
		return 2;
	}
	wait = strtoul(argv[5], &end, 10);
	if (*end || wait == 0 || wait > 600000) {
		fprintf(stderr, "dns_stub_probe: WAIT-MS must be 1..600000, not '%s'\n", argv[5]);
		return 2;
	}
	n = (size_t)(argc - 6);
	s = (struct dns_stub){ .nameserver = ntohl(ns.s_addr), .resolv_conf = argv[2], .nsswitch_conf = argv[3],
			       .hosts = argv[4], .wait_ms = (unsigned)wait };
	memset(out, 0, sizeof(out));
	dns_stub_batch((const char *const *)argv + 6, n, out, &s);
	for (size_t i = 0; i < n; i++) {
		printf("%s %s", argv[6 + i], out[i].answered && out[i].n ? "answered" : "unanswered");
		for (size_t k = 0; out[i].answered && k < out[i].n; k++) {
			struct in_addr a = { .s_addr = htonl(out[i].addrs[k]) };
			char text[INET_ADDRSTRLEN];

			printf("%c%s", k ? ',' : ' ', inet_ntop(AF_INET, &a, text, sizeof(text)));
		}
		printf("\n");
	}
	return 0;
}
