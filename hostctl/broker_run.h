/* The key broker's container (docs/broker.md): its run command, with the
 * confinement every broker gets, and the wait until it listens.  Shared by
 * cli-sandbox-ctl broker (the tests' way in) and session (a run's). */
#ifndef CLI_SANDBOX_HOSTCTL_BROKER_RUN_H
#define CLI_SANDBOX_HOSTCTL_BROKER_RUN_H

#include <stdbool.h>

#include "hostctl/engine_cmd.h"

#define BROKER_PORT 8080

/* Appends "run -d --name NAME", the confinement, DIR's mount, then extra[]
 * (the caller's words, which come after and so win), then IMAGE.  vol holds
 * the mount's word and must outlive c. */
void broker_run_cmd(struct engine_cmd *c, const char *name, const char *image, const char *dir, char *const extra[],
		    int nextra, char *vol, int vollen);
/* True once nginx listens on 8080 in NAME (10 s at most; false at once when NAME stops). */
bool broker_listens(const char *engine, const char *name);

#endif
