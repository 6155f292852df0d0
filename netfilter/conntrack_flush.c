/* Flushing the network namespace's conntrack table: see conntrack_flush.h. */
#include "netfilter/conntrack_flush.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static int failed(struct cs_error *err, int e)
{
	if (e == EPERM)
		return cs_fail(err, CS_EXIT_OSERR, "flushing the conntrack table was refused (EPERM); the command is not started, start the container with --cap-add=NET_ADMIN");
	if (e == EOPNOTSUPP || e == EPROTONOSUPPORT || e == EINVAL || e == ENOENT)
		return cs_fail(err, CS_EXIT_OSERR, "the kernel has no conntrack netlink interface (%s), so connections opened before the firewall would survive it; the command is not started, load nf_conntrack_netlink on the host (modprobe nf_conntrack_netlink)",
			       strerror(e));
	return cs_fail(err, CS_EXIT_OSERR, "flushing the conntrack table failed (%s); the command is not started", strerror(e));
}

int conntrack_flush(struct mnl_socket *nl, struct cs_error *err)
{
	char buf[8192];  /* an ACK or an error: one small message */
	struct nlmsghdr *nlh;
	struct nfgenmsg *nfg;
	unsigned int seq = (unsigned int)time(NULL), portid;
	ssize_t n;
	int rc = 0, e = 0;

	portid = mnl_socket_get_portid(nl);
	/* IPCTNL_MSG_CT_DELETE without a tuple deletes every entry; version 0
	 * with AF_UNSPEC means every family (IPv4 and IPv6). */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		rc = -1;
		e = errno;
	}
	/* One answer: the ACK (an error message with error 0) or the error. */
	while (rc == 0) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -1;
			e = errno;
			break;
		}
		rc = mnl_cb_run(buf, (size_t)n, seq, portid, NULL, NULL);
		if (rc < 0)
			e = errno;
		if (rc <= 0)
			break;
		rc = 0;  /* MNL_CB_OK without the ACK yet: read on */
	}
	return rc < 0 ? failed(err, e) : 0;
}
