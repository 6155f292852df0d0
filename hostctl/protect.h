/* What host tools execute is read-only in the sandbox (issue 31;
 * docs/host-script.md, "What the sandbox protects on the host").
 *
 * The workspace and the CLI's state folder are the person's own folders,
 * mounted read-write with their uid: what the agent writes there, the
 * person's own tools read later (git runs core.fsmonitor and hooks, an
 * editor runs .vscode/tasks.json, claude runs settings.json's hooks).  So
 * each such path gets a read-only bind mount over it; an absent one gets a
 * placeholder made here (an empty file or folder) so that it cannot be
 * created either; every folder that holds a protected path is made a mount
 * point itself (bound onto itself), so that it cannot be renamed away and
 * replaced (rename(2) of a mount point fails with EBUSY).  Placeholders are
 * made only on a real run and stay after it (the runner's protect_cleanup
 * says why).  A link on the way stops the run: the engine would mount its
 * target. */
#ifndef CLI_SANDBOX_HOSTCTL_PROTECT_H
#define CLI_SANDBOX_HOSTCTL_PROTECT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"
#include "hostctl/private_dir.h"

struct protect_in {
	const char *ws;           /* the workspace's canonical path, mounted at /workspace */
	const char *state;        /* the CLI's state folder on the host */
	const char *state_ct;     /* where the sandbox sees it: /home/node/CLI_DIR */
	const char *own_base;     /* the sandbox's own copies: CLI_SANDBOX_HOME/sandbox-own */
	const char *tmp;          /* TMPDIR, else /tmp: the run's private directories */
	const char *cli;          /* the CLI's name */
	const char *cli_protect;  /* its row's items (base/cli_names.h): "KIND REL;..." */
	bool dry_run;             /* make nothing; private directories shown as PREFIX.RANDOM */
	bool root;                /* run as root: no write test; what is made for the sandbox is sb's */
	unsigned sb_uid, sb_gid;  /* the sandbox user's host identity */
	private_dir_random_fn rnd;  /* NULL: the kernel's */
};

/* One line each, in the order the run adds them:
 *   mount=HOST:CONTAINER[:ro]   an engine -v value
 *   env=NAME=VALUE              an engine -e value (git's excludes file)
 *   made=KIND PATH              what this run made: D a private directory
 *                               (removed at the run's end), else a placeholder */
struct protect_out {
	char **lines;
	size_t n, cap;
};

/* Plans and (unless dry_run) makes the placeholders, the own copies and the
 * excludes file.  0, or -1 with err (CS_EXIT_CONFIG: the path and the fix);
 * on failure the private directories it made are removed again. */
int protect_plan(const struct protect_in *in, struct protect_out *out, struct cs_error *err);
void protect_out_free(struct protect_out *out);

#endif
