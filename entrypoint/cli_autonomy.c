#include "entrypoint/cli_autonomy.h"

#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX_BYTES (1 << 20)  /* larger config files are not read (and count as silent) */

/* claude: the mode, and the setting that skips the "Bypass Permissions mode"
 * dialog a TUI start would otherwise stop at (flag settings count for it). */
#define CLAUDE_MODE "bypassPermissions"
#define CLAUDE_SETTINGS "{\"skipDangerousModePermissionPrompt\":true}"
#define CLAUDE_MANAGED_SETTINGS "/etc/claude-code/managed-settings.json"
/* Placeholder of codex's sandbox value until the probe ran: not a valid
 * mode, so a start that skipped the decision would stop codex, not run it
 * with a wrong sandbox. */
#define SANDBOX_PENDING "sandbox_mode=\"<decided at start by a user-namespace probe>\""

static const char *const codex_system_configs[] = { "/etc/codex/config.toml", "/etc/codex/managed_config.toml" };

bool cli_config_has_key(const char *path, const char *key, bool toml)
{
	size_t klen = strlen(key), n = 0;
	struct stat st;
	bool found = false;
	char *buf;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX_BYTES ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return false;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *q = p;

		while (*q == ' ' || *q == '\t')
			q++;
		if (toml) {
			/* key = ..., also with a quoted key */
			if (*q == '"')
				q++;
			if (strncmp(q, key, klen) == 0) {
				q += klen;
				q += *q == '"';
				while (*q == ' ' || *q == '\t')
					q++;
				found = *q == '=';
			}
		} else {
			/* "key" anywhere on the line: JSON has no other use for it */
			char quoted[80];

			snprintf(quoted, sizeof(quoted), "\"%s\"", key);
			char *e = strchr(p, '\n');
			char save = e ? *e : '\0';

			if (e)
				*e = '\0';
			found = strstr(p, quoted) != NULL;
			if (e)
				*e = save;
		}
		if (found)
			break;
	}
	free(buf);
	return found;
}

/* An option given by the operator: "--name", "--name=…", and for a
 * one-letter "-x" also "-xVALUE". */
static bool has_option(char *const argv[], const char *name)
{
	size_t len = strlen(name);

	for (char *const *a = argv + 1; *a; a++) {
		if (strcmp(*a, "--") == 0)
			return false;
		if (strncmp(*a, name, len) == 0 &&
		    ((*a)[len] == '\0' || (*a)[len] == '=' || (name[1] != '-' && len == 2)))
			return true;
	}
	return false;
}

/* codex -c KEY=… / --config KEY=… / -cKEY=… / --config=KEY=… */
static bool has_codex_config(char *const argv[], const char *key)
{
	size_t klen = strlen(key);

	for (char *const *a = argv + 1; *a; a++) {
		const char *v = NULL;

		if ((strcmp(*a, "-c") == 0 || strcmp(*a, "--config") == 0) && a[1])
			v = a[1];
		else if (strncmp(*a, "--config=", 9) == 0)
			v = *a + 9;
		else if (strncmp(*a, "-c", 2) == 0 && (*a)[2] != '\0')
			v = *a + 2;
		if (v) {
			while (*v == ' ')
				v++;
			if (strncmp(v, key, klen) == 0 && (v[klen] == '=' || v[klen] == ' '))
				return true;
		}
	}
	return false;
}

