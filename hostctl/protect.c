/* The walk of protect.h: a port of the runner's protect.sh, path for path,
 * so that its mounts, placeholders and refusals stay what they were
 * (tests/host/protect.sh holds them), with the files made by open(2) with
 * O_EXCL|O_NOFOLLOW where the shell had noclobber. */
#include "hostctl/protect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "hostctl/spawn.h"

#define WS_CT "/workspace"
#define EXCLUDE_CT "/run/cli-sandbox-protect/exclude"
#define MODULES_DEPTH 16 /* find -maxdepth 16, as the script walked modules/ */

/* Workspace paths (relative to its top): f a file, j a JSON file ({}), d a
 * folder, the placeholder's kind; w a folder the CLI writes to start, which
 * gets the run's own copy.  Why each is here: docs/host-script.md. */
static const struct {
	char kind;
	const char *rel;
} ws_paths[] = {
	{ 'f', ".gitmodules" },	   { 'f', ".gitattributes" },	     { 'f', ".envrc" },
	{ 'j', ".mcp.json" },	   { 'j', ".claude/settings.json" }, { 'j', ".claude/settings.local.json" },
	{ 'd', ".claude/commands" }, { 'd', ".claude/agents" },      { 'd', ".claude/hooks" },
	{ 'd', ".claude/skills" }, { 'd', ".vscode" },		     { 'd', ".idea" },
	{ 'd', ".codex" },	   { 'd', ".gemini" },		     { 'd', ".pi" },
	{ 'w', ".opencode" },	   { 'j', "opencode.json" },	     { 'j', "opencode.jsonc" },
};

/* What git runs or reads as code in a git directory, and the placeholder's kind. */
static const struct {
	char kind;
	const char *name;
} gitdir_items[] = {
	{ 'f', "config" }, { 'd', "hooks" }, { 'd', "info" }, { 'f', "config.worktree" }, { 'd', "modules" },
};

struct mount {
	bool ro;
	char *host, *ct;
};

struct walk {
	const struct protect_in *in;
	struct protect_out *out;
	struct mount *mounts;
	size_t n_mounts, cap_mounts;
	char *exclude; /* "/REL\n" lines: the workspace's file placeholders, for git inside */
	size_t exclude_len;
	struct cs_error *err;
};

static int oom(struct walk *w)
{
	return cs_fail(w->err, CS_EXIT_OSERR, "out of memory: free some memory and run again");
}

static int add_line(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_line(struct walk *w, const char *fmt, ...)
{
	struct protect_out *o = w->out;
	va_list ap;
	char *line;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return oom(w);
	/* one line a value: a path with a line break would be read as two */
	if (strchr(line, '\n')) {
		free(line);
		return cs_fail(w->err, CS_EXIT_CONFIG,
			       "a path to protect holds a line break, which the run cannot pass on: rename it, or pass "
			       "--allow-host-writes");
	}
	if (grow_array((void **)&o->lines, &o->cap, o->n, sizeof(*o->lines), 32) != 0) {
		free(line);
		return oom(w);
	}
	o->lines[o->n++] = line;
	return 0;
}

static int join(struct walk *w, char *out, const char *a, const char *b)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", a, b);

	if (n < 0 || n >= PATH_MAX)
		return cs_fail(w->err, CS_EXIT_CONFIG, "the path %s/%s is too long to protect: use a shorter workspace path",
			       a, b);
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int check_link(struct walk *w, const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return cs_fail(w->err, CS_EXIT_CONFIG,
			       "%s is a symbolic link, which the sandbox cannot mount read-only (the engine would mount "
			       "what it points to): remove it or replace it with what it points to, or pass "
			       "--allow-host-writes",
			       path);
	return 0;
}

/* The mount, once: the first one for a container path wins. */
static int add_mount(struct walk *w, bool ro, const char *host, const char *ct)
{
	struct mount *m;

	for (size_t i = 0; i < w->n_mounts; i++)
		if (strcmp(w->mounts[i].ct, ct) == 0)
			return 0;
	if (grow_array((void **)&w->mounts, &w->cap_mounts, w->n_mounts, sizeof(*w->mounts), 32) != 0)
		return oom(w);
	m = &w->mounts[w->n_mounts];
	m->ro = ro;
	m->host = strdup(host);
	m->ct = strdup(ct);
	if (!m->host || !m->ct) {
		free(m->host);
		free(m->ct);
		return oom(w);
	}
	w->n_mounts++;
	return 0;
}

static int write_new_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	size_t len = strlen(text);
	int rc = 0;

	if (fd < 0)
		return -1;
	if (len && write(fd, text, len) != (ssize_t)len)
		rc = -1;
	if (close(fd) != 0)
		rc = -1;
	return rc;
}

