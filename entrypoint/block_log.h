/* The block log: PID 1 tells operators and the command what the firewall
 * refused.  docs/block-log.md has the whole design.
 *
 * The refusing rules send a rate-limited copy of each refused packet's
 * headers to NFLOG group NF_LOG_GROUP.  Before the privilege drop this
 * stage binds that group (CAP_NET_ADMIN) and creates BLOCK_LOG_PATH;
 * afterwards the supervisor's loop reads the group (no capability needed)
 * and writes one line per refused flow to that file and to stderr. */
#ifndef CLI_SANDBOX_BLOCK_LOG_H
#define CLI_SANDBOX_BLOCK_LOG_H

#include "entrypoint/pipeline.h"

#define BLOCK_LOG_DIR "/run/cli-sandbox"
#define BLOCK_LOG_NAME "blocked.log"
#define BLOCK_LOG_PATH BLOCK_LOG_DIR "/" BLOCK_LOG_NAME
#define BLOCK_LOG_MAX_BYTES (1024 * 1024)  /* then the file starts over */

/* The stage: only as PID 1 with a firewall.  It never fails and never
 * waits: whatever goes wrong (no nfnetlink_log, the group taken, a
 * read-only /run) is one warning, and the start goes on with the same
 * firewall.  Returns 0, so it sits in main's chain of stages. */
int block_log_open(const struct pipeline *pl);

#endif
