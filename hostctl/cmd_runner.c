/* runner: everything host/cli-sandbox decides a run from, in one call (an
 * exec costs the runner about 5 ms under load; it made four of this
 * program's and five awk's before).  One KEY=VALUE a line, read by the
 * runner (host/lib/plan.sh's ctl_read: a line a word, a case) without eval:
 *   engine engine_why | engine_error   with --choose-engine: the engine docker's
 *                           daemon's answer decides, and why; or the line naming both
 *   clis=claude codex ...   the CLIs, the runner's CLI_NAMES held to them
 *   cli_dir cli_var cli_sub cli_logins cli_keys   the CLI's row (base/cli_names.h)
 *   cli_protect (a line each)   what it runs from its state folder, "KIND REL"
 *   uid gid cap_sys_resource=yes|no   this process's ids; whether an engine
 *                           started from here may grant CAP_SYS_RESOURCE
 *   ep_name ep_url ep_key_env   the endpoint named or selected, when found
 *   lim_pids lim_mem lim_cpus lim_nofile lim_tmp lim_text   the limits
 *   ws_writable=yes|no ws_how   the workspace, for the sandbox user
 *   ws_path home_path ws_error   the workspace's and the home's canonical paths,
 *                           and the runner's refusal of that workspace
 *   sb_uid sb_gid state_host state_for_sb own_note, id_arg (a word a line)
 *                           with --identity: who the sandbox user is on this host
 *   sock sock_gid | sock_error   with --socket: the engine's API socket for
 *                           --docker-socket and its group, or why there is none
 *   git_name git_email      with --git-identity and --workspace: git's user for the
 *                           sandbox's commits (git_identity.h)
 *   then the plan's lines (plan_format.h), with --plan and a URL.
 * docs/hostctl.md, "runner". */
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cli_names.h"
#include "hostctl/cmds.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/git_identity.h"
#include "hostctl/engine.h"
#include "hostctl/home.h"
#include "hostctl/plan.h"
#include "hostctl/plan_format.h"
#include "hostctl/printable.h"
#include "hostctl/runner.h"

static const char help[] =
	"Usage: cli-sandbox-ctl runner --cli CLI [--choose-engine [--engine-required]] [--check-endpoints]\n"
	"         [--endpoint NAME | --selected] [--identity] [--socket] [--uid N --gid N]\n"
	"         [--managed URL] [--limits [--engine E] [--pids-limit N] [--memory SIZE] [--cpus N]\n"
	"         [--nofile N] [--tmp-size SIZE]] [--workspace DIR [--git-identity]] [--plan [--keys-in]]\n"
	"What host/cli-sandbox decides a run from, one KEY=VALUE a line (docs/hostctl.md, \"runner\"):\n"
	"the engine (--choose-engine: docker when its daemon answers, else podman; --engine-required:\n"
	"nothing more when none answers), the CLI's row, this process's uid and gid, who the sandbox\n"
	"user is (--identity), the engine's socket (--socket) (--uid, --gid: as for that user, the\n"
	"tests' fake person; the workspace's check stays this process's), the endpoint's URL and\n"
	"key-env (--selected: the one 'endpoints use' chose), the limits, whether the sandbox user may\n"
	"write the workspace, git's user for the sandbox's commits (--git-identity), and the plan's\n"
	"lines.  --check-endpoints: a bad endpoints file stops it as 'endpoints list' does.  A named\n"
	"endpoint that is not there (and no --managed URL): no ep_url line, nothing\n"
	"after it.  Exit 2 on a bad file, a bad limit or a refused plan (its reason in the lines).\n";

/* The endpoints file, when it is a regular file (the runner's [ -f ]): loaded into *eps. */
static int load_endpoints(struct endpoints *eps, struct cs_error *err)
{
	char path[4096];
	struct stat st;

	if (home_file("endpoints", path, sizeof(path), err) != 0)
		return -1;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return endpoints_load(path, eps, err);
}

