/* The CLIs' state folders and their first run through a gateway: what is
 * written, and that nothing the operator or an earlier run wrote is replaced. */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "entrypoint/command.h"
#include "entrypoint/first_run.h"
#include "check.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	CHECK(f != NULL, "create %s", p);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static json_t *load(const char *name)
{
	char p[256];
	json_error_t e;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return json_load_file(p, 0, &e);
}

static int mode_of(const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) ? -1 : (int)(st.st_mode & 07777);
}

static void clear(void)
{
	static const char *names[] = { ".claude.json", "auth.json", ".config.json", "target", NULL };
	char p[256];

	for (const char **n = names; *n; n++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *n);
		unlink(p);
	}
}

static const char *str_at(json_t *root, const char *obj, const char *arr, size_t i)
{
	json_t *a = json_object_get(json_object_get(root, obj), arr);

	return json_string_value(json_array_get(a, i));
}

static const char *added(const struct command *c, const char *name)
{
	for (size_t i = 0; i < c->n_added; i++)
		if (strcmp(c->added[i].name, name) == 0)
			return c->added[i].value;
	return NULL;
}

int main(void)
{
	char what[4096], buf[256];
	json_t *j;
	enum first_run_result r;

	snprintf(dir, sizeof(dir), "/tmp/cs-first-run-XXXXXX");
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");

	/* Where the state lives. */
	CHECK_STR(cli_state_dir(cli_find("claude"), "/home/node", buf, sizeof(buf)), "CLAUDE_CONFIG_DIR");
	CHECK_STR(buf, "/home/node/.claude");
	CHECK_STR(cli_state_dir(cli_find("codex"), "/home/node", buf, sizeof(buf)), "CODEX_HOME");
	CHECK_STR(buf, "/home/node/.codex");
	CHECK_STR(cli_state_dir(cli_find("codex"), "/", buf, sizeof(buf)), "CODEX_HOME");
	CHECK_STR(buf, "/.codex");
	CHECK(cli_state_dir(cli_find("pi"), "/home/node", buf, sizeof(buf)) == NULL, "pi keeps ~/.pi/agent itself");
	CHECK(cli_state_dir(cli_find("bash"), "/home/node", buf, sizeof(buf)) == NULL, "other commands: none");
	CHECK(cli_state_dir(NULL, "/home/node", buf, sizeof(buf)) == NULL, "no CLI: none");

	/* The command plan sets them, unless the operator did. */
	{
		struct cs_user user = { .name = "node", .uid = 1000, .gid = 1000, .home = "/home/node" };
		struct cs_config cfg = { .profile = CS_PROFILE_MANAGED };
		struct cs_error err;
		struct command c;
		char *claude[] = { "claude", NULL }, *codex[] = { "/usr/local/bin/codex", NULL }, *pi[] = { "pi", NULL };
		char *no_env[] = { NULL }, *own[] = { "CLAUDE_CONFIG_DIR=/srv/claude", NULL };

		CHECK(command_build(&cfg, &user, no_env, claude, "/nonexistent", &c, &err) == 0, "%s", err.msg);
		CHECK(added(&c, "CLAUDE_CONFIG_DIR") && strcmp(added(&c, "CLAUDE_CONFIG_DIR"), "/home/node/.claude") == 0, "claude's state dir");
		CHECK(!added(&c, "CODEX_HOME"), "claude gets no CODEX_HOME");
		command_free(&c);
		CHECK(command_build(&cfg, &user, own, claude, "/nonexistent", &c, &err) == 0, "%s", err.msg);
		CHECK(!added(&c, "CLAUDE_CONFIG_DIR"), "the operator's CLAUDE_CONFIG_DIR wins");
		command_free(&c);
		CHECK(command_build(&cfg, &user, no_env, codex, "/nonexistent", &c, &err) == 0, "%s", err.msg);
		CHECK(added(&c, "CODEX_HOME") && strcmp(added(&c, "CODEX_HOME"), "/home/node/.codex") == 0, "codex's state dir");
		command_free(&c);
		CHECK(command_build(&cfg, &user, no_env, pi, "/nonexistent", &c, &err) == 0, "%s", err.msg);
		CHECK(!added(&c, "CLAUDE_CONFIG_DIR") && !added(&c, "CODEX_HOME"), "pi: neither");
		command_free(&c);
	}

	/* claude, fresh folder: the onboarding mark and the key's last 20 characters. */
	r = first_run_claude(dir, "sk-ant-0123456789abcdefghijKLMNOPQRST", what, sizeof(what));
	CHECK(r == FIRST_RUN_WRITTEN, "fresh claude: %s", what);
	CHECK(strstr(what, "marked claude's onboarding complete and approved the given ANTHROPIC_API_KEY in ") != NULL,
	      "says both: %s", what);
	j = load(".claude.json");
	CHECK(j && json_is_true(json_object_get(j, "hasCompletedOnboarding")), "onboarding marked");
	CHECK(j && str_at(j, "customApiKeyResponses", "approved", 0) &&
	      strcmp(str_at(j, "customApiKeyResponses", "approved", 0), "abcdefghijKLMNOPQRST") == 0, "key tail approved");
	json_decref(j);
	CHECK(mode_of(".claude.json") == 0600, "new file is 0600 (got %o)", mode_of(".claude.json"));
	r = first_run_claude(dir, "sk-ant-0123456789abcdefghijKLMNOPQRST", what, sizeof(what));
	CHECK(r == FIRST_RUN_UNCHANGED, "second time: nothing to do");

	/* An earlier run's file keeps every value; a new key is added beside the old. */
	clear();
	put(".claude.json", "{\"firstStartTime\": \"x\", \"projects\": {\"/workspace\": {\"hasTrustDialogAccepted\": true}},"
			    " \"customApiKeyResponses\": {\"approved\": [\"old\"], \"rejected\": []}}");
	chmod((snprintf(buf, sizeof(buf), "%s/.claude.json", dir), buf), 0640);
	r = first_run_claude(dir, "short-key", what, sizeof(what));
	CHECK(r == FIRST_RUN_WRITTEN, "merge: %s", what);
	CHECK(strncmp(what, "marked claude's onboarding complete and approved", 48) == 0, "merge says both: %s", what);
	j = load(".claude.json");
	CHECK(j && strcmp(json_string_value(json_object_get(j, "firstStartTime")), "x") == 0, "other values kept");
	CHECK(j && json_is_true(json_object_get(json_object_get(json_object_get(j, "projects"), "/workspace"),
						"hasTrustDialogAccepted")), "nested values kept");
	CHECK(j && strcmp(str_at(j, "customApiKeyResponses", "approved", 0), "old") == 0 &&
	      strcmp(str_at(j, "customApiKeyResponses", "approved", 1), "short-key") == 0, "short key appended whole");
	json_decref(j);
	CHECK(mode_of(".claude.json") == 0640, "the file's mode is kept (got %o)", mode_of(".claude.json"));

	/* What a person or the operator decided stays: onboarding false, a rejected key. */
	clear();
	put(".claude.json", "{\"hasCompletedOnboarding\": false, \"customApiKeyResponses\": {\"rejected\": [\"no-thanks\"]}}");
	r = first_run_claude(dir, "no-thanks", what, sizeof(what));
	CHECK(r == FIRST_RUN_UNCHANGED, "decisions kept: %s", what);
	j = load(".claude.json");
	CHECK(j && json_is_false(json_object_get(j, "hasCompletedOnboarding")), "false stays false");
	CHECK(j && !json_object_get(json_object_get(j, "customApiKeyResponses"), "approved"), "rejected key not approved");
	json_decref(j);

	/* A token needs no approval: only the onboarding mark. */
	clear();
	r = first_run_claude(dir, NULL, what, sizeof(what));
	CHECK(r == FIRST_RUN_WRITTEN, "token: %s", what);
	CHECK(strstr(what, "approved") == NULL, "a token approves nothing: %s", what);
	j = load(".claude.json");
	CHECK(j && !json_object_get(j, "customApiKeyResponses"), "no key responses for a token");
	json_decref(j);

	/* Broken, foreign or symlinked files are left alone, untouched. */
	clear();
	put(".claude.json", "{not json");
	CHECK(first_run_claude(dir, "k", what, sizeof(what)) == FIRST_RUN_LEFT_ALONE, "invalid JSON left alone");
	CHECK(strstr(what, "not a JSON object") != NULL, "says why: %s", what);
	clear();
	put(".claude.json", "[1, 2]");
	CHECK(first_run_claude(dir, "k", what, sizeof(what)) == FIRST_RUN_LEFT_ALONE, "an array left alone");
	clear();
	put("target", "{}");
	CHECK(symlink("target", (snprintf(buf, sizeof(buf), "%s/.claude.json", dir), buf)) == 0, "symlink");
	CHECK(first_run_claude(dir, "k", what, sizeof(what)) == FIRST_RUN_LEFT_ALONE, "a symlink is never followed");
	CHECK(strstr(what, "symlink") != NULL, "says so: %s", what);
	j = load("target");
	CHECK(j && json_object_size(j) == 0, "the symlink's target is untouched");
	json_decref(j);
	clear();
	put(".config.json", "{}");
	CHECK(first_run_claude(dir, "k", what, sizeof(what)) == FIRST_RUN_LEFT_ALONE, "legacy .config.json: left alone");
	CHECK(mode_of(".claude.json") == -1, "and no .claude.json beside it");
	clear();

	/* codex: an API-key login, 0600, only when there is no auth.json at all. */
	r = first_run_codex(dir, "sk-\"quoted\\key", what, sizeof(what));
	CHECK(r == FIRST_RUN_WRITTEN, "fresh codex: %s", what);
	j = load("auth.json");
	CHECK(j && strcmp(json_string_value(json_object_get(j, "auth_mode")), "apikey") == 0, "auth_mode apikey");
	CHECK(j && strcmp(json_string_value(json_object_get(j, "OPENAI_API_KEY")), "sk-\"quoted\\key") == 0, "key escaped and kept");
	json_decref(j);
	CHECK(mode_of("auth.json") == 0600, "auth.json 0600 (got %o)", mode_of("auth.json"));
	CHECK(first_run_codex(dir, "another-key", what, sizeof(what)) == FIRST_RUN_UNCHANGED, "an existing login stays");
	j = load("auth.json");
	CHECK(j && strcmp(json_string_value(json_object_get(j, "OPENAI_API_KEY")), "sk-\"quoted\\key") == 0, "not replaced");
	json_decref(j);
	clear();
	put("target", "x");
	CHECK(symlink("target", (snprintf(buf, sizeof(buf), "%s/auth.json", dir), buf)) == 0, "symlink");
	CHECK(first_run_codex(dir, "k", what, sizeof(what)) == FIRST_RUN_UNCHANGED, "a symlinked auth.json is theirs");
	clear();
	CHECK(first_run_codex("/nonexistent-cs-dir", "k", what, sizeof(what)) == FIRST_RUN_LEFT_ALONE, "missing folder");

	/* No temporary file is ever left behind. */
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s)\"", dir);
		CHECK(system(cmd) == 0, "the folder is empty again");
	}

	/* The dry-run line exists exactly for the wired CLIs that need one. */
	CHECK(first_run_describe(cli_find("claude"), true) != NULL, "claude described");
	CHECK(first_run_describe(cli_find("codex"), true) != NULL, "codex described");
	CHECK(first_run_describe(cli_find("pi"), true) == NULL, "pi needs nothing");
	CHECK(first_run_describe(cli_find("claude"), false) == NULL, "not wired: nothing");
	rmdir(dir);
	return check_done("test_first_run");
}
