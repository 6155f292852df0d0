/* The protection's walk (hostctl/protect.h) and the private directories
 * (hostctl/private_dir.h) in a folder of the test's own: a dry run makes
 * nothing and shows RANDOM; a real run makes the placeholders and the
 * excludes file; a link stops it, and what it had made of its private
 * directories goes again; a name taken five times over stops it, saying
 * so.  tests/host/protect.sh holds the same through the runner. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hostctl/private_dir.h"
#include "hostctl/protect.h"

static char root[1024], ws[4096], state[4096], tmp[4096], own[4096];

static int same_bytes(unsigned char *buf, size_t n)
{
	memset(buf, 0xab, n);
	return 0;
}

static int no_random(unsigned char *buf, size_t n)
{
	(void)buf;
	(void)n;
	return -1;
}

/* The line PREFIX PATH SUFFIX is among the walk's. */
static bool has_line(const struct protect_out *o, const char *prefix, const char *path, const char *suffix)
{
	char want[8192];

	snprintf(want, sizeof(want), "%s%s%s", prefix, path, suffix);
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->lines[i], want) == 0)
			return true;
	return false;
}

static int count_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

static bool exists(const char *dir, const char *rel)
{
	char p[8192];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return lstat(p, &st) == 0;
}

static void mk(const char *dir, const char *rel)
{
	char p[8192];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	if (mkdir(p, 0755) != 0)
		perror(p);
}

static struct protect_in input(bool dry)
{
	struct protect_in in = {
		.ws = ws, .state = state, .state_ct = "/home/node/.claude", .own_base = own, .tmp = tmp,
		.cli = "claude", .cli_protect = "j settings.json;d commands", .dry_run = dry, .root = false,
		.sb_uid = 1000, .sb_gid = 1000,
	};

	return in;
}

int main(void)
{
	struct protect_out out = { .lines = NULL };
	struct cs_error err;
	struct protect_in in;
	char dir[4096], link[8192];
	int rc, before;

	snprintf(root, sizeof(root), "%s/cs-protect-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return 1;
	snprintf(ws, sizeof(ws), "%s/ws", root);
	snprintf(state, sizeof(state), "%s/state", root);
	snprintf(tmp, sizeof(tmp), "%s/tmp", root);
	snprintf(own, sizeof(own), "%s/own", root);
	mkdir(ws, 0755);
	mkdir(state, 0700);
	mkdir(tmp, 0700);
	mk(ws, ".git");
	mk(ws, ".git/hooks");

	/* private directories */
	CHECK(private_dir(tmp, "cli-sandbox-x", dir, sizeof(dir), same_bytes, &err) == 0, "a private directory is made");
	CHECK(strcmp(dir + strlen(tmp), "/cli-sandbox-x.abababababababab") == 0, "... named PREFIX and 16 hex digits: %s",
	      dir);
	{
		struct stat st;

		CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "... mode 700");
	}
	CHECK(private_dir(tmp, "cli-sandbox-x", dir, sizeof(dir), same_bytes, &err) == -1 &&
		      strstr(err.msg, "5 random names tried"),
	      "a name taken five times over stops it, saying so");
	CHECK(private_dir(tmp, "cli-sandbox-y", dir, sizeof(dir), no_random, &err) == -1 &&
		      strstr(err.msg, "random source"),
	      "no random source: refused, not a guessable name");

	/* a dry run */
	in = input(true);
	rc = protect_plan(&in, &out, &err);
	CHECK(rc == 0, "a dry run plans: %s", err.msg);
	CHECK(has_line(&out, "mount=", ws, "/.git:/workspace/.git"), "the git directory bound onto itself, read-write");
	CHECK(has_line(&out, "mount=", ws, "/.git/hooks:/workspace/.git/hooks:ro"), "its hooks read-only");
	CHECK(has_line(&out, "mount=", ws, "/.git/commondir:/workspace/.git/commondir:ro"), "commondir read-only, absent");
	CHECK(has_line(&out, "mount=", ws, "/.claude:/workspace/.claude"), "a folder above a protected path: a mount point");
	CHECK(has_line(&out, "mount=", state, "/settings.json:/home/node/.claude/settings.json:ro"),
	      "the CLI's row: its settings read-only");
	CHECK(has_line(&out, "mount=", tmp, "/cli-sandbox-protect.RANDOM/exclude:/run/cli-sandbox-protect/exclude:ro"),
	      "the excludes' mount, its random part RANDOM");
	CHECK(has_line(&out, "", "env=GIT_CONFIG_VALUE_0=/run/cli-sandbox-protect/exclude", ""), "git inside reads it");
	CHECK(!exists(ws, ".envrc") && !exists(ws, ".git/config") && !exists(state, "settings.json") &&
		      count_prefix(tmp, "cli-sandbox-protect.") == 0,
	      "... and it made nothing");
	protect_out_free(&out);

	/* a real run */
	in = input(false);
	rc = protect_plan(&in, &out, &err);
	CHECK(rc == 0, "a real run: %s", err.msg);
	CHECK(exists(ws, ".envrc") && exists(ws, ".git/config") && exists(ws, ".idea") && exists(state, "commands"),
	      "the placeholders are made");
	CHECK(has_line(&out, "made=f ", ws, "/.envrc") && has_line(&out, "made=c ", ws, "/.git/commondir"),
	      "... and named as made");
	CHECK(count_prefix(tmp, "cli-sandbox-protect.") == 1, "the excludes' private directory is made");
	{
		char ex[8192], text[4096] = "";
		FILE *f;

		for (size_t i = 0; i < out.n; i++)
			if (strncmp(out.lines[i], "made=D ", 7) == 0)
				snprintf(ex, sizeof(ex), "%s/exclude", out.lines[i] + 7);
		f = fopen(ex, "r");
		if (f) {
			text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
			fclose(f);
		}
		CHECK(strstr(text, "/.envrc\n") && strstr(text, "/.claude/settings.json\n") && !strstr(text, "/.vscode"),
		      "... holding the file placeholders, not the folders: %s", text);
	}
	protect_out_free(&out);

	/* a link on the way stops the run, after its own copy of .opencode was made: that goes */
	/* (the run above made .opencode's placeholder, and its own copy, which the runner removes) */
	before = count_prefix(tmp, "cli-sandbox-own.");
	snprintf(link, sizeof(link), "%s/.opencode/plugin.js", ws);
	fclose(fopen(link, "w"));
	snprintf(link, sizeof(link), "%s/settings.json", state);
	unlink(link);
	if (symlink("/etc/passwd", link) != 0)
		perror(link);
	rc = protect_plan(&in, &out, &err);
	CHECK(rc == -1 && strstr(err.msg, "settings.json is a symbolic link"), "a link stops the run, naming it: %s",
	      err.msg);
	CHECK(before == 1 && count_prefix(tmp, "cli-sandbox-own.") == before,
	      "... and the private directory it had made is gone");
	protect_out_free(&out);

	{
		char cmd[8192];

		/* root is mkdtemp's: no quote, space or other shell character in it */
		snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return check_done("test_hostctl_protect");
}
