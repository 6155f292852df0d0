/* How the init points each CLI at the gateway, and what it never overrides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entrypoint/clis/operator.h"
#include "entrypoint/command.h"

#define PENDING "sandbox_mode=\"<decided at start by a user-namespace probe>\""
#include "check.h"

static const char *added(const struct command *p, const char *name)
{
	for (size_t i = 0; i < p->n_added; i++)
		if (strcmp(p->added[i].name, name) == 0)
			return p->added[i].value;
	return NULL;
}

static char *joined(const struct command *p)
{
	static char buf[8192];

	buf[0] = '\0';
	for (char **a = p->argv; *a; a++) {
		strcat(buf, *a);
		strcat(buf, a[1] ? " " : "");
	}
	return buf;
}

static struct cs_config cfg(enum cs_profile profile, const char *url)
{
	struct cs_config c = { .profile = profile };
	struct cs_error err;

	if (url)
		c.has_url = model_url_parse(url, profile == CS_PROFILE_INTERACTIVE, &c.url, &err) == 0;
	return c;
}

int main(void)
{
	struct cs_user user = { .name = "node", .uid = 1000, .gid = 1000, .home = "/home/node" };
	struct cs_config managed = cfg(CS_PROFILE_MANAGED, "http://192.0.2.10:8080/v1");
	struct cs_config inter = cfg(CS_PROFILE_INTERACTIVE, "https://gw.example.com");
	char *no_env[] = { NULL };
	char *operator_env[] = { "ANTHROPIC_BASE_URL=http://192.0.2.99:1", "DISABLE_TELEMETRY=0", NULL };
	char ext[] = "/tmp/pi-extXXXXXX";
	struct command p;
	struct cs_error err;
	int fd = mkstemp(ext);

	CHECK(fd >= 0, "temp extension file");
	close(fd);

	/* Default command is claude; identity and gateway added; managed is quiet. */
	CHECK(command_build(&managed, &user, no_env, NULL, ext, &p, &err) == 0, "claude: %s", err.msg);
	CHECK_STR(joined(&p), "claude --permission-mode bypassPermissions --settings {\"skipDangerousModePermissionPrompt\":true}");
	CHECK(p.cli && strcmp(p.cli->name, "claude") == 0, "recognised");
	CHECK(added(&p, "HOME") && strcmp(added(&p, "HOME"), "/home/node") == 0, "HOME");
	CHECK(added(&p, "USER") && strcmp(added(&p, "USER"), "node") == 0, "USER");
	CHECK(added(&p, "LOGNAME") && strcmp(added(&p, "LOGNAME"), "node") == 0, "LOGNAME");
	CHECK(added(&p, "ANTHROPIC_BASE_URL") && strcmp(added(&p, "ANTHROPIC_BASE_URL"), "http://192.0.2.10:8080/v1") == 0, "base url");
	CHECK(added(&p, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC") != NULL, "quiet");
	command_free(&p);

	/* Recognised by basename; the operator's own values are kept. */
	{
		char *argv[] = { "/usr/local/bin/claude", "-p", "hi", NULL };
		char **env;

		CHECK(command_build(&managed, &user, operator_env, argv, ext, &p, &err) == 0, "claude path");
		CHECK(added(&p, "ANTHROPIC_BASE_URL") == NULL, "operator's base URL kept");
		CHECK(added(&p, "DISABLE_TELEMETRY") == NULL, "operator's telemetry choice kept");
		CHECK_STR(joined(&p), "/usr/local/bin/claude --permission-mode bypassPermissions --settings {\"skipDangerousModePermissionPrompt\":true} -p hi");
		env = command_environ(&p, operator_env);
		CHECK(env && strcmp(env[0], "ANTHROPIC_BASE_URL=http://192.0.2.99:1") == 0, "environ keeps it");
		command_environ_free(env);
		command_free(&p);
	}

	/* codex: config arguments, since 0.171 reads no base-URL variable. */
	{
		char *argv[] = { "codex", "exec", "say pong", NULL };

		CHECK(command_build(&managed, &user, no_env, argv, ext, &p, &err) == 0, "codex");
		CHECK_STR(joined(&p), "codex -c openai_base_url=\"http://192.0.2.10:8080/v1\" -c analytics.enabled=false "
			  "-c features.plugins=false -c check_for_update_on_startup=false -c feedback.enabled=false "
			  "-c approval_policy=\"never\" -c " PENDING " exec say pong");
		/* after the drop: the probe's answer replaces the placeholder */
		CHECK(command_decide_sandbox(&p, &(struct userns_probe){ .ok = true, .evidence = "fine" }, &err) == 0, "decided");
		CHECK(strstr(joined(&p), "-c sandbox_mode=\"workspace-write\" exec say pong") != NULL, "probe ok: %s", joined(&p));
		CHECK(strstr(p.sandbox, "workspace-write") && strstr(p.sandbox, "fine"), "decision recorded: %s", p.sandbox);
		command_free(&p);
		CHECK(command_build(&managed, &user, no_env, argv, ext, &p, &err) == 0, "codex");
		CHECK(command_decide_sandbox(&p, &(struct userns_probe){ .ok = false, .evidence = "unshare: EPERM" }, &err) == 0, "decided");
		CHECK(strstr(joined(&p), "-c sandbox_mode=\"danger-full-access\" exec say pong") != NULL, "probe failed: %s", joined(&p));
		CHECK(strstr(p.sandbox, "unshare: EPERM") != NULL, "evidence recorded: %s", p.sandbox);
		command_free(&p);
	}
	{
		char *argv[] = { "codex", "-c", "openai_base_url=\"http://192.0.2.7\"", "exec", NULL };

		CHECK(command_build(&inter, &user, no_env, argv, ext, &p, &err) == 0, "codex operator");
		CHECK_STR(joined(&p), "codex -c " PENDING " -c openai_base_url=\"http://192.0.2.7\" exec");
		/* interactive, probe ok: codex keeps its own default sandbox and prompts */
		CHECK(command_decide_sandbox(&p, &(struct userns_probe){ .ok = true, .evidence = "fine" }, &err) == 0, "decided");
		CHECK_STR(joined(&p), "codex -c openai_base_url=\"http://192.0.2.7\" exec");
		command_free(&p);
		CHECK(command_build(&inter, &user, no_env, argv, ext, &p, &err) == 0, "codex operator");
		CHECK(command_decide_sandbox(&p, &(struct userns_probe){ .ok = false, .evidence = "no" }, &err) == 0, "decided");
		CHECK_STR(joined(&p), "codex -c sandbox_mode=\"danger-full-access\" -c openai_base_url=\"http://192.0.2.7\" exec");
		command_free(&p);
	}
	/* The operator's own choices win: flags, -c keys, config files. */
	{
		char *a1[] = { "claude", "--permission-mode=plan", "-p", "x", NULL };
		char *a2[] = { "claude", "-p", "explain --settings and --permission-mode", NULL };
		char *a3[] = { "codex", "-s", "read-only", "-a", "on-request", "exec", "x", NULL };
		char *a4[] = { "codex", "-c", "sandbox_mode=\"workspace-write\"", "exec", "x", NULL };
		char dir[] = "/tmp/autonomy-XXXXXX", f[64], cfgdir[96], codexhome[96];
		FILE *fp;

		CHECK(command_build(&managed, &user, no_env, a1, ext, &p, &err) == 0, "claude plan");
		CHECK_STR(joined(&p), "claude --permission-mode=plan -p x");
		CHECK(strstr(p.autonomy, "--permission-mode is kept") != NULL, "said: %s", p.autonomy);
		command_free(&p);
		CHECK(command_build(&managed, &user, no_env, a2, ext, &p, &err) == 0, "claude prompt");
		CHECK(strstr(joined(&p), "claude --permission-mode bypassPermissions") == joined(&p), "a prompt is no flag");
		command_free(&p);
		/* The operator's sandbox needs user namespaces, which the default
		 * filter denies: 78 with the option and the fix, never a codex that
		 * runs nothing (issue 20, item 8). */
		CHECK(command_build(&managed, &user, no_env, a3, ext, &p, &err) == -1 && err.status == CS_EXIT_CONFIG &&
		      strstr(err.msg, "the operator's -s") && strstr(err.msg, "read-only") &&
		      strstr(err.msg, "CLI_SANDBOX_ALLOW_USERNS=true"), "codex -s read-only refused: %s", err.msg);
		command_free(&p);
		CHECK(command_build(&managed, &user, no_env, a4, ext, &p, &err) == -1 && err.status == CS_EXIT_CONFIG &&
		      strstr(err.msg, "-c sandbox_mode") && strstr(err.msg, "workspace-write"), "codex -c sandbox_mode refused: %s", err.msg);
		command_free(&p);
		{
			char *afm[] = { "codex", "--approve-for-me", "exec", "x", NULL };
			char *dfa[] = { "codex", "--sandbox=danger-full-access", "exec", "x", NULL };
			char *yolo[] = { "codex", "--yolo", "-s", "workspace-write", "exec", "x", NULL };
			struct cs_config userns = managed;

			CHECK(command_build(&inter, &user, no_env, afm, ext, &p, &err) == -1 && err.status == CS_EXIT_CONFIG &&
			      strstr(err.msg, "--approve-for-me") && strstr(err.msg, "workspace-write"),
			      "--approve-for-me refused in both profiles: %s", err.msg);
			command_free(&p);
			CHECK(command_build(&managed, &user, no_env, dfa, ext, &p, &err) == 0 && p.sandbox_arg == -1 &&
			      !command_wants_probe(&p) && strstr(p.sandbox, "codex sandbox: danger-full-access, the operator's --sandbox (no probe"),
			      "-s danger-full-access kept, no probe: %s", p.sandbox);
			command_free(&p);
			CHECK(command_build(&managed, &user, no_env, yolo, ext, &p, &err) == 0 && !command_wants_probe(&p) &&
			      strstr(p.sandbox, "danger-full-access, the operator's --yolo"), "--yolo wins over -s: %s", p.sandbox);
			command_free(&p);
			/* CLI_SANDBOX_ALLOW_USERNS=true: planned, and the probe decides at start */
			userns.allow_userns = true;
			CHECK(command_build(&userns, &user, no_env, afm, ext, &p, &err) == 0 && command_wants_probe(&p) &&
			      p.sandbox_arg == -1 && !strstr(joined(&p), "sandbox_mode"), "--approve-for-me with userns: %s", joined(&p));
			CHECK(command_decide_sandbox(&p, &(struct userns_probe){ .ok = true, .evidence = "fine" }, &err) == 0 &&
			      strstr(p.sandbox, "codex sandbox: workspace-write, the operator's --approve-for-me (user-namespace probe passed: fine)"),
			      "the start line tells the truth: %s", p.sandbox);
			command_free(&p);
			CHECK(command_build(&userns, &user, no_env, a3, ext, &p, &err) == 0 && command_wants_probe(&p), "-s with userns");
			CHECK(command_decide_sandbox(&p, &(struct userns_probe){ .ok = false, .evidence = "unshare(user): EPERM" }, &err) == -1 &&
			      err.status == CS_EXIT_CONFIG && strstr(err.msg, "unshare(user): EPERM") && strstr(err.msg, "-s"),
			      "probe failed under the operator's sandbox: 78 with the reason: %s", err.msg);
			command_free(&p);
		}
		CHECK(mkdtemp(dir) != NULL, "temp dir");
		snprintf(f, sizeof(f), "%s/settings.json", dir);
		fp = fopen(f, "w");
		fputs("{\n  \"permissions\": {\"defaultMode\": \"acceptEdits\"}\n}\n", fp);
		fclose(fp);
		snprintf(cfgdir, sizeof(cfgdir), "CLAUDE_CONFIG_DIR=%s", dir);
		{
			char *env[] = { cfgdir, NULL };

			CHECK(command_build(&managed, &user, env, a2, ext, &p, &err) == 0, "claude settings");
			CHECK(strstr(joined(&p), "bypassPermissions") == NULL, "settings' defaultMode kept: %s", joined(&p));
			command_free(&p);
		}
		unlink(f);
		snprintf(f, sizeof(f), "%s/config.toml", dir);
		fp = fopen(f, "w");
		fputs("model = \"x\"\n[profiles.ci]\n  approval_policy = \"on-request\"\n", fp);
		fclose(fp);
		snprintf(codexhome, sizeof(codexhome), "CODEX_HOME=%s", dir);
		{
			char *env[] = { codexhome, NULL };
			char *a[] = { "codex", "exec", "x", NULL };

			CHECK(command_build(&managed, &user, env, a, ext, &p, &err) == 0, "codex config");
			CHECK(strstr(joined(&p), "approval_policy") == NULL && p.sandbox_arg >= 0,
			      "config.toml approval kept, sandbox still probed: %s", joined(&p));
			command_free(&p);
		}
		CHECK(cli_config_has_key(f, "approval_policy", true), "toml key found");
		CHECK(!cli_config_has_key(f, "sandbox_mode", true), "absent toml key");
		CHECK(!cli_config_has_key("/nonexistent/x.toml", "model", true), "missing file");
		unlink(f);
		rmdir(dir);
	}

	/* claude: the attribution line off for any server but Anthropic's own
	 * API (it would defeat a local server's prefix cache); the operator's
	 * own value wins. */
	{
		char *argv[] = { "claude", "-p", "x", NULL };
		char *own[] = { "CLAUDE_CODE_ATTRIBUTION_HEADER=1", NULL };
		struct cs_config anthropic = cfg(CS_PROFILE_INTERACTIVE, "https://api.anthropic.com");
		struct cs_config none = cfg(CS_PROFILE_MANAGED, NULL);

		CHECK(command_build(&managed, &user, no_env, argv, ext, &p, &err) == 0, "claude managed");
		CHECK(added(&p, "CLAUDE_CODE_ATTRIBUTION_HEADER") && strcmp(added(&p, "CLAUDE_CODE_ATTRIBUTION_HEADER"), "0") == 0,
		      "managed URL: attribution header off");
		command_free(&p);
		CHECK(command_build(&inter, &user, no_env, argv, ext, &p, &err) == 0, "claude interactive");
		CHECK(added(&p, "CLAUDE_CODE_ATTRIBUTION_HEADER") != NULL, "another DNS host: attribution header off");
		command_free(&p);
		CHECK(anthropic.has_url, "api.anthropic.com parses as a URL");
		CHECK(command_build(&anthropic, &user, no_env, argv, ext, &p, &err) == 0, "claude anthropic");
		CHECK(added(&p, "CLAUDE_CODE_ATTRIBUTION_HEADER") == NULL, "Anthropic's own API: left as it is");
		command_free(&p);
		CHECK(command_build(&none, &user, no_env, argv, ext, &p, &err) == 0, "claude no URL");
		CHECK(added(&p, "CLAUDE_CODE_ATTRIBUTION_HEADER") == NULL, "no URL: nothing set");
		command_free(&p);
		CHECK(command_build(&managed, &user, own, argv, ext, &p, &err) == 0, "claude own");
		CHECK(added(&p, "CLAUDE_CODE_ATTRIBUTION_HEADER") == NULL, "the operator's value wins");
		command_free(&p);
	}

	/* codex: exec reads only CODEX_API_KEY, so it gets OPENAI_API_KEY's
	 * value; the plan holds the name of the source, never the value. */
	{
		char *argv[] = { "codex", "exec", "x", NULL };
		char *key_env[] = { "OPENAI_API_KEY=sk-test-value-42", NULL };
		char *both_env[] = { "OPENAI_API_KEY=sk-test-value-42", "CODEX_API_KEY=sk-own", NULL };
		struct cs_config none = cfg(CS_PROFILE_INTERACTIVE, NULL);
		char **env;
		int found = 0;

		CHECK(command_build(&managed, &user, key_env, argv, ext, &p, &err) == 0, "codex key");
		for (size_t i = 0; i < p.n_added; i++)
			if (strcmp(p.added[i].name, "CODEX_API_KEY") == 0) {
				found++;
				CHECK(p.added[i].copy_of && strcmp(p.added[i].copy_of, "OPENAI_API_KEY") == 0, "a copy of OPENAI_API_KEY");
				CHECK(strstr(p.added[i].value, "sk-test") == NULL, "the plan does not hold the value");
			}
		CHECK(found == 1, "CODEX_API_KEY planned once (%d)", found);
		CHECK(command_env_value(&p, key_env, "CODEX_API_KEY") &&
		      strcmp(command_env_value(&p, key_env, "CODEX_API_KEY"), "sk-test-value-42") == 0, "the value the command sees");
		env = command_environ(&p, key_env);
		found = 0;
		for (char **e = env; e && *e; e++)
			found += strcmp(*e, "CODEX_API_KEY=sk-test-value-42") == 0;
		CHECK(found == 1, "the command's environment has CODEX_API_KEY with the key");
		command_environ_free(env);
		command_free(&p);
		CHECK(command_build(&none, &user, key_env, argv, ext, &p, &err) == 0, "codex key, no URL");
		CHECK(command_env_value(&p, key_env, "CODEX_API_KEY") != NULL, "without a URL too");
		command_free(&p);
		CHECK(command_build(&managed, &user, both_env, argv, ext, &p, &err) == 0, "codex both keys");
		CHECK(command_env_value(&p, both_env, "CODEX_API_KEY") &&
		      strcmp(command_env_value(&p, both_env, "CODEX_API_KEY"), "sk-own") == 0, "the operator's CODEX_API_KEY wins");
		env = command_environ(&p, both_env);
		found = 0;
		for (char **e = env; e && *e; e++)
			found += strncmp(*e, "CODEX_API_KEY=", 14) == 0;
		CHECK(found == 1, "the operator's CODEX_API_KEY is kept, once");
		command_environ_free(env);
		command_free(&p);
		CHECK(command_build(&managed, &user, no_env, argv, ext, &p, &err) == 0, "codex no key");
		CHECK(command_env_value(&p, no_env, "CODEX_API_KEY") == NULL, "no key: nothing added");
		command_free(&p);
	}

	/* pi: the extension and both provider variables; interactive is not quieted. */
	{
		char *argv[] = { "pi", "-p", "say pong", NULL };

		CHECK(command_build(&inter, &user, no_env, argv, ext, &p, &err) == 0, "pi");
		CHECK(strncmp(joined(&p), "pi -e /tmp/pi-ext", 17) == 0, "pi extension inserted: %s", joined(&p));
		CHECK(added(&p, "ANTHROPIC_BASE_URL") && added(&p, "OPENAI_BASE_URL"), "both providers");
		CHECK(added(&p, "PI_OFFLINE") == NULL, "interactive leaves pi's own traffic alone");
		command_free(&p);
		CHECK(command_build(&managed, &user, no_env, argv, "/nonexistent/ext.js", &p, &err) == 0, "pi no ext");
		CHECK_STR(joined(&p), "pi -p say pong");
		CHECK(added(&p, "PI_OFFLINE") && strcmp(added(&p, "PI_OFFLINE"), "1") == 0, "managed pi quiet");
		command_free(&p);
	}

	/* Any other command: identity only. */
	{
		char *argv[] = { "bash", "-l", NULL };
		struct cs_user anon = { .uid = 4242, .gid = 4242, .home = "/" };

		CHECK(command_build(&managed, &anon, no_env, argv, ext, &p, &err) == 0, "bash");
		CHECK(p.cli == NULL && p.n_added == 3, "no wiring for bash");
		CHECK(added(&p, "USER") && strcmp(added(&p, "USER"), "4242") == 0, "uid as USER without passwd entry");
		command_free(&p);
	}
	{
		char *argv[] = { "", NULL };

		CHECK(command_build(&managed, &user, no_env, argv, ext, &p, &err) == -1 &&
		      err.status == CS_EXIT_CONFIG, "empty command refused");
	}
	unlink(ext);
	return check_done("test_command");
}
