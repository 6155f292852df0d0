/* Is a server there?  A TCP connection to a URL's host and port (no
 * request is sent; a socket, not libcurl, so the commands that ask start
 * without it), and whether an address is this host's own, as the kernel
 * says (it lets a socket bind there). */
#ifndef CLI_SANDBOX_HOSTCTL_REACH_H
#define CLI_SANDBOX_HOSTCTL_REACH_H

#include <stdbool.h>
#include <stddef.h>

/* The URL's port: the one it names, else the scheme's (80, 443). */
void url_port(const char *url, char *out, size_t len);

/* A TCP connection to the URL's host and port opens within timeout_ms. */
bool tcp_reachable(const char *url, int timeout_ms);

/* addr (an IPv4 or IPv6 literal) is an address of this host: a socket can
 * bind to it (EADDRNOTAVAIL otherwise).  False for anything else. */
bool addr_is_local(const char *addr);

#endif
