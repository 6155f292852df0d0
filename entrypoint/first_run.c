#include "entrypoint/first_run.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/status.h"

/* claude remembers an approved key by its last 20 characters (its mU()). */
#define CLAUDE_KEY_TAIL 20
/* A state file larger than this is not something to rewrite blindly. */
#define STATE_FILE_MAX (64L << 20)
#define KEY_MAX 4096

const char *cli_state_dir(const char *cli, const char *home, char *dir, size_t len)
{
	const char *var = NULL, *sub = NULL;

	if (!cli)
		return NULL;
	if (strcmp(cli, "claude") == 0)
		var = "CLAUDE_CONFIG_DIR", sub = ".claude";
	else if (strcmp(cli, "codex") == 0)
		var = "CODEX_HOME", sub = ".codex";
	if (!var)
		return NULL;
	snprintf(dir, len, "%s/%s", strcmp(home, "/") == 0 ? "" : home, sub);
	return var;
}

/* Reads dir/name as a JSON object: a new empty one (mode 0600) when the
 * file does not exist.  A symlink, anything but a regular file, or a file
 * that is not a JSON object is left alone (-1, why in what). */
static int read_object(int dirfd, const char *path, const char *name, json_t **root,
		       mode_t *mode, char *what, size_t len)
{
	struct stat st;
	json_error_t jerr;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	*root = NULL;
	if (fd < 0 && errno == ENOENT) {
		*mode = 0600;
		*root = json_object();
		return *root ? 0 : (snprintf(what, len, "out of memory"), -1);
	}
	if (fd < 0) {
		snprintf(what, len, "%s/%s cannot be opened (%s)", path, name,
			 errno == ELOOP ? "it is a symlink" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > STATE_FILE_MAX) {
		snprintf(what, len, "%s/%s is not a regular file of at most %ld bytes", path, name, STATE_FILE_MAX);
		close(fd);
		return -1;
	}
	*root = json_loadfd(fd, 0, &jerr);
	close(fd);
	if (!*root || !json_is_object(*root)) {
		snprintf(what, len, "%s/%s is not a JSON object (%s)", path, name, *root ? "other JSON" : jerr.text);
		json_decref(*root);
		*root = NULL;
		return -1;
	}
	*mode = st.st_mode & 0777;
	return 0;
}

/* Writes root to dir/name through a temporary file in the same folder, so
 * the CLI never reads half a file: renamed over the old one, or, with
 * create_only, linked into place only while no file has that name. */
static int write_object(int dirfd, const char *path, const char *name, json_t *root, mode_t mode,
			bool create_only, char *what, size_t len)
{
	char tmp[128];
	int fd, rc;

	snprintf(tmp, sizeof(tmp), "%s.cli-sandbox-%ld", name, (long)getpid());
	unlinkat(dirfd, tmp, 0);  /* our own name, left by a start that was killed */
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		snprintf(what, len, "%s is not writable (%s)", path, strerror(errno));
		return -1;
	}
	rc = fchmod(fd, mode) || json_dumpfd(root, fd, JSON_INDENT(2)) || write(fd, "\n", 1) != 1 || fsync(fd);
	rc = close(fd) || rc;
	if (!rc)
		rc = create_only ? linkat(dirfd, tmp, dirfd, name, 0) : renameat(dirfd, tmp, dirfd, name);
	if (rc) {
		snprintf(what, len, "%s/%s cannot be written (%s)", path, name, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	if (create_only)
		unlinkat(dirfd, tmp, 0);
	return 0;
}

static int open_dir(const char *path, char *what, size_t len)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		snprintf(what, len, "%s cannot be opened (%s)", path, strerror(errno));
	return fd;
}

static bool array_has(json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

/* Adds tail to responses.approved unless either list holds it: a key the
 * person rejected stays rejected. */
static int approve_key(json_t *root, const char *tail, bool *changed)
{
	json_t *resp = json_object_get(root, "customApiKeyResponses");
	json_t *approved, *rejected;

	if (!resp) {
		resp = json_object();
		if (!resp || json_object_set_new(root, "customApiKeyResponses", resp))
			return -1;
	}
	if (!json_is_object(resp))
		return 0;  /* not the shape claude writes: leave it */
	approved = json_object_get(resp, "approved");
	rejected = json_object_get(resp, "rejected");
	if ((approved && !json_is_array(approved)) || (rejected && json_is_array(rejected) && array_has(rejected, tail)))
		return 0;
	if (!approved) {
		approved = json_array();
		if (!approved || json_object_set_new(resp, "approved", approved))
			return -1;
	}
	if (array_has(approved, tail))
		return 0;
	if (json_array_append_new(approved, json_string(tail)))
		return -1;
	*changed = true;
	return 0;
}

enum first_run_result first_run_claude(const char *dir, const char *api_key, char *what, size_t len)
{
	static const char name[] = ".claude.json";
	bool changed = false, onboarded = false, approved = false;
	enum first_run_result res = FIRST_RUN_LEFT_ALONE;
	json_t *root = NULL;
	mode_t mode;
	int dirfd = open_dir(dir, what, len);

	if (dirfd < 0)
		return FIRST_RUN_LEFT_ALONE;
	/* claude prefers a legacy .config.json when there is one: not ours to touch. */
	if (faccessat(dirfd, ".config.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		snprintf(what, len, "%s holds a legacy .config.json", dir);
		goto out;
	}
	if (read_object(dirfd, dir, name, &root, &mode, what, len))
		goto out;
	if (!json_object_get(root, "hasCompletedOnboarding")) {
		if (json_object_set_new(root, "hasCompletedOnboarding", json_true()))
			goto oom;
		changed = onboarded = true;
	}
	if (api_key && api_key[0]) {
		size_t n = strlen(api_key);

		if (approve_key(root, api_key + (n > CLAUDE_KEY_TAIL ? n - CLAUDE_KEY_TAIL : 0), &approved))
			goto oom;
		changed = changed || approved;
	}
	if (!changed) {
		res = FIRST_RUN_UNCHANGED;
		goto out;
	}
	if (write_object(dirfd, dir, name, root, mode, false, what, len))
		goto out;
	snprintf(what, len, "%s%s%s in %s/%s", onboarded ? "marked claude's onboarding complete" : "",
		 onboarded && approved ? " and " : "", approved ? "approved the given ANTHROPIC_API_KEY" : "",
		 dir, name);
	res = FIRST_RUN_WRITTEN;
	goto out;
oom:
	snprintf(what, len, "out of memory");
out:
	json_decref(root);
	close(dirfd);
	return res;
}

enum first_run_result first_run_codex(const char *dir, const char *api_key, char *what, size_t len)
{
	static const char name[] = "auth.json";
	enum first_run_result res = FIRST_RUN_LEFT_ALONE;
	json_t *root;
	int dirfd;

	if (faccessat(AT_FDCWD, dir, F_OK, 0) == 0) {
		dirfd = open_dir(dir, what, len);
		if (dirfd < 0)
			return res;
	} else {
		snprintf(what, len, "%s does not exist", dir);
		return res;
	}
	/* Any auth.json, a symlink or a broken one included, is a login of its own. */
	if (faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) {
		close(dirfd);
		return FIRST_RUN_UNCHANGED;
	}
	root = json_pack("{s:s, s:s}", "auth_mode", "apikey", "OPENAI_API_KEY", api_key);
	if (!root)
		snprintf(what, len, "the key is not valid UTF-8");
	else if (write_object(dirfd, dir, name, root, 0600, true, what, len) == 0) {
		snprintf(what, len, "wrote codex's API-key login (the given key) to %s/%s", dir, name);
		res = FIRST_RUN_WRITTEN;
	} else if (errno == EEXIST) {
		res = FIRST_RUN_UNCHANGED;  /* written meanwhile by someone else: theirs */
	}
	json_decref(root);
	close(dirfd);
	return res;
}

/* The key the CLI uses: the first of names that is set and not empty. */
static const char *key_of(char *const env[], const char *a, const char *b)
{
	const char *v = env_lookup(env, a);

	if ((!v || !v[0]) && b)
		v = env_lookup(env, b);
	return v && v[0] && strlen(v) < KEY_MAX ? v : NULL;
}

void first_run_prepare(const char *cli, bool wired, char *const env[])
{
	const char *var, *dir, *home = env_lookup(env, "HOME");
	char what[PATH_MAX + 256] = "", fallback[PATH_MAX];
	enum first_run_result res = FIRST_RUN_UNCHANGED;

	if (!cli || !home || !(var = cli_state_dir(cli, home, fallback, sizeof(fallback))))
		return;
	dir = env_lookup(env, var);
	if (!dir || !dir[0])
		dir = fallback;
	if (mkdir(dir, 0700) == 0)
		cs_info("created %s (%s) for %s's state", dir, var, cli);
	else if (errno != EEXIST)
		cs_warn("cannot create %s=%s (%s): %s will not keep its state; mount a folder writable by uid %u there",
			var, dir, strerror(errno), cli, (unsigned)getuid());
	if (!wired || !isatty(STDIN_FILENO))
		return;  /* no person at a terminal: no first-run screen to get past */
	if (strcmp(cli, "claude") == 0) {
		const char *key = key_of(env, "ANTHROPIC_API_KEY", NULL);

		/* A custom OAuth URL changes the file's name: that set-up is the operator's. */
		if ((key || key_of(env, "ANTHROPIC_AUTH_TOKEN", NULL)) && !env_lookup(env, "CLAUDE_CODE_CUSTOM_OAUTH_URL"))
			res = first_run_claude(dir, key, what, sizeof(what));
	} else {
		const char *key = key_of(env, "OPENAI_API_KEY", "CODEX_API_KEY");

		if (key)
			res = first_run_codex(dir, key, what, sizeof(what));
	}
	if (res == FIRST_RUN_WRITTEN)
		cs_info("first run through the gateway: %s", what);
	else if (res == FIRST_RUN_LEFT_ALONE)
		cs_warn("%s's first-run state left alone: %s; its first-run screens may not work through the gateway",
			cli, what);
}

const char *first_run_describe(const char *cli, bool wired)
{
	if (!cli || !wired)
		return NULL;
	if (strcmp(cli, "claude") == 0)
		return "on a terminal with ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN: adds hasCompletedOnboarding and the key's approval to $CLAUDE_CONFIG_DIR/.claude.json when absent";
	if (strcmp(cli, "codex") == 0)
		return "on a terminal with OPENAI_API_KEY or CODEX_API_KEY: writes an API-key login to $CODEX_HOME/auth.json when there is none";
	return NULL;
}