/* The selected endpoint: the current file's first line, as the runner's
 * $(cat) read it when the file is not empty; "" when none.  Not held to the
 * name's rule here: a name no endpoint has is the runner's "no endpoint
 * named" either way. */
static void selected(char *out, size_t len)
{
	home_current_line(out, len);
	printable_in_place(out, strlen(out), false);  /* one printable line for the runner's reader */
}

/* Bit 24 (CAP_SYS_RESOURCE) of CapBnd in /proc/self/status: an engine cannot
 * grant a capability this host's processes may not hold (runc: unable to
 * apply caps).  Unreadable: taken as there, as the runner took it. */
static bool may_hold_sys_resource(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long bnd;
	bool yes = true;

	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapBnd: %llx", &bnd) == 1) {
			yes = (bnd >> 24) & 1;
			break;
		}
	fclose(f);
	return yes;
}

/* May uid:gid (no other group, as the init sets the sandbox user up) create
 * files in dir?  As root: a child that becomes uid:gid asks the kernel about
 * dir opened by root (/proc/self/fd/N: the container gets dir itself, so its
 * parents do not count; ACLs do).  Otherwise this process cannot change uid,
 * and dir's mode bits decide (ACLs not seen).  *how says which. */
static bool sandbox_can_write(const char *dir, uid_t uid, gid_t gid, const char **how)
{
	struct stat st;
	unsigned mode;

	if (geteuid() == 0) {
		char fdpath[64];
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), status;
		pid_t pid;

		*how = "tested as that uid";
		if (fd < 0)
			return false;
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		pid = fork();
		if (pid == 0) {
			if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
				_exit(1);
			_exit(access(fdpath, W_OK | X_OK) == 0 ? 0 : 1);
		}
		close(fd);
		return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	*how = "by its mode bits";
	if (access(dir, W_OK | X_OK) != 0 || stat(dir, &st) != 0)
		return false;
	mode = st.st_uid == uid ? st.st_mode >> 6 : st.st_gid == gid ? st.st_mode >> 3 : st.st_mode;
	return (mode & 3) == 3;
}

