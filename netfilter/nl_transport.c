#include "netfilter/nl_transport.h"

#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libnftnl/batch.h>

#define NL_RECV_BUF (64 * 1024)

/* "ENOBUFS": the errno as the kernel's headers name it, beside strerror's
 * text, so a message says exactly what the kernel answered. */
static const char *errno_name(int errnum)
{
	const char *name = strerrorname_np(errnum);

	return name ? name : "unknown errno";
}

int nl_fail(struct cs_error *err, int errnum, const char *what, const char *detail)
{
	const char *d = detail && *detail ? detail : "";
	const char *sep = *d ? ": " : "";

	switch (errnum) {
	case EPERM:
	case EACCES:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel refused to program the firewall (%s%s%s): the container lacks CAP_NET_ADMIN; start it with --cap-add=NET_ADMIN "
			       "(Kubernetes: the init container's securityContext.capabilities.add: [NET_ADMIN])",
			       strerror(errnum), sep, d);
	case EOPNOTSUPP:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel has no nf_tables support (%s%s%s); run on a kernel with nf_tables, or load it on the host: modprobe nf_tables; "
			       "gVisor (runsc) has no nf_tables at all: run this pod with runc or Kata instead; "
			       "qemu-user (an image of another architecture, through binfmt_misc) opens no NETLINK_NETFILTER socket: run on the image's own architecture",
			       strerror(errnum), sep, d);
	case ENOENT:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel could not create %s (%s%s%s): a netfilter module is probably missing; on the host run: modprobe nf_conntrack nft_ct nft_reject_inet",
			       what, strerror(errnum), sep, d);
	default:
		return cs_fail(err, CS_EXIT_OSERR, "the kernel refused %s (%s, %s%s%s); no command is started",
			       what, errno_name(errnum), strerror(errnum), sep, d);
	}
}

struct mnl_socket *nl_open(struct cs_error *err)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	int one = 1;

	if (!nl) {
		nl_fail(err, errno, "the netlink socket", NULL);
		return NULL;
	}
	/* Small acknowledgements (no echoed payload), with the kernel's reason. */
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		nl_fail(err, errno, "the netlink socket", NULL);
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

/* The kernel's own explanation (NETLINK_EXT_ACK), when it gave one. */
static void ext_ack_message(const struct nlmsghdr *nlh, char *out, size_t len)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);
	const struct nlattr *a;

	out[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(out, len, "%s", mnl_attr_get_str(a));
	}
}

int nl_send(struct mnl_socket *nl, const struct nl_batch *b, struct nl_refusal *refused, struct cs_error *err)
{
	int fd = mnl_socket_get_fd(nl);
	int n_iov = nftnl_batch_iovec_len(b->pages);
	struct iovec *iov = calloc((size_t)n_iov, sizeof(*iov));
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct msghdr mh = { .msg_name = &kernel, .msg_namelen = sizeof(kernel) };
	char *buf = malloc(NL_RECV_BUF);
	int size = (int)(b->bytes + 65536), acks_bad = 0;
	size_t acked = 0;

	refused->errnum = 0;
	refused->seq = 0;
	if (!iov || !buf) {
		free(iov);
		free(buf);
		return cs_fail(err, CS_EXIT_OSERR, "out of memory sending the netlink batch");
	}
	/* Large sets need a send buffer as big as the batch (CAP_NET_ADMIN lets
	 * us force it), and room for every acknowledgement. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	size = 4 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	nftnl_batch_iovec(b->pages, iov, (uint32_t)n_iov);
	mh.msg_iov = iov;
	mh.msg_iovlen = (size_t)n_iov;
	if (sendmsg(fd, &mh, 0) < 0) {
		int e = errno;

		free(iov);
		free(buf);
		return nl_fail(err, e, "the netlink batch (sendmsg)", NULL);
	}
	free(iov);

	/* nfnetlink runs the whole batch inside sendmsg, so every
	 * acknowledgement is already queued: read until the queue is empty. */
	for (;;) {
		ssize_t got = recv(fd, buf, NL_RECV_BUF, MSG_DONTWAIT);
		const struct nlmsghdr *nlh;
		int left;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (got < 0) {
			int e = errno;

			free(buf);
			return nl_fail(err, e, "reading the kernel's acknowledgements", NULL);
		}
		left = (int)got;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct nlmsgerr *e;
			const char *what = nl_batch_describe(b, nlh->nlmsg_seq);
			char detail[256];

			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			if (e->error == 0) {
				acked++;
				continue;
			}
			if (acks_bad)
				continue;
			ext_ack_message(nlh, detail, sizeof(detail));
			nl_fail(err, -e->error, what ? what : "the batch", detail);
			refused->errnum = -e->error;
			refused->seq = nlh->nlmsg_seq;
			acks_bad = 1;  /* the first error is the cause; keep draining */
		}
	}
	free(buf);
	if (acks_bad)
		return -1;
	/* No error, and the acknowledgement of the last message: committed. */
	if (acked != nl_batch_acks_expected(b))
		return cs_fail(err, CS_EXIT_OSERR, "the kernel acknowledged %zu of %zu firewall messages; cannot confirm the firewall, no command is started",
			       acked, nl_batch_acks_expected(b));
	return 0;
}