/* The placeholder of KIND at path (a real run only): 1 made (or a dry run),
 * 0 where you may not write the folder (the sandbox user, who is you, or for
 * root uid 1000 in a folder of root's choosing, could not create it either:
 * nothing to mount), -1 failed. */
static int placeholder(struct walk *w, char kind, const char *path)
{
	char up[PATH_MAX];
	char *slash;
	int rc;

	/* the nearest folder that exists (a dry run makes none of those above) */
	snprintf(up, sizeof(up), "%s", path);
	if ((slash = strrchr(up, '/')))
		*slash = '\0';
	while (!exists(up) && (slash = strrchr(up, '/')) && slash != up)
		*slash = '\0';
	if (!w->in->root && access(up, W_OK) != 0)
		return 0;
	if (w->in->dry_run)
		return 1;
	switch (kind) {
	case 'd':
	case 'p':
		rc = mkdir(path, 0755);
		break;
	case 'f':
		rc = write_new_file(path, "", 0644);
		break;
	case 'j':
		rc = write_new_file(path, "{}\n", 0644);
		break;
	case 'c':
		rc = write_new_file(path, ".\n", 0644);
		break;
	default:
		/* 'r' (a git directory bound onto itself) is only asked of one found there */
		return 0;
	}
	if (rc != 0)
		return cs_fail(w->err, CS_EXIT_CONFIG,
			       "cannot create the placeholder %s (the sandbox mounts it read-only so that the agent cannot "
			       "create it): check that you can write its folder, or pass --allow-host-writes",
			       path);
	if (add_line(w, "made=%c %s", kind, path) != 0)
		return -1;
	/* a folder made to hold placeholders, run as root: the sandbox user's, so that the
	 * agent may still write other files in it, as it could before */
	if (kind == 'p' && w->in->root && lchown(path, w->in->sb_uid, w->in->sb_gid) != 0) {
		/* as before: the folder stays root's, the placeholders in it protected all the same */
	}
	return 1;
}

/* rel under the host folder host (mounted at ct): every folder above it
 * (below host) bound onto itself, rel itself read-only (kind 'r': a folder
 * bound read-write onto itself, a mount point so not renamed away), a
 * placeholder of kind where it is absent. */
static int protect_path(struct walk *w, const char *host, const char *ct, char kind, const char *rel)
{
	char path[PATH_MAX], ctpath[PATH_MAX], pre[PATH_MAX];
	const char *p = rel, *slash;
	struct stat st;
	int r;

	if (strpbrk(rel, "\n\t:"))
		return cs_fail(w->err, CS_EXIT_CONFIG,
			       "cannot protect '%s/%s': its name has a ':', a tab or a line break, which the engine's -v "
			       "option cannot mount; rename it, or pass --allow-host-writes",
			       host, rel);
	while ((slash = strchr(p, '/'))) {
		snprintf(pre, sizeof(pre), "%.*s", (int)(slash - rel), rel);
		p = slash + 1;
		if (join(w, path, host, pre) || join(w, ctpath, ct, pre) || check_link(w, path))
			return -1;
		if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode))
			/* a file where a folder would be: it can hold nothing, so it is kept as it is */
			return add_mount(w, true, path, ctpath);
		if (lstat(path, &st) != 0) {
			if ((r = placeholder(w, 'p', path)) <= 0)
				return r;
		}
		if (add_mount(w, false, path, ctpath))
			return -1;
	}
	if (join(w, path, host, rel) || join(w, ctpath, ct, rel) || check_link(w, path))
		return -1;
	if (lstat(path, &st) != 0 && (r = placeholder(w, kind, path)) <= 0)
		return r;
	return add_mount(w, kind != 'r', path, ctpath);
}