/* Only whether the person exported the variable with a value: the plan never sees a value. */
static bool exported(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

/* The workspace's and the home's canonical paths, as the runner's
 * $(cd -P -- DIR && pwd -P) gave them (a subshell each): ws_path only for a
 * directory this process may enter, home_path the home's, else $HOME as it
 * is.  A path a line cannot carry is left out.  And ws_error, the runner's
 * refusal, when the workspace is no such directory, is /, is or holds the
 * home (which holds the person's credentials), or has a ':' that the
 * engine's -v cannot mount. */
static void workspace_paths(const char *dir)
{
	const char *home = getenv("HOME");
	char *ws = realpath(dir, NULL), *real = home && *home ? realpath(home, NULL) : NULL;
	const char *h = real ? real : home ? home : "";
	size_t n;
	struct stat st;

	if (ws && !(one_line(ws) && stat(ws, &st) == 0 && S_ISDIR(st.st_mode) && access(ws, X_OK) == 0)) {
		free(ws);
		ws = NULL;
	}
	if (ws)
		printf("ws_path=%s\n", ws);
	if (*h && one_line(h) && (!real || (stat(real, &st) == 0 && S_ISDIR(st.st_mode))))
		printf("home_path=%s\n", h);
	if (!ws)
		printf("ws_error=workspace '%s' is not an existing directory: cd into your project or pass --workspace DIR\n",
		       one_line(dir) ? dir : "(a name with a control character)");
	else if (strcmp(ws, "/") == 0)
		printf("ws_error=refusing to mount / as the workspace: cd into your project or pass --workspace DIR\n");
	else if (strcmp(ws, h) == 0)
		printf("ws_error=refusing to mount your home directory %s as the workspace (it holds your credentials): cd into "
		       "a project directory or pass --workspace DIR\n",
		       ws);
	else if (strchr(ws, ':'))
		printf("ws_error=workspace '%s' contains ':', which the engine's -v option cannot mount: move or link the project "
		       "to a path without ':'\n",
		       ws);
	else if (strncmp(h, ws, n = strlen(ws)) == 0 && h[n] == '/' && one_line(h))
		printf("ws_error=refusing to mount %s as the workspace: it contains your home directory %s; cd into a project "
		       "directory or pass --workspace DIR\n",
		       ws, h);
	free(ws);
	free(real);
}

static bool number(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	v = strtoul(s, &end, 10);
	if (*end || v > 0xfffffffeul)
		return false;
	*out = (unsigned)v;
	return true;
}

static int parse(int argc, char **argv, struct runner_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], **to = NULL;
		bool *flag = strcmp(o, "--check-endpoints") == 0 ? &a->check
			     : strcmp(o, "--selected") == 0	   ? &a->select
			     : strcmp(o, "--limits") == 0	   ? &a->limits
			     : strcmp(o, "--plan") == 0		   ? &a->plan
			     : strcmp(o, "--keys-in") == 0	   ? &a->keys_in
			     : strcmp(o, "--choose-engine") == 0   ? &a->choose
			     : strcmp(o, "--engine-required") == 0 ? &a->required
			     : strcmp(o, "--identity") == 0	   ? &a->identity
			     : strcmp(o, "--socket") == 0	   ? &a->socket
			     : strcmp(o, "--git-identity") == 0	   ? &a->git
								   : NULL;

		if (flag) {
			*flag = true;
			continue;
		}
		to = strcmp(o, "--cli") == 0	       ? &a->cli
		     : strcmp(o, "--endpoint") == 0  ? &a->name
		     : strcmp(o, "--managed") == 0   ? &a->url
		     : strcmp(o, "--engine") == 0    ? &a->engine
		     : strcmp(o, "--workspace") == 0 ? &a->workspace
		     : strcmp(o, "--uid") == 0	     ? &a->as_uid
		     : strcmp(o, "--gid") == 0	     ? &a->as_gid
						     : NULL;
		for (int k = 0; k < LIMIT_OPTS && !to; k++)
			if (strcmp(o, limit_options[k]) == 0)
				to = &a->limit_opts[k];
		if (!to || i + 1 >= argc)
			return ctl_usage("usage: cli-sandbox-ctl runner --cli CLI [...]: see cli-sandbox-ctl runner --help");
		*to = argv[++i];
	}
	a->uid = (unsigned)geteuid();
	a->gid = (unsigned)getegid();
	if ((a->as_uid && !number(a->as_uid, &a->uid)) || (a->as_gid && !number(a->as_gid, &a->gid)))
		return ctl_usage("--uid and --gid take a number");
	if (!a->cli || !cs_cli_by_name(a->cli))
		return ctl_usage("runner needs --cli claude, codex, pi, gemini or opencode");
	/* every value printed back is one line: the runner reads them a line each */
	if (a->name && !valid_endpoint_name(a->name, strlen(a->name)))
		return ctl_usage("bad endpoint name: use letters, digits, '-', '_' and '.', starting with a letter or digit");
	if (a->url && !one_line(a->url)) {
		struct cs_error err;

		if (check_url(a->url, strlen(a->url), &err) != 0)  /* the plan's own words for it */
			return ctl_fail(&err);
		return ctl_usage("bad --managed URL: one line of printable characters");
	}
	return 0;
}

static void cli_lines(const struct cs_cli_name *row)
{
	fputs("clis=", stdout);
	for (const struct cs_cli_name *c = cs_cli_names; c->name; c++)
		printf("%s%s", c == cs_cli_names ? "" : " ", c->name);
	printf("\ncli_dir=%s\ncli_var=%s\ncli_sub=%s\ncli_logins=%s\ncli_keys=%s\n", row->state_dir, row->state_var,
	       row->state_sub, row->logins, row->keys);
	/* one line an item: the runner's reader takes a line a value */
	for (const char *p = row->protect; *p;) {
		size_t n = strcspn(p, ";");

		printf("cli_protect=%.*s\n", (int)n, p);
		p += n + (p[n] == ';');
	}
}

