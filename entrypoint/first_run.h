/* What each CLI keeps between runs, and what its first run needs when the
 * init points it at a gateway.
 *
 * State: claude keeps everything, its .claude.json included, in
 * CLAUDE_CONFIG_DIR, and codex in CODEX_HOME.  The init sets them to ~/.claude
 * and ~/.codex, the folders the host script mounts, unless the operator set
 * them.  pi keeps its state in ~/.pi/agent already.
 *
 * First run: pointed at a gateway, with the key in the environment and a
 * person at the terminal, three first-run screens cannot work or lead nowhere:
 * claude's onboarding (it checks api.anthropic.com, not the gateway), its "use
 * this API key?" question (the recommended answer leaves it logged out), and
 * codex's sign-in screen (its TUI ignores OPENAI_API_KEY until an API-key
 * login exists).  first_run_prepare() writes what those CLIs write themselves
 * once a person has got through them, and never replaces what is there.
 * docs/cli-wiring.md has the evidence. */
#ifndef CLI_SANDBOX_FIRST_RUN_H
#define CLI_SANDBOX_FIRST_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* The variable that names CLI's state folder, with that folder for a user
 * whose home is HOME written to dir; NULL when the CLI needs none (pi, any
 * other command). */
const char *cli_state_dir(const char *cli, const char *home, char *dir, size_t len);

/* The result of one file's preparation; what[] says what was done, or why it
 * was left alone. */
enum first_run_result { FIRST_RUN_UNCHANGED, FIRST_RUN_WRITTEN, FIRST_RUN_LEFT_ALONE };

/* claude: in DIR/.claude.json, hasCompletedOnboarding=true when the key is
 * absent, and, with api_key, the key's approval (its last 20 characters in
 * customApiKeyResponses.approved) unless it is approved or rejected already.
 * Every other value stays as it is.  api_key NULL: a token, nothing to approve. */
enum first_run_result first_run_claude(const char *dir, const char *api_key, char *what, size_t len);

/* codex: DIR/auth.json holding an API-key login, the file `codex login
 * --with-api-key` writes; only when DIR has no auth.json at all. */
enum first_run_result first_run_codex(const char *dir, const char *api_key, char *what, size_t len);

/* Called after the privilege drop, as the user, just before the command:
 * creates the CLI's state folder when it is missing (codex refuses to start
 * without it), and, when the CLI is wired at the gateway (wired) and stdin is
 * a terminal, prepares its first run.  Only ever warns. */
void first_run_prepare(const char *cli, bool wired, char *const env[]);

/* One line for the dry-run plan: what a start does for CLI's first run, or
 * NULL when nothing. */
const char *first_run_describe(const char *cli, bool wired);

#endif