/* A file's whole text without its trailing line breaks (as $(cat F)); ""
 * when it cannot be read. */
static void read_text(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n = 0;

	out[0] = '\0';
	if (!f)
		return;
	n = fread(out, 1, len - 1, f);
	fclose(f);
	out[n] = '\0';
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = '\0';
}

/* The canonical folder a path names, when it is inside the workspace: its
 * part below it in rel.  false otherwise (outside, missing, not a folder). */
static bool inside_ws(struct walk *w, const char *path, char *rel, size_t len)
{
	char real[PATH_MAX];
	size_t n = strlen(w->in->ws);

	if (!realpath(path, real) || !is_dir(real))
		return false;
	if (strncmp(real, w->in->ws, n) != 0 || real[n] != '/' || real[n + 1] == '\0')
		return false;
	snprintf(rel, len, "%s", real + n + 1);
	return true;
}

/* The .git file of the checkout dir (relative to base, or absolute)
 * read-only, when it is inside the workspace: it names the git directory git
 * uses there; its .gitmodules and .gitattributes with it. */
static int protect_gitfile(struct walk *w, const char *base, const char *dir)
{
	char path[PATH_MAX], rel[PATH_MAX], item[PATH_MAX], file[PATH_MAX];
	struct stat st;
	static const char *const extras[] = { ".gitmodules", ".gitattributes" };

	if (dir[0] == '/')
		snprintf(path, sizeof(path), "%s", dir);
	else if (join(w, path, base, dir))
		return -1;
	if (!inside_ws(w, path, rel, sizeof(rel)))
		return 0;
	if (join(w, file, w->in->ws, rel) || join(w, path, file, ".git"))
		return -1;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (join(w, item, rel, ".git") || protect_path(w, w->in->ws, WS_CT, 'f', item))
		return -1;
	for (size_t i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		if (join(w, path, file, extras[i]))
			return -1;
		if (exists(path) && (join(w, item, rel, extras[i]) || protect_path(w, w->in->ws, WS_CT, 'f', item)))
			return -1;
	}
	return 0;
}

/* What git runs of the git directory rel (from the workspace's top). */
static int protect_gitdir_items(struct walk *w, const char *rel)
{
	char item[PATH_MAX];

	if (protect_path(w, w->in->ws, WS_CT, 'r', rel))
		return -1;
	for (size_t i = 0; i < sizeof(gitdir_items) / sizeof(gitdir_items[0]); i++)
		if (join(w, item, rel, gitdir_items[i].name) ||
		    protect_path(w, w->in->ws, WS_CT, gitdir_items[i].kind, item))
			return -1;
	return 0;
}

struct found {
	char **paths;
	size_t n, cap;
	bool failed;  /* out of memory: the caller stops the run rather than protect a part */
};

static void found_add(struct found *f, const char *path)
{
	char *copy = strdup(path);

	if (!copy || grow_array((void **)&f->paths, &f->cap, f->n, sizeof(*f->paths), 16) != 0) {
		free(copy);
		f->failed = true;
		return;
	}
	f->paths[f->n++] = copy;
}

static void found_free(struct found *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->paths[i]);
	free(f->paths);
	f->paths = NULL;
	f->n = f->cap = 0;
	f->failed = false;
}

/* The submodules' git directories below modules/: each folder with a HEAD
 * file, as find -mindepth 2 -maxdepth 16 found them, pruning what holds no
 * git directory (objects, refs, logs, hooks, info).  Collected before any is
 * protected: the placeholders made then would change the walk. */
static void find_heads(const char *dir, int depth, struct found *f)
{
	static const char *const pruned[] = { "objects", "refs", "logs", "hooks", "info" };
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && !f->failed) {
		char path[PATH_MAX];
		struct stat st;
		bool prune = false;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) || lstat(path, &st) != 0)
			continue;
		for (size_t i = 0; depth >= 2 && i < sizeof(pruned) / sizeof(pruned[0]); i++)
			prune = prune || strcmp(e->d_name, pruned[i]) == 0;
		if (prune)
			continue;
		if (depth >= 2 && S_ISREG(st.st_mode) && strcmp(e->d_name, "HEAD") == 0)
			found_add(f, dir);
		else if (S_ISDIR(st.st_mode) && depth < MODULES_DEPTH)
			find_heads(path, depth + 1, f);
	}
	closedir(d);
}

