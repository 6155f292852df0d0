#include "profiles/dns_stub.h"

#include "base/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "profiles/dns_wire.h"

#define FILE_MAX (64 * 1024)    /* a larger config file: no fast path */
#define STUB_NAMES_MAX 256

/* A whole small file as a string; NULL when it cannot be read (missing:
 * *missing is set) or is larger than FILE_MAX. */
static char *slurp(const char *path, bool *missing)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	char *buf;
	size_t have = 0;

	*missing = fd < 0 && errno == ENOENT;
	if (fd < 0)
		return NULL;
	buf = malloc(FILE_MAX + 1);
	while (buf) {
		ssize_t got = read(fd, buf + have, FILE_MAX + 1 - have);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || have + (size_t)got > FILE_MAX) {
			free(buf);
			buf = NULL;
		} else if (got == 0) {
			buf[have] = '\0';
			break;
		} else {
			have += (size_t)got;
		}
	}
	close(fd);
	return buf;
}

/* The line after this one, or NULL after the last. */
static const char *next_line(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl && nl[1] ? nl + 1 : NULL;
}

/* Next whitespace-separated word of a line, up to '#' or the line's end. */
static const char *word(const char **p, size_t *len)
{
	const char *s = *p + strspn(*p, " \t\r");

	*len = strcspn(s, " \t\r\n#");
	*p = s + *len;
	return *len ? s : NULL;
}

static bool word_is(const char *w, size_t len, const char *want)
{
	return w && len == strlen(want) && memcmp(w, want, len) == 0;
}

/* The hosts line of nsswitch.conf is exactly "files dns" (the order in which
 * glibc asks /etc/hosts and then DNS, and nothing else). */
static bool nsswitch_plain(const char *text)
{
	bool seen = false, plain = false;

	for (const char *line = text; line; line = next_line(line)) {
		const char *p = line, *w;
		size_t len;

		w = word(&p, &len);
		if (!word_is(w, len, "hosts:"))
			continue;
		if (seen)
			return false;  /* twice: which one glibc reads is not ours to guess */
		seen = true;
		w = word(&p, &len);
		plain = word_is(w, len, "files");
		w = word(&p, &len);
		plain = plain && word_is(w, len, "dns");
		w = word(&p, &len);
		plain = plain && !w;
	}
	return plain;
}

/* resolv.conf's options: only ndots:N is read (default 1); timeout,
 * attempts, rotate and edns0 do not change what the first question is; any
 * other option (use-vc, inet6, no-tld-query, ...) turns the fast path off. */
static bool resolv_options(const char *text, unsigned *ndots)
{
	*ndots = 1;
	for (const char *line = text; line; line = next_line(line)) {
		const char *p = line, *w;
		size_t len;

		w = word(&p, &len);
		if (!word_is(w, len, "options"))
			continue;
		while ((w = word(&p, &len))) {
			if (len > 6 && memcmp(w, "ndots:", 6) == 0) {
				unsigned v = 0;

				for (size_t i = 6; i < len; i++) {
					if (w[i] < '0' || w[i] > '9' || v > 100)
						return false;
					v = v * 10 + (unsigned)(w[i] - '0');
				}
				*ndots = v > 15 ? 15 : v;  /* glibc's cap */
			} else if (!(len > 8 && memcmp(w, "timeout:", 8) == 0) &&
				   !(len > 9 && memcmp(w, "attempts:", 9) == 0) &&
				   !word_is(w, len, "rotate") && !word_is(w, len, "edns0") &&
				   !word_is(w, len, "trust-ad")) {
				return false;
			}
		}
	}
	return true;
}

static bool same_word_nocase(const char *w, size_t len, const char *name)
{
	return strlen(name) == len && strncasecmp(w, name, len) == 0;
}

/* Whether /etc/hosts names this host on any line (as a name or an alias,
 * for any address): then glibc answers from the file, so the name is its. */
static bool in_hosts(const char *text, const char *name)
{
	for (const char *line = text; line; line = next_line(line)) {
		const char *p = line, *w;
		size_t len;

		if (!word(&p, &len))
			continue;  /* the address, or an empty line */
		while ((w = word(&p, &len)))
			if (same_word_nocase(w, len, name))
				return true;
	}
	return false;
}

struct gate {
	bool open;
	unsigned ndots;
	char *hosts;                /* NULL: there is no /etc/hosts */
};