/* The plan of the run: the endpoint when the URL is its own (or none was
 * given), else the URL taken as is; none without either.  Lines as plan
 * --runner prints them; 2 when refused (the reason in the lines). */
static int plan_part(const struct runner_args *a, const struct endpoint *found)
{
	struct plan_in in = { .keys_in = a->keys_in, .is_set = exported };
	struct endpoint ep;
	struct plan p;
	struct cs_error err;
	char lines[8192];
	int rc;

	if (found && (!a->url || strcmp(a->url, found->url) == 0))
		ep = *found;
	else if (a->url) {
		memset(&ep, 0, sizeof(ep));
		if (check_url(a->url, strlen(a->url), &err) != 0)
			return ctl_fail(&err);
		snprintf(ep.name, sizeof(ep.name), "managed");
		snprintf(ep.url, sizeof(ep.url), "%s", a->url);
	} else
		return 0;
	rc = plan_make_in(a->cli, &ep, &in, &p);
	if (plan_lines(&p, lines, sizeof(lines)))
		fputs(lines, stdout);
	return rc != 0 ? CTL_EXIT_USAGE : 0;
}

/* The engine when the person chose none: docker when its daemon answers,
 * else podman (engine_choice.h).  false when none answers. */
static bool choose_engine(struct runner_args *a)
{
	static struct engine_choice c;

	engine_choose_here(&c);
	if (!c.engine) {
		printable_in_place(c.err, strlen(c.err), false);
		printf("engine_error=%s\n", c.err);
		a->engine_err = c.err;
		return false;
	}
	printable_in_place(c.why, strlen(c.why), false);
	printf("engine=%s\nengine_why=%s\n", c.engine, c.why);
	a->engine = c.engine;
	return true;
}

/* Who the sandbox user is on this host (engine_choice.h, identity_plan):
 * the engine's words a line each, which the runner adds as they are. */
static bool identity_lines(const struct runner_args *a)
{
	const char *home = getenv("HOME"), *conf_env = getenv("CLI_SANDBOX_HOME");
	char conf[4096];
	static struct identity id;

	home = home ? home : "";
	if (conf_env && *conf_env)
		snprintf(conf, sizeof(conf), "%s", conf_env);
	else
		snprintf(conf, sizeof(conf), "%s/.config/cli-sandbox", home);
	if (identity_plan(a->uid, a->gid, a->engine ? a->engine : "", a->cli,
			  cs_cli_by_name(a->cli), conf, home, &id) != 0 || !one_line(id.state_host))
		return false;  /* no state_host: the runner stops, naming it */
	printf("sb_uid=%u\nsb_gid=%u\nstate_host=%s\nstate_for_sb=%s\nown_note=%s\n", id.sb_uid, id.sb_gid,
	       id.state_host, id.state_for_sb ? "true" : "false", id.own_note);
	for (int i = 0; i < id.n_args; i++)
		printf("id_arg=%s\n", id.args[i]);
	return true;
}

/* The engine's API socket (--docker-socket) and its group (the sandbox
 * user is given it: the runner's stat -c %g, or ls -n, before), or the line
 * saying why there is none. */
static void socket_line(const struct runner_args *a)
{
	const char *engine = a->engine ? a->engine : "";
	char sock[4096], err[4400];
	struct stat st;

	if (engine_socket(engine, a->uid, getenv("CLI_SANDBOX_DOCKER_SOCKET"), getenv("DOCKER_HOST"),
			  getenv("XDG_RUNTIME_DIR"), sock, sizeof(sock), err, sizeof(err)) != 0)
		;
	else if (!one_line(sock))
		snprintf(err, sizeof(err), "the engine's socket path holds a control character: set CLI_SANDBOX_DOCKER_SOCKET to its path");
	else if (stat(sock, &st) != 0)  /* the runner's [ -e ] */
		snprintf(err, sizeof(err),
			 "the %.16s socket %s does not exist: start %.16s's API service (podman: systemctl start podman.socket) or "
			 "set CLI_SANDBOX_DOCKER_SOCKET",
			 engine, sock, engine);
	else if (strchr(sock, ':'))
		snprintf(err, sizeof(err), "the socket path '%s' contains ':', which the engine's -v option cannot mount", sock);
	else {
		printf("sock=%s\nsock_gid=%u\n", sock, (unsigned)st.st_gid);
		return;
	}
	printable_in_place(err, strlen(err), false);
	printf("sock_error=%s\n", err);
}

