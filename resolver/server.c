#include "resolver/server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/ipv4.h"
#include "resolver/answer.h"
#include "resolver/query.h"
#include "resolver/reply.h"

#define PENDING_MAX 128
#define TCP_CLIENTS_MAX 32
#define TCP_QUERY_MAX 1024
#define TCP_IDLE_MS 10000
#define UDP_RECV_MAX 4096

struct client {
	bool tcp;
	int fd;                        /* tcp: the connection */
	struct sockaddr_in peer;       /* udp */
};

struct pending {
	bool used;
	int fd;                        /* connected to cfg->upstream[upstream] */
	uint16_t up_id;
	size_t upstream;
	int64_t deadline;
	struct client client;
	struct query q;
	uint8_t question[12 + DNS_NAME_MAX + 2 + 4 + 256];   /* the client's message up to its question's end */
};

struct tcp_client {
	int fd;                        /* -1: free */
	bool waiting;                  /* a query of it is in flight */
	uint8_t buf[2 + TCP_QUERY_MAX];
	size_t got;
	int64_t idle_deadline;
};

static struct pending pending[PENDING_MAX];
static struct tcp_client tcp_clients[TCP_CLIENTS_MAX];

static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n = snprintf(line, sizeof(line), "cli-sandbox-resolver: ");

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(2, line, (size_t)n) < 0) {
		/* nowhere else to say it */
	}
}

static void tcp_close(struct tcp_client *c)
{
	close(c->fd);
	c->fd = -1;
	c->waiting = false;
	c->got = 0;
}

static struct tcp_client *tcp_of(int fd)
{
	for (size_t i = 0; i < TCP_CLIENTS_MAX; i++)
		if (tcp_clients[i].fd == fd)
			return &tcp_clients[i];
	return NULL;
}

static void send_reply(struct server *s, const struct client *c, const uint8_t *msg, size_t len)
{
	if (!c->tcp) {
		sendto(s->udp, msg, len, MSG_DONTWAIT, (const struct sockaddr *)&c->peer, sizeof(c->peer));
		return;
	}
	struct tcp_client *t = tcp_of(c->fd);
	uint8_t framed[2 + REPLY_MAX];

	if (!t)
		return;
	framed[0] = (uint8_t)(len >> 8);
	framed[1] = (uint8_t)len;
	memcpy(framed + 2, msg, len);
	t->waiting = false;
	t->idle_deadline = cs_now_ms() + TCP_IDLE_MS;
	/* a client that does not take a few hundred bytes at once is dropped */
	if (send(t->fd, framed, len + 2, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)(len + 2))
		tcp_close(t);
}

static void answer_client(struct server *s, const struct client *c, const uint8_t *msg, const struct query *q,
			  unsigned rcode, const struct answer *a)
{
	uint8_t out[REPLY_MAX];
	size_t room = c->tcp ? REPLY_MAX : q->edns_size ? q->edns_size : 512;
	size_t len = reply_build(out, room, msg, q, rcode, a, answer_ttl(UINT32_MAX, s->cfg->timeout_s, s->cfg->margin_s));

	if (len)
		send_reply(s, c, out, len);
	else if (c->tcp && tcp_of(c->fd))
		tcp_close(tcp_of(c->fd));
}

