/* No flow from before the firewall survives it.
 *
 * The ruleset accepts packets of established connections, judged by
 * conntrack.  A connection opened before the firewall (by a launcher that
 * leaked its descriptor, or anything else in the namespace) already has an
 * entry, so its packets would pass as "established" although the policy
 * never allowed it.  Flushing the namespace's conntrack table right after the
 * ruleset is committed makes every later packet of such a flow "new", and
 * the ruleset judges it like any other new connection.  Needs CAP_NET_ADMIN
 * and the kernel's ctnetlink (nf_conntrack_netlink); without either the start
 * fails closed (71). */
#ifndef CLI_SANDBOX_CONNTRACK_FLUSH_H
#define CLI_SANDBOX_CONNTRACK_FLUSH_H

#include <libmnl/libmnl.h>

#include "base/status.h"

/* Deletes every conntrack entry of the current network namespace, over an
 * open NETLINK_NETFILTER socket with nothing left to read on it (the
 * firewall's own, which saves opening another). */
int conntrack_flush(struct mnl_socket *nl, struct cs_error *err);

#endif
