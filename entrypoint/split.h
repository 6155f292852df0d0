/* The Kubernetes split (README, "Kubernetes"): every container of a pod
 * shares one network namespace, so an init container programs the firewall
 * and the agent container runs with no privilege at all.
 *
 *   --firewall-only  the init container: the start's firewall, the same
 *                    configuration, ruleset and digest, its start line; then
 *                    the process ends (exit 0) without running a command.
 *   --verify-only    the agent container's entrypoint: proves it holds
 *                    nothing and that the firewall is there by how it
 *                    behaves; main() then launches the command. */
#ifndef CLI_SANDBOX_SPLIT_H
#define CLI_SANDBOX_SPLIT_H

#include "base/status.h"
#include "entrypoint/pipeline.h"

/* Programs and verifies the ruleset and logs the start line; 78 when there
 * is no firewall to program (SKIP_EGRESS_FIREWALL=true), 71 when the kernel
 * refuses it. */
int split_firewall_only(struct pipeline *pl, struct cs_error *err);

/* The managed profile only (78 otherwise): no privilege held (78, see
 * caps/holds_none.h), then the egress self-check (71, see
 * netfilter/egress_probe.h), then one line saying what was proven. */
int split_verify_only(const struct pipeline *pl, const char *resolv_conf, struct cs_error *err);

#endif