/* core.worktree in a git config file: the value of the first worktree line. */
static void config_worktree(const char *config, char *out, size_t len)
{
	char line[PATH_MAX + 64];
	FILE *f = fopen(config, "re");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *v, *end;

		if (strncmp(p, "worktree", 8) != 0)
			continue;
		p += 8;
		p += strspn(p, " \t");
		if (*p != '=')
			continue;
		v = p + 1 + strspn(p + 1, " ");
		end = v + strcspn(v, "=\n");
		while (*end == '=' && end > v && end[-1] == ' ')
			end--;
		snprintf(out, len, "%.*s", (int)(end - v), v);
		break;
	}
	fclose(f);
}

/* A git directory inside the workspace (rel from its top): what git runs
 * (config, hooks, info/attributes, config.worktree) read-only; commondir
 * read-only, or, where there is none, a placeholder saying "." (this
 * directory is the common one, as without it: an empty one would stop git);
 * modules/ read-only, so that no submodule's git directory can be planted for
 * a later `git submodule update --init`; the directory itself a mount point.
 * Then each submodule's git directory and each linked worktree's. */
static int protect_gitdir(struct walk *w, const char *rel)
{
	char gw[PATH_MAX], path[PATH_MAX], item[PATH_MAX], text[PATH_MAX];
	struct found f = { .paths = NULL };
	size_t n = strlen(w->in->ws);
	int rc = 0;

	if (join(w, gw, w->in->ws, rel) || protect_gitdir_items(w, rel) || join(w, item, rel, "commondir") ||
	    protect_path(w, w->in->ws, WS_CT, 'c', item) || join(w, path, gw, "modules"))
		return -1;
	if (is_dir(path))
		find_heads(path, 1, &f);
	if (f.failed)
		rc = oom(w);
	for (size_t i = 0; rc == 0 && i < f.n; i++) {
		const char *sub = f.paths[i] + n + 1;  /* below the workspace: the walk started there */

		if (protect_gitdir_items(w, sub) || join(w, path, f.paths[i], "commondir") ||
		    (exists(path) && (join(w, item, sub, "commondir") || protect_path(w, w->in->ws, WS_CT, 'f', item)))) {
			rc = -1;
			break;
		}
		/* its checkout's .git file (core.worktree in its config), when inside the workspace */
		if (join(w, path, f.paths[i], "config")) {
			rc = -1;
			break;
		}
		config_worktree(path, text, sizeof(text));
		if (text[0] && protect_gitfile(w, f.paths[i], text))
			rc = -1;
	}
	found_free(&f);
	if (rc || join(w, path, gw, "worktrees") || !is_dir(path))
		return rc ? -1 : 0;

	/* Linked worktrees: each one's folder a mount point (as a folder above what follows), its
	 * config.worktree and commondir read-only, and its checkout's .git file when inside the
	 * workspace (gitdir names it). */
	{
		DIR *d = opendir(path);
		struct dirent *e;

		while (d && (e = readdir(d)) && !f.failed) {
			char wtd[PATH_MAX];
			struct stat st;

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (snprintf(wtd, sizeof(wtd), "%s/%s", path, e->d_name) < (int)sizeof(wtd) &&
			    lstat(wtd, &st) == 0 && S_ISDIR(st.st_mode))
				found_add(&f, wtd);
		}
		if (d)
			closedir(d);
	}
	if (f.failed)
		rc = oom(w);
	for (size_t i = 0; rc == 0 && i < f.n; i++) {
		const char *wt = f.paths[i] + n + 1;
		size_t tl;

		if (join(w, item, wt, "config.worktree") || protect_path(w, w->in->ws, WS_CT, 'f', item) ||
		    join(w, path, f.paths[i], "commondir") ||
		    (exists(path) && (join(w, item, wt, "commondir") || protect_path(w, w->in->ws, WS_CT, 'f', item))) ||
		    join(w, path, f.paths[i], "gitdir")) {
			rc = -1;
			break;
		}
		read_text(path, text, sizeof(text));
		tl = strlen(text);
		if (tl >= 5 && strcmp(text + tl - 5, "/.git") == 0)
			text[tl - 5] = '\0';
		if (text[0] && protect_gitfile(w, f.paths[i], text))
			rc = -1;
	}
	found_free(&f);
	return rc;
}

