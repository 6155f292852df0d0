#include "hostctl/reach.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hostctl/validate.h"

void url_port(const char *url, char *out, size_t len)
{
	const char *sep = strstr(url, "://"), *hp = sep ? sep + 3 : url;
	size_t n = strcspn(hp, "/");
	const char *close = memchr(hp, ']', n), *from = close ? close : hp;
	const char *colon = memchr(from, ':', n - (size_t)(from - hp));

	if (colon)
		snprintf(out, len, "%.*s", (int)(n - (size_t)(colon + 1 - hp)), colon + 1);
	else
		snprintf(out, len, "%s", strncmp(url, "https://", 8) == 0 ? "443" : "80");
}

bool tcp_reachable(const char *url, int timeout_ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *res = NULL, *ai;
	char host[256], port[16];
	bool ok = false;

	if (!url_host(url, host, sizeof(host)))
		return false;
	url_port(url, port, sizeof(port));
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return false;
	for (ai = res; ai && !ok; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol), e = 0;
		socklen_t el = sizeof(e);
		struct pollfd p = { .fd = fd, .events = POLLOUT };

		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			ok = true;
		else if (errno == EINPROGRESS && poll(&p, 1, timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0)
			ok = e == 0;
		close(fd);
	}
	freeaddrinfo(res);
	return ok;
}

bool addr_is_local(const char *addr)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
	struct sockaddr *sa;
	socklen_t sl;
	int fd;
	bool ok;

	if (inet_pton(AF_INET, addr, &v4.sin_addr) == 1) {
		sa = (struct sockaddr *)&v4;
		sl = sizeof(v4);
	} else if (inet_pton(AF_INET6, addr, &v6.sin6_addr) == 1) {
		sa = (struct sockaddr *)&v6;
		sl = sizeof(v6);
	} else {
		return false;
	}
	fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ok = bind(fd, sa, sl) == 0;  /* port 0: nothing is taken, the socket closes at once */
	close(fd);
	return ok;
}