int runner_facts(struct runner_args *a)
{
	struct endpoints *eps;
	const struct endpoint *found = NULL;
	struct cs_error err;
	char name[EP_NAME_MAX + 64];
	int rc;

	/* First, as the runner decided it first: with no engine, a run stops here. */
	if (a->choose && !a->engine && !choose_engine(a) && a->required) {
		fflush(stdout);
		return a->person ? person_refusal(a->engine_err) : 0;
	}
	if (!(eps = calloc(1, sizeof(*eps)))) {
		cs_fail(&err, CS_EXIT_OSERR, "out of memory");
		return ctl_fail(&err);
	}
	/* First: a bad endpoints file stops everything, with 'endpoints list''s line. */
	if ((a->check || a->name || a->select || a->plan) && load_endpoints(eps, &err) != 0) {
		free(eps);
		return ctl_fail(&err);
	}
	cli_lines(cs_cli_by_name(a->cli));
	printf("uid=%u\ngid=%u\ncap_sys_resource=%s\n", a->uid, a->gid,
	       may_hold_sys_resource() ? "yes" : "no");
	snprintf(name, sizeof(name), "%s", a->name ? a->name : "");
	if (!name[0] && a->select && !a->url)
		selected(name, sizeof(name));
	if (name[0]) {
		found = endpoints_find(eps, name);
		printf("ep_name=%s\n", name);
		if (found)
			printf("ep_url=%s\nep_key_env=%s\n", found->url, found->key_env);
		else if (!a->url) {
			free(eps);  /* the runner says "no endpoint named", before anything else */
			if (!a->person)
				return 0;
			snprintf(err.msg, sizeof(err.msg), "no endpoint named '%s': see 'cli-sandbox endpoints list'", name);
			return person_refusal(err.msg);
		}
	}
	if (a->limits) {
		struct limits l;
		char text[256];

		if (limits_for_run(a->engine, a->limit_opts, &l, text, sizeof(text), &err) != 0) {
			free(eps);
			return ctl_fail(&err);
		}
		printf("lim_pids=%llu\nlim_mem=%llu\nlim_cpus=%s\nlim_nofile=%llu\nlim_tmp=%llu\nlim_text=%s\n", l.pids, l.mem_mib,
		       l.cpus, l.nofile, l.tmp_mib, text);
	}
	if (a->workspace) {
		uid_t uid = geteuid();
		gid_t gid = getegid();
		const char *how = "";
		bool ok;

		/* the sandbox user: root's is the image's node (docs/host-script.md, "Who owns what") */
		if (uid == 0)
			uid = gid = 1000;
		ok = sandbox_can_write(a->workspace, uid, gid, &how);
		printf("ws_writable=%s\nws_how=%s\n", ok ? "yes" : "no", how);
		workspace_paths(a->workspace);
	}
	if (a->identity && !identity_lines(a) && a->person) {
		free(eps);
		return person_refusal("no state folder for the CLI: check that HOME (or CLI_SANDBOX_HOME) is a path without "
				      "control characters");
	}
	if (a->socket)
		socket_line(a);
	if (a->git && a->workspace)
		git_identity_lines(a->workspace);
	rc = a->plan ? plan_part(a, found) : 0;
	free(eps);
	fflush(stdout);
	return rc;
}

int cmd_runner(int argc, char **argv)
{
	struct runner_args a;
	int rc;

	if (argc > 1 && strcmp(argv[1], "--argv") == 0)
		return runner_argv(argc - 1, argv + 1);  /* cmd_runner_argv.c */
	if (ctl_help(argc, argv, help))
		return 0;
	if ((rc = parse(argc, argv, &a)) != 0)
		return rc;
	return runner_facts(&a);
}