/* The workspace's own .git: a folder is a git directory; a file (a linked
 * worktree, a submodule's checkout) is read-only, and the git directory it
 * names is protected when it is inside the workspace (outside, it is not
 * mounted at all), with its common directory; none (not a repository) gets
 * an empty read-only folder, so that the agent cannot make one. */
static int protect_git(struct walk *w)
{
	char dotgit[PATH_MAX], text[PATH_MAX], path[PATH_MAX], g[PATH_MAX], gabs[PATH_MAX], c[PATH_MAX];
	struct stat st;
	const char *l;

	if (join(w, dotgit, w->in->ws, ".git") || check_link(w, dotgit))
		return -1;
	if (is_dir(dotgit))
		return protect_gitdir(w, ".git");
	if (stat(dotgit, &st) != 0 || !S_ISREG(st.st_mode))
		return protect_path(w, w->in->ws, WS_CT, 'd', ".git");
	if (protect_path(w, w->in->ws, WS_CT, 'f', ".git"))
		return -1;
	read_text(dotgit, text, sizeof(text));
	text[strcspn(text, "\n")] = '\0';
	if (strncmp(text, "gitdir:", 7) != 0)
		return 0;
	l = text + 7 + strspn(text + 7, " ");
	if (!*l)
		return 0;
	if (l[0] == '/')
		snprintf(path, sizeof(path), "%s", l);
	else if (join(w, path, w->in->ws, l))
		return -1;
	if (!inside_ws(w, path, g, sizeof(g)) || join(w, gabs, w->in->ws, g))
		return 0;
	if (join(w, path, gabs, "commondir"))
		return -1;
	read_text(path, c, sizeof(c));
	if (protect_gitdir(w, g))
		return -1;
	if (!c[0])
		return 0;
	if (c[0] == '/')
		snprintf(path, sizeof(path), "%s", c);
	else if (join(w, path, gabs, c))
		return -1;
	if (inside_ws(w, path, c, sizeof(c)))
		return protect_gitdir(w, c);
	return 0;
}

static int mkdir_parents(struct walk *w, const char *file)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", file);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return cs_fail(w->err, CS_EXIT_CONFIG, "cannot create %s: check that you can write its folder", dir);
		*p = '/';
	}
	return 0;
}