static int upstream_send(struct server *s, struct pending *p)
{
	uint8_t msg[DNS_QUERY_MAX + 11];
	size_t len;

	if (getrandom(&p->up_id, sizeof(p->up_id), 0) != sizeof(p->up_id))
		return -1;
	len = reply_upstream_query(msg, p->up_id, p->q.pin->name);
	if (len == 0 || connect(p->fd, (const struct sockaddr *)&s->cfg->upstream[p->upstream],
				sizeof(s->cfg->upstream[0])) != 0)
		return -1;
	p->deadline = cs_now_ms() + s->cfg->upstream_wait_ms;
	return send(p->fd, msg, len, MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
}

static void pending_end(struct pending *p)
{
	close(p->fd);
	p->used = false;
}

static void handle_query(struct server *s, const struct client *c, const uint8_t *msg, size_t len)
{
	struct query q;
	enum query_verdict v = query_judge(msg, len, &s->cfg->names, &q);
	struct pending *p = NULL;
	static const unsigned rcodes[] = {
		[QUERY_FORMERR] = DNS_RCODE_FORMERR, [QUERY_NOTIMP] = DNS_RCODE_NOTIMP,
		[QUERY_NXDOMAIN] = DNS_RCODE_NXDOMAIN, [QUERY_REFUSED] = DNS_RCODE_REFUSED,
		[QUERY_NODATA] = DNS_RCODE_NOERROR,
	};

	if (v == QUERY_DROP) {
		if (c->tcp && tcp_of(c->fd))
			tcp_close(tcp_of(c->fd));
		return;
	}
	if (v == QUERY_FORMERR || v == QUERY_NOTIMP) {
		/* no question to echo: a bare header with the error */
		q.question_end = 12;
		q.edns_size = 0;
		memcpy(q.name, "", 1);
	}
	if (v != QUERY_FORWARD) {
		answer_client(s, c, msg, &q, rcodes[v], NULL);
		return;
	}
	for (size_t i = 0; i < PENDING_MAX && !p; i++)
		if (!pending[i].used)
			p = &pending[i];
	if (!p || q.question_end > sizeof(p->question)) {
		answer_client(s, c, msg, &q, DNS_RCODE_SERVFAIL, NULL);
		return;
	}
	p->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (p->fd < 0) {
		answer_client(s, c, msg, &q, DNS_RCODE_SERVFAIL, NULL);
		return;
	}
	p->used = true;
	p->client = *c;
	p->q = q;
	p->upstream = 0;
	memcpy(p->question, msg, q.question_end);
	if (c->tcp && tcp_of(c->fd))
		tcp_of(c->fd)->waiting = true;
	if (upstream_send(s, p) != 0) {
		answer_client(s, c, msg, &q, DNS_RCODE_SERVFAIL, NULL);
		pending_end(p);
	}
}

static void log_pin(const struct server *s, const char *name, const struct answer *a)
{
	char line[1600], ip[IPV4_TEXT_MAX];
	size_t o = 0;
	const struct pin_name *pin = allowlist_find(&s->cfg->names, name);

	for (size_t i = 0; i < a->n_addrs && o < sizeof(line) - 64; i++)
		for (size_t k = 0; k < pin->n_ports && o < sizeof(line) - 64; k++)
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s:%u", o ? ", " : "",
					      ipv4_to_string(a->addrs[i], ip), pin->ports[k]);
	logline("pinned %s -> %s for %us", name, line, s->cfg->timeout_s);
}

static void handle_upstream(struct server *s, struct pending *p)
{
	uint8_t msg[UDP_RECV_MAX];
	ssize_t n = recv(p->fd, msg, sizeof(msg), MSG_DONTWAIT);
	struct answer a;
	struct cs_error err;
	unsigned rcode;

	if (n < 0)
		return;  /* ICMP refusal or nothing: the deadline decides */
	answer_judge(msg, (size_t)n, p->up_id, p->q.pin->name, p->q.pin->internal, &a);
	switch (a.kind) {
	case ANSWER_IGNORE:
		return;
	case ANSWER_SERVFAIL:
		logline("refused the answer for %s: %s; SERVFAIL, nothing pinned", p->q.pin->name, a.why);
		rcode = DNS_RCODE_SERVFAIL;
		break;
	case ANSWER_NXDOMAIN:
		rcode = DNS_RCODE_NXDOMAIN;
		break;
	case ANSWER_NODATA:
		rcode = DNS_RCODE_NOERROR;
		break;
	case ANSWER_PIN:
	default:
		/* add first, answer second */
		if (pin_set_add(s->nl, &s->cfg->target, a.addrs, a.n_addrs, p->q.pin->ports, p->q.pin->n_ports, &err) != 0) {
			logline("could not pin %s (%s); SERVFAIL", p->q.pin->name, err.msg);
			rcode = DNS_RCODE_SERVFAIL;
			a.n_rec = 0;
		} else {
			log_pin(s, p->q.pin->name, &a);
			rcode = DNS_RCODE_NOERROR;
		}
		break;
	}
	answer_client(s, &p->client, p->question, &p->q, rcode, rcode == DNS_RCODE_NOERROR ? &a : NULL);
	pending_end(p);
}

static void expire(struct server *s, int64_t now)
{
	for (size_t i = 0; i < PENDING_MAX; i++) {
		struct pending *p = &pending[i];

		if (!p->used || now < p->deadline)
			continue;
		if (++p->upstream < s->cfg->n_upstream && upstream_send(s, p) == 0)
			continue;
		logline("no answer for %s from the upstream; SERVFAIL", p->q.pin->name);
		answer_client(s, &p->client, p->question, &p->q, DNS_RCODE_SERVFAIL, NULL);
		pending_end(p);
	}
	for (size_t i = 0; i < TCP_CLIENTS_MAX; i++)
		if (tcp_clients[i].fd >= 0 && !tcp_clients[i].waiting && now >= tcp_clients[i].idle_deadline)
			tcp_close(&tcp_clients[i]);
}

