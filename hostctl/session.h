/* A run's sidecars (docs/broker.md, "In a run"): the key broker beside the
 * sandbox and, where the plan translates, the router behind it.  A session
 * is a private directory on memory, PRIV = BASE/cli-sandbox-session.XXXXXX
 * (cli-sandbox-session-up.XXXXXX for the broker 'up' keeps; its path is the
 * session's id), holding the broker's directory, the run's credentials file and the
 * file PRIV/session: what the session made, one KEY=VALUE a line, written
 * before (containers) or right after (networks) each is made, so that its
 * end removes exactly that, whoever calls it and whenever. */
#ifndef CLI_SANDBOX_HOSTCTL_SESSION_H
#define CLI_SANDBOX_HOSTCTL_SESSION_H

#include <stdbool.h>
#include <stddef.h>

/* Appends KEY=VALUE to PRIV/session (0600).  0, or -1 when it cannot. */
int session_note(const char *priv, const char *key, const char *value);
/* PRIV is a session's id: an absolute path named cli-sandbox-session.* or -up.*. */
bool session_id_ok(const char *priv);
/* The end: revokes the token, removes the containers (first the ones named
 * "first", given by the caller or recorded, then the router and the broker),
 * the networks (each tried a few times: an engine may still be detaching a
 * container), the router's secrets, the broker's directory and PRIV.
 * Idempotent: a session already ended (no PRIV) is a success.  extra[]:
 * containers to remove first (the sandbox).  Returns 0, or 1 when something
 * could not be removed (said on stderr). */
int session_end(const char *priv, char *const extra[], int nextra, bool with_recorded_first);
/* The guardian: a detached process that waits for the runner's death (and
 * for the start that made it, parent) and then ends the session.  Returns in
 * the caller at once. */
void session_guard(const char *priv, int runner_pid);
/* up's record FILE (0600): names the kept session PRIV. */
int session_record_write(const char *record, const char *priv);
/* The router 'up' keeps behind its broker, from up's record FILE: its container
 * and its address on the router's network, as the session noted them.  -1: no
 * record; 0: a kept session that translates nothing (no router); 1: ct and ip
 * set; 2: a record whose session is gone (stale: 'down' removes it). */
int session_up_router(const char *record, char *ct, size_t clen, char *ip, size_t ilen);
/* session join and session down (cli-sandbox-ctl session --help): exit statuses. */
int session_join(int argc, char **argv);
int session_down(const char *record);

#endif
