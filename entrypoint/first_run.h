/* What each CLI keeps between runs, and what its first run needs when the
 * init points it at a gateway.
 *
 * State: a CLI's row (entrypoint/clis/cli.h) names the variable of its state
 * folder and the folder's place under HOME (claude: CLAUDE_CONFIG_DIR,
 * ~/.claude; codex: CODEX_HOME, ~/.codex), the folders the host script
 * mounts; the init sets the variable unless the operator set it.  pi keeps
 * its state in ~/.pi/agent already.
 *
 * First run: pointed at a gateway, with the key in the environment and a
 * person at the terminal, some first-run screens cannot work or lead nowhere
 * (claude's onboarding and its "use this API key?" question, codex's sign-in
 * screen).  The row's first_run writes what the CLI writes itself once a
 * person has got through them, and never replaces what is there.
 * docs/cli-wiring.md has the evidence. */
#ifndef CLI_SANDBOX_FIRST_RUN_H
#define CLI_SANDBOX_FIRST_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "entrypoint/clis/cli.h"

/* The variable that names CLI's state folder, with that folder for a user
 * whose home is HOME written to dir; NULL when the CLI needs none (pi) or
 * cli is NULL (any other command). */
const char *cli_state_dir(const struct cli *cli, const char *home, char *dir, size_t len);

/* Called after the privilege drop, as the user, just before the command:
 * creates the CLI's state folder when it is missing (codex refuses to start
 * without it), and, when the CLI is wired at the gateway (wired) and stdin is
 * a terminal, prepares its first run.  Only ever warns. */
void first_run_prepare(const struct cli *cli, bool wired, char *const env[]);

/* One line for the dry-run plan: what a start does for CLI's first run, or
 * NULL when nothing. */
const char *first_run_describe(const struct cli *cli, bool wired);

#endif
