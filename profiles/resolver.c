#include "profiles/resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

size_t resolver_getaddrinfo(const char *name, uint32_t *addrs, size_t max, void *ctx)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	size_t n = 0;

	(void)ctx;
	if (getaddrinfo(name, NULL, &hints, &res) != 0)
		return 0;
	for (struct addrinfo *ai = res; ai && n < max; ai = ai->ai_next) {
		uint32_t a = ntohl(((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr);
		bool dup = false;

		for (size_t i = 0; i < n; i++)
			dup = dup || addrs[i] == a;
		if (!dup)
			addrs[n++] = a;
	}
	freeaddrinfo(res);
	return n;
}