/* The sandbox's own copy of yours (src) at own, made the first time. */
static int make_own_copy(struct walk *w, const char *src, const char *own, const char *rel)
{
	char buf[65536];
	int in, out;
	ssize_t n;
	bool trusted = false;
	int rc = 0;

	if (mkdir_parents(w, own))
		return -1;
	in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	out = open(own, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (in < 0 || out < 0) {
		rc = -1;
	} else {
		while ((n = read(in, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = '\0';
			trusted = trusted || strstr(buf, "[projects.\"/workspace\"]");
			if (write(out, buf, (size_t)n) != n) {
				rc = -1;
				break;
			}
		}
		if (n < 0)
			rc = -1;
		/* codex writes config.toml by renaming a new file over it, which a mount point
		 * refuses (EBUSY): its trust screen could never record the answer, and its TUI
		 * stopped there.  The copy says at once what that answer would have written:
		 * /workspace is trusted. */
		if (rc == 0 && strcmp(w->in->cli, "codex") == 0 && strcmp(rel, "config.toml") == 0 && !trusted) {
			static const char trust[] = "\n[projects.\"/workspace\"]\ntrust_level = \"trusted\"\n";

			if (write(out, trust, sizeof(trust) - 1) != (ssize_t)(sizeof(trust) - 1))
				rc = -1;
		}
		/* the sandbox user writes it (uid 1000 when run as root) */
		if (rc == 0 && w->in->root && fchown(out, w->in->sb_uid, w->in->sb_gid) != 0) {
			/* as before: a copy root keeps still works for a root-owned sandbox */
		}
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		rc = -1;
	if (rc != 0)
		return cs_fail(w->err, CS_EXIT_CONFIG, "cannot create %s: check that you can write %s", own,
			       w->in->own_base);
	return 0;
}

/* A file the CLI must write to work (codex records a project's trust in
 * config.toml, and its TUI cannot go on without that write) is the
 * sandbox's own copy, kept under CLI_SANDBOX_HOME/sandbox-own/CLI (made from
 * yours the first time) and mounted over rel: the CLI inside reads and
 * writes the copy, and the file your own CLI runs (its notify command) is
 * never written.  Yours gets an empty placeholder where there is none, so
 * that the mount has a point that cannot be renamed away. */
static int protect_own_copy(struct walk *w, const char *rel)
{
	char src[PATH_MAX], own[PATH_MAX], dir[PATH_MAX], ct[PATH_MAX];
	int r;

	if (join(w, src, w->in->state, rel) || join(w, dir, w->in->own_base, w->in->cli) || join(w, own, dir, rel) ||
	    join(w, ct, w->in->state_ct, rel) || check_link(w, src))
		return -1;
	if (!exists(src) && (r = placeholder(w, 'f', src)) <= 0)
		return r;
	if (!w->in->dry_run && !exists(own) && make_own_copy(w, src, own, rel))
		return -1;
	if (check_link(w, own))
		return -1;
	return add_mount(w, false, own, ct);
}

static int new_private_dir(struct walk *w, const char *prefix, char *out)
{
	if (private_dir(w->in->tmp, prefix, out, PATH_MAX, w->in->rnd, w->err) != 0)
		return -1;
	return add_line(w, "made=D %s", out);
}

/* A workspace folder that a CLI writes to start (opencode writes its project
 * folder .opencode, plugins' package files among them, and stops with
 * "Unexpected server error" where it is read-only) and that a host tool
 * loads as code (opencode runs the plugins there): the run gets its own
 * copy, made from yours in a private directory and mounted over it, removed
 * at the end.  Yours is never written; where it is absent, an empty
 * placeholder folder is the mount point. */
static int protect_own_dir(struct walk *w, const char *rel)
{
	char path[PATH_MAX], ct[PATH_MAX], priv[PATH_MAX], own[PATH_MAX], ids[32], out[256];
	int r;

	if (join(w, path, w->in->ws, rel) || join(w, ct, WS_CT, rel) || check_link(w, path))
		return -1;
	if (!exists(path) && (r = placeholder(w, 'd', path)) <= 0)
		return r;
	if (!is_dir(path))
		return add_mount(w, true, path, ct);
	if (w->in->dry_run) {
		snprintf(own, sizeof(own), "%s/cli-sandbox-own.RANDOM/d", w->in->tmp);
		return add_mount(w, false, own, ct);
	}
	if (new_private_dir(w, "cli-sandbox-own", priv) || join(w, own, priv, "d"))
		return -1;
	{
		DIR *d = opendir(path);
		struct dirent *e;
		bool empty = true;

		while (d && (e = readdir(d)))
			empty = empty && (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0);
		if (d)
			closedir(d);
		if (empty) {
			r = mkdir(own, 0755);
		} else {
			char *cp[] = { "cp", "-R", "--", path, own, NULL };

			r = spawn_capture(cp, out, sizeof(out), 120000);
		}
	}
	if (r != 0)
		return cs_fail(w->err, CS_EXIT_CONFIG, "cannot copy %s for the sandbox: check the space on %s", path,
			       w->in->tmp);
	(void)chmod(priv, 0711);
	/* the sandbox user writes it (uid 1000 when run as root) */
	if (w->in->root) {
		char *chown_r[] = { "chown", "-R", ids, "--", own, NULL };

		snprintf(ids, sizeof(ids), "%u:%u", w->in->sb_uid, w->in->sb_gid);
		(void)spawn_capture(chown_r, out, sizeof(out), 120000);
	}
	return add_mount(w, false, own, ct);
}

/* The workspace's file placeholders would show in git status inside and be
 * taken by `git add -A`: a file of excludes (in a private directory, removed
 * at the end) that git inside reads as core.excludesFile, from the
 * environment: no config file is written. */
static int git_excludes(struct walk *w)
{
	char priv[PATH_MAX], file[PATH_MAX];

	if (!w->exclude_len || strchr(w->in->tmp, ':'))
		return 0;
	if (w->in->dry_run) {
		snprintf(priv, sizeof(priv), "%s/cli-sandbox-protect.RANDOM", w->in->tmp);
	} else {
		if (new_private_dir(w, "cli-sandbox-protect", priv) || join(w, file, priv, "exclude"))
			return -1;
		if (write_new_file(file, w->exclude, 0644) != 0)
			return cs_fail(w->err, CS_EXIT_CONFIG, "cannot write %s: check the space on %s", file, w->in->tmp);
		(void)chmod(priv, 0711);
	}
	return add_line(w, "mount=%s/exclude:" EXCLUDE_CT ":ro", priv) || add_line(w, "env=GIT_CONFIG_COUNT=1") ||
	       add_line(w, "env=GIT_CONFIG_KEY_0=core.excludesFile") ||
	       add_line(w, "env=GIT_CONFIG_VALUE_0=" EXCLUDE_CT);
}

static int add_exclude(struct walk *w, const char *rel)
{
	size_t n = strlen(rel) + 2;
	char *e = realloc(w->exclude, w->exclude_len + n + 1);

	if (!e)
		return oom(w);
	w->exclude = e;
	snprintf(w->exclude + w->exclude_len, n + 1, "/%s\n", rel);
	w->exclude_len += n;
	return 0;
}

/* The CLI's row: "KIND REL;KIND REL" (base/cli_names.h). */
static int protect_state(struct walk *w)
{
	const char *p = w->in->cli_protect ? w->in->cli_protect : "";

	while (*p) {
		size_t n = strcspn(p, ";");
		char item[PATH_MAX];

		if (n >= 3 && n < sizeof(item)) {
			snprintf(item, sizeof(item), "%.*s", (int)(n - 2), p + 2);
			if (p[0] == 'o' ? protect_own_copy(w, item) : protect_path(w, w->in->state, w->in->state_ct, p[0], item))
				return -1;
		}
		p += n + (p[n] == ';');
	}
	return 0;
}

static int walk_all(struct walk *w)
{
	if (protect_git(w))
		return -1;
	for (size_t i = 0; i < sizeof(ws_paths) / sizeof(ws_paths[0]); i++) {
		char k = ws_paths[i].kind;

		if (k == 'w' ? protect_own_dir(w, ws_paths[i].rel) : protect_path(w, w->in->ws, WS_CT, k, ws_paths[i].rel))
			return -1;
		if ((k == 'f' || k == 'j') && add_exclude(w, ws_paths[i].rel))
			return -1;
	}
	if (protect_state(w))
		return -1;
	for (size_t i = 0; i < w->n_mounts; i++)
		if (add_line(w, "mount=%s:%s%s", w->mounts[i].host, w->mounts[i].ct, w->mounts[i].ro ? ":ro" : ""))
			return -1;
	return git_excludes(w);
}

/* On failure, the private directories this walk made go again. */
static void remove_made_dirs(const struct protect_out *out)
{
	for (size_t i = 0; i < out->n; i++) {
		char *rm[] = { "rm", "-rf", "--", NULL, NULL }, buf[64];

		if (strncmp(out->lines[i], "made=D ", 7) != 0)
			continue;
		rm[3] = out->lines[i] + 7;
		(void)spawn_capture(rm, buf, sizeof(buf), 60000);
	}
}

int protect_plan(const struct protect_in *in, struct protect_out *out, struct cs_error *err)
{
	struct walk w = { .in = in, .out = out, .err = err };
	int rc = walk_all(&w);

	for (size_t i = 0; i < w.n_mounts; i++) {
		free(w.mounts[i].host);
		free(w.mounts[i].ct);
	}
	free(w.mounts);
	free(w.exclude);
	if (rc != 0)
		remove_made_dirs(out);
	return rc;
}

void protect_out_free(struct protect_out *out)
{
	for (size_t i = 0; i < out->n; i++)
		free(out->lines[i]);
	free(out->lines);
	out->lines = NULL;
	out->n = out->cap = 0;
}
