/* The resolver's confinement, after its sockets are open and bound:
 * its own uid and gid (no supplementary groups), CAP_NET_ADMIN alone in
 * the effective and permitted sets (nfnetlink checks it on every batch),
 * an empty bounding set where CAP_SETPCAP allows, no_new_privs, and a
 * seccomp allowlist of what the poll loop calls (anything else kills the
 * process: lookups then fail closed).  Every step is read back from the
 * kernel (/proc/self/status, PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP). */
#ifndef CLI_SANDBOX_RESOLVER_CONFINE_H
#define CLI_SANDBOX_RESOLVER_CONFINE_H

#include <sys/types.h>

#include "base/status.h"

/* uid/gid: the resolver's identity R when started as root; when started
 * as a non-root uid already, they must be that uid and gid.  0, or -1 with
 * err (71). */
int resolver_confine(uid_t uid, gid_t gid, struct cs_error *err);

#endif