static void note(struct command *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct command *plan, const char *fmt, ...)
{
	size_t used = strlen(plan->autonomy);
	va_list ap;

	if (used && used + 2 < sizeof(plan->autonomy)) {
		memcpy(plan->autonomy + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(plan->autonomy + used, sizeof(plan->autonomy) - used, fmt, ap);
	va_end(ap);
}

/* Where the command's own config lives: DIR from the variable the command
 * sees, else HOME/DEFAULT, then FILE. */
static void config_path(char *out, size_t len, const struct command *plan, char *const envp[],
			const char *var, const char *home, const char *dflt, const char *file)
{
	const char *dir = command_env_value(plan, envp, var);

	if (dir && dir[0])
		snprintf(out, len, "%s/%s", dir, file);
	else
		snprintf(out, len, "%s/%s/%s", home, dflt, file);
}

static int wire_claude(const struct cs_config *cfg, char *const envp[], char *const argv[],
		       const struct cs_user *user, struct command *plan, struct cs_error *err)
{
	static const char *const flags[] = { "--permission-mode", "--dangerously-skip-permissions",
					     "--allow-dangerously-skip-permissions", "--settings" };
	char path[PATH_MAX + 32];

	if (cfg->profile != CS_PROFILE_MANAGED) {
		note(plan, "claude keeps its own approval prompts (interactive)");
		return 0;
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (has_option(argv, flags[i])) {
			note(plan, "claude: the operator's %s is kept, no permission mode set", flags[i]);
			return 0;
		}
	config_path(path, sizeof(path), plan, envp, "CLAUDE_CONFIG_DIR", user->home, ".claude", "settings.json");
	if (cli_config_has_key(path, "defaultMode", false) ||
	    cli_config_has_key(CLAUDE_MANAGED_SETTINGS, "defaultMode", false) ||
	    cli_config_has_key(CLAUDE_MANAGED_SETTINGS, "disableBypassPermissionsMode", false)) {
		note(plan, "claude: the operator's settings choose the permission mode (%s or %s), none set", path,
		     CLAUDE_MANAGED_SETTINGS);
		return 0;
	}
	if (command_insert_arg(plan, "--permission-mode", NULL, err) ||
	    command_insert_arg(plan, CLAUDE_MODE, NULL, err) ||
	    command_insert_arg(plan, "--settings", NULL, err) ||
	    command_insert_arg(plan, CLAUDE_SETTINGS, NULL, err))
		return -1;
	note(plan, "claude: --permission-mode %s --settings %s (runs its model's commands without asking)",
	     CLAUDE_MODE, CLAUDE_SETTINGS);
	return 0;
}

/* The operator's choice of key in argv or a config file, or NULL. */
static const char *codex_choice(char *const argv[], const char *key, const char *const opts[],
				const char *user_config, char *buf, size_t len)
{
	for (const char *const *o = opts; *o; o++)
		if (has_option(argv, *o)) {
			snprintf(buf, len, "the operator's %s", *o);
			return buf;
		}
	if (has_codex_config(argv, key)) {
		snprintf(buf, len, "the operator's -c %s", key);
		return buf;
	}
	if (cli_config_has_key(user_config, key, true)) {
		snprintf(buf, len, "%s in %s", key, user_config);
		return buf;
	}
	for (size_t i = 0; i < sizeof(codex_system_configs) / sizeof(codex_system_configs[0]); i++)
		if (cli_config_has_key(codex_system_configs[i], key, true)) {
			snprintf(buf, len, "%s in %s", key, codex_system_configs[i]);
			return buf;
		}
	return NULL;
}

static int wire_codex(const struct cs_config *cfg, char *const envp[], char *const argv[],
		      const struct cs_user *user, struct command *plan, struct cs_error *err)
{
	static const char *const approval_opts[] = { "-a", "--ask-for-approval", "--approve-for-me",
						     "--dangerously-bypass-approvals-and-sandbox", "--full-auto", "--yolo", NULL };
	static const char *const sandbox_opts[] = { "-s", "--sandbox", "--dangerously-bypass-approvals-and-sandbox",
						    "--full-auto", "--yolo", NULL };
	char config[PATH_MAX + 32], why[PATH_MAX + 64];
	const char *kept;

	config_path(config, sizeof(config), plan, envp, "CODEX_HOME", user->home, ".codex", "config.toml");
	if (cfg->profile != CS_PROFILE_MANAGED) {
		note(plan, "codex keeps its own approval prompts (interactive)");
	} else if ((kept = codex_choice(argv, "approval_policy", approval_opts, config, why, sizeof(why)))) {
		note(plan, "codex: approvals left to %s", kept);
	} else {
		if (command_insert_arg(plan, "-c", NULL, err) ||
		    command_insert_arg(plan, "approval_policy=\"never\"", NULL, err))
			return -1;
		note(plan, "codex: -c approval_policy=\"never\" (runs its model's commands without asking)");
	}
	if ((kept = codex_choice(argv, "sandbox_mode", sandbox_opts, config, why, sizeof(why)))) {
		note(plan, "codex: sandbox left to %s", kept);
		snprintf(plan->sandbox, sizeof(plan->sandbox), "codex sandbox: %s (no probe)", kept);
		return 0;
	}
	if (command_insert_arg(plan, "-c", NULL, err) || command_insert_arg(plan, SANDBOX_PENDING, NULL, err))
		return -1;
	plan->sandbox_arg = (int)plan->n_inserted - 1;
	plan->sandbox_default_on_ok = cfg->profile != CS_PROFILE_MANAGED;
	note(plan, "codex: sandbox_mode decided at start by a user-namespace probe after the drop "
	     "(%s if it works, danger-full-access if not)",
	     plan->sandbox_default_on_ok ? "codex's own default" : "workspace-write");
	return 0;
}

int cli_autonomy_wire(const struct cs_config *cfg, const char *cli, char *const envp[],
		      char *const argv[], const struct cs_user *user, struct command *plan,
		      struct cs_error *err)
{
	if (strcmp(cli, "claude") == 0)
		return wire_claude(cfg, envp, argv, user, plan, err);
	if (strcmp(cli, "codex") == 0)
		return wire_codex(cfg, envp, argv, user, plan, err);
	if (cfg->profile == CS_PROFILE_MANAGED)
		note(plan, "pi runs its model's commands as it is (it has no approval step)");
	else
		note(plan, "pi as it is");
	return 0;
}

/* Takes "-c" and the placeholder out of argv: codex keeps its default. */
static void drop_sandbox_args(struct command *plan)
{
	char *value = plan->inserted[plan->sandbox_arg];
	size_t k = 0, n = 0;

	while (plan->argv[n])
		n++;
	while (k < n && plan->argv[k] != value)
		k++;
	if (k == n || k < 1)
		return;
	/* argv[k - 1] is the "-c": move the rest, NULL included, two down */
	memmove(&plan->argv[k - 1], &plan->argv[k + 1], (n - k) * sizeof(plan->argv[0]));
}

void cli_autonomy_decide_sandbox(struct command *plan, const struct userns_probe *probe)
{
	const char *mode;

	if (plan->sandbox_arg < 0)
		return;
	if (probe->ok && plan->sandbox_default_on_ok) {
		drop_sandbox_args(plan);
		mode = "codex's own default";
	} else {
		mode = probe->ok ? "workspace-write" : "danger-full-access";
		snprintf(plan->inserted[plan->sandbox_arg], sizeof(plan->inserted[0]), "sandbox_mode=\"%s\"", mode);
	}
	snprintf(plan->sandbox, sizeof(plan->sandbox), "codex sandbox: %s (user-namespace probe %s: %s)", mode,
		 probe->ok ? "passed" : "failed", probe->evidence);
	plan->sandbox_arg = -1;
}