static void handle_udp(struct server *s)
{
	uint8_t msg[UDP_RECV_MAX];
	struct client c = { .tcp = false };
	socklen_t sl = sizeof(c.peer);

	/* a bounded burst per wake-up, so TCP and the upstream get their turn */
	for (int i = 0; i < 64; i++) {
		ssize_t n = recvfrom(s->udp, msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&c.peer, &sl);

		if (n < 0)
			return;
		handle_query(s, &c, msg, (size_t)n);
		sl = sizeof(c.peer);
	}
}

static void handle_accept(struct server *s)
{
	int fd = accept4(s->tcp, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct tcp_client *c = NULL;

	if (fd < 0)
		return;
	for (size_t i = 0; i < TCP_CLIENTS_MAX && !c; i++)
		if (tcp_clients[i].fd < 0)
			c = &tcp_clients[i];
	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->got = 0;
	c->waiting = false;
	c->idle_deadline = cs_now_ms() + TCP_IDLE_MS;
}

static void handle_tcp(struct server *s, struct tcp_client *c)
{
	ssize_t n = recv(c->fd, c->buf + c->got, sizeof(c->buf) - c->got, MSG_DONTWAIT);
	size_t want;
	struct client cl = { .tcp = true, .fd = c->fd };

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			tcp_close(c);
		return;
	}
	c->got += (size_t)n;
	if (c->got < 2)
		return;
	want = (size_t)c->buf[0] << 8 | c->buf[1];
	if (want > TCP_QUERY_MAX || want < 12) {
		tcp_close(c);
		return;
	}
	if (c->got < want + 2)
		return;
	if (c->got > want + 2) {
		tcp_close(c);  /* pipelined queries: one at a time, please */
		return;
	}
	c->got = 0;
	handle_query(s, &cl, c->buf + 2, want);
}

int server_run(struct server *s)
{
	struct pollfd fds[2 + TCP_CLIENTS_MAX + PENDING_MAX];
	void *owner[2 + TCP_CLIENTS_MAX + PENDING_MAX];
	bool is_tcp[2 + TCP_CLIENTS_MAX + PENDING_MAX];

	for (size_t i = 0; i < TCP_CLIENTS_MAX; i++)
		tcp_clients[i].fd = -1;
	for (;;) {
		size_t n = 0;
		int64_t now = cs_now_ms(), next = now + 1000;
		int rc;

		fds[n] = (struct pollfd){ .fd = s->udp, .events = POLLIN };
		owner[n++] = NULL;
		fds[n] = (struct pollfd){ .fd = s->tcp, .events = POLLIN };
		owner[n++] = NULL;
		for (size_t i = 0; i < TCP_CLIENTS_MAX; i++)
			if (tcp_clients[i].fd >= 0 && !tcp_clients[i].waiting) {
				fds[n] = (struct pollfd){ .fd = tcp_clients[i].fd, .events = POLLIN };
				is_tcp[n] = true;
				owner[n++] = &tcp_clients[i];
				if (tcp_clients[i].idle_deadline < next)
					next = tcp_clients[i].idle_deadline;
			}
		for (size_t i = 0; i < PENDING_MAX; i++)
			if (pending[i].used) {
				fds[n] = (struct pollfd){ .fd = pending[i].fd, .events = POLLIN };
				is_tcp[n] = false;
				owner[n++] = &pending[i];
				if (pending[i].deadline < next)
					next = pending[i].deadline;
			}
		rc = poll(fds, (nfds_t)n, next > now ? (int)(next - now) : 0);
		if (rc < 0 && errno != EINTR) {
			logline("poll failed (%s); stopping, lookups now fail closed", strerror(errno));
			return 71;
		}
		for (size_t i = 0; rc > 0 && i < n; i++) {
			if (!fds[i].revents)
				continue;
			if (i == 0)
				handle_udp(s);
			else if (i == 1)
				handle_accept(s);
			else if (is_tcp[i])
				handle_tcp(s, owner[i]);
			else if (((struct pending *)owner[i])->used)
				handle_upstream(s, owner[i]);
		}
		expire(s, cs_now_ms());
	}
}
