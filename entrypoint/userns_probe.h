/* Can the command build the sandbox codex's bundled bubblewrap builds?
 *
 * Run after the privilege drop (and after any seccomp filter the init
 * installs), in a throwaway child with the command's identity: it tries what
 * bwrap does for codex's workspace-write sandbox (docs/cli-wiring.md) and
 * reports the first step that failed.  Podman's default seccomp allows it;
 * Docker's default profile, and the init's own filter unless
 * CLI_SANDBOX_ALLOW_USERNS=true, deny the user namespace. */
#ifndef CLI_SANDBOX_USERNS_PROBE_H
#define CLI_SANDBOX_USERNS_PROBE_H

#include <stdbool.h>

struct userns_probe {
	bool ok;
	char evidence[160];  /* "user+mount+pid+net+ipc namespaces, id maps, tmpfs, read-only bind" or "unshare(...): <errno text>" */
};

/* Never fails: any trouble (fork, timeout) is a negative result with its
 * reason.  Takes at most about two seconds. */
void userns_probe_run(struct userns_probe *out);

#endif