static void gate_load(const struct dns_stub *s, struct gate *g)
{
	bool missing;
	char *ns, *rc;

	memset(g, 0, sizeof(*g));
	/* glibc reads these from the environment and then asks differently. */
	if (s->nameserver == 0 || getenv("RES_OPTIONS") || getenv("LOCALDOMAIN"))
		return;
	ns = slurp(s->nsswitch_conf, &missing);
	rc = slurp(s->resolv_conf, &missing);
	g->hosts = slurp(s->hosts, &missing);
	g->open = ns && rc && (g->hosts || missing) && nsswitch_plain(ns) && resolv_options(rc, &g->ndots);
	free(ns);
	free(rc);
}

static bool gate_passes(const struct gate *g, const char *name)
{
	unsigned dots = 0;
	uint8_t q[DNS_QUERY_MAX];

	if (!g->open || dns_query_build(q, 0, name) == 0)
		return false;
	for (const char *c = name; *c; c++)
		dots += *c == '.';
	return dots >= g->ndots && !(g->hosts && in_hosts(g->hosts, name));
}

int dns_stub_applies(const struct dns_stub *s, const char *name)
{
	struct gate g;
	bool ok;

	gate_load(s, &g);
	ok = gate_passes(&g, name);
	free(g.hosts);
	return ok;
}

struct pending {
	size_t index;               /* into names */
	uint16_t id;
	bool done;                  /* answered, or answered negatively */
};

/* Distinct random ids, so that an answer is matched to its query and a
 * stray datagram is not taken for one. */
static bool random_ids(struct pending *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool unique;

		do {
			uint16_t id;

			if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
				return false;
			q[i].id = id;
			unique = true;
			for (size_t k = 0; k < i; k++)
				unique = unique && q[k].id != id;
		} while (!unique);
	}
	return true;
}

static int open_socket(const struct dns_stub *s)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(53),
				  .sin_addr.s_addr = htonl(s->nameserver) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	/* Connected: the kernel drops datagrams from any other address or port. */
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Reads answers until every query is done or the deadline passes. */
static void collect(int fd, const char *const *names, struct pending *q, size_t nq, int64_t deadline,
		    struct lookup_result *out)
{
	uint8_t msg[4096];
	size_t left = 0;

	for (size_t i = 0; i < nq; i++)
		left += !q[i].done;
	while (left > 0) {
		ssize_t got;
		uint16_t id;

		if (!lookup_readable(fd, deadline))
			return;
		got = recv(fd, msg, sizeof(msg), MSG_TRUNC);
		if (got < 12 || (size_t)got > sizeof(msg) || !(msg[2] & 0x80))
			continue;  /* an error, a runt, cut off by our buffer, or no response */
		id = (uint16_t)(msg[0] << 8 | msg[1]);
		for (size_t i = 0; i < nq; i++) {
			struct lookup_result *r = &out[q[i].index];

			if (q[i].done || q[i].id != id)
				continue;
			/* The response to this query: positive, the name is
			 * answered; anything else (NXDOMAIN, no A record, an
			 * error, truncated, another question): glibc decides. */
			r->answered = dns_answer_addrs(msg, (size_t)got, id, names[q[i].index], r->addrs,
						       LOOKUP_MAX_ADDRS, &r->n);
			if (!r->answered)
				r->n = 0;
			q[i].done = true;
			left--;
			break;
		}
	}
}

void dns_stub_batch(const char *const *names, size_t n, struct lookup_result *out, void *ctx)
{
	const struct dns_stub *s = ctx;
	struct pending q[STUB_NAMES_MAX];
	struct gate g;
	size_t nq = 0;
	int fd;

	gate_load(s, &g);
	for (size_t i = 0; i < n && nq < STUB_NAMES_MAX; i++)
		if (gate_passes(&g, names[i]))
			q[nq++] = (struct pending){ .index = i };
	free(g.hosts);
	if (nq == 0 || !random_ids(q, nq))
		return;
	fd = open_socket(s);
	if (fd < 0)
		return;
	for (size_t i = 0; i < nq; i++) {
		uint8_t buf[DNS_QUERY_MAX];
		size_t len = dns_query_build(buf, q[i].id, names[q[i].index]);

		if (send(fd, buf, len, 0) != (ssize_t)len)
			q[i].done = true;  /* not sent: glibc asks */
	}
	collect(fd, names, q, nq, cs_now_ms() + (s->wait_ms ? s->wait_ms : DNS_STUB_WAIT_MS), out);
	close(fd);
}
