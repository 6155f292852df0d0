/* demo-report: host/lib/demo.sh's verdict and report.  The runner has run
 * the demo (the model, the person's run, the clean-up is its own); this
 * reads what the run left in the folder (model.log, cli.out, cli.err,
 * workspace/hello.txt), judges each step and prints the report
 * (demo_judge.h), exit 0 or 1.  The key's value is read from the variable
 * --key-env names, never from the command line. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostctl/cmds.h"
#include "hostctl/demo_report.h"
#include "hostctl/validate.h"

static const char help[] =
	"Usage: cli-sandbox-ctl demo-report --folder DIR --workspace DIR --owner UID --inside UID\n"
	"         --probe A.B.C.D:PORT --key-env VAR --key yours|throwaway --cli CLI --engine ENGINE\n"
	"         --image IMAGE --model URL --name NAME --name NAME --name NAME --cli-exit N\n"
	"         --seconds N [--keep] [--json]\n"
	"For host/lib/demo.sh: judge what the demo's run left in DIR (model.log, cli.out, cli.err) and\n"
	"in DIR/workspace, and print the report; exit 0 when every step holds, 1 when one does not.\n"
	"The key's value is read from the variable VAR (docs/host-script.md, \"See it work\").\n";

static const char hello_text[] = "hello from the sandbox";

/* The whole of DIR/NAME (empty when it is missing); false when it cannot be read. */
static bool read_all(const char *dir, const char *name, struct demo_text *t, char **buf)
{
	char path[4096];
	FILE *f;
	size_t cap = 0, n = 0;
	char *b = NULL;

	*buf = NULL;
	t->s = NULL;
	t->n = 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT;
	for (;;) {
		if (cap - n < 65536) {
			char *g = cap > ((size_t)-1) / 4 ? NULL : realloc(b, cap * 2 + 65536);

			if (!g) {
				free(b);
				fclose(f);
				return false;
			}
			b = g;
			cap = cap * 2 + 65536;
		}
		size_t k = fread(b + n, 1, cap - n, f);

		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		free(b);
		fclose(f);
		return false;
	}
	fclose(f);
	*buf = b;
	t->s = b;
	t->n = n;
	return true;
}

/* workspace/hello.txt: a regular file (not a link, never a FIFO's wait)
 * holding the model's text and any newlines after it, as the runner's
 * $(cat) read it; its owner. */
static bool read_hello(const char *workspace, unsigned long *uid)
{
	char path[4096], buf[sizeof(hello_text) + 64];
	struct stat st;
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/hello.txt", workspace) >= sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	*uid = (unsigned long)st.st_uid;
	return n == (ssize_t)strlen(hello_text) && memcmp(buf, hello_text, (size_t)n) == 0;
}

/* A whole decimal number, at most max. */
static bool number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0' && *out <= max;
}

int cmd_demo_report(int argc, char **argv)
{
	struct demo_run r = { 0 };
	const char *owner = NULL, *inside = NULL, *key = NULL, *cli_exit = NULL, *seconds = NULL;
	char *bufs[3] = { NULL, NULL, NULL };
	unsigned long v;
	size_t names = 0;
	bool json;
	int rc;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	for (int i = 1; i < argc; i++) {
		const char **to;

		if (strcmp(argv[i], "--keep") == 0) {
			r.keep = true;
			continue;
		}
		to = strcmp(argv[i], "--folder") == 0	 ? &r.folder
		     : strcmp(argv[i], "--workspace") == 0 ? &r.workspace
		     : strcmp(argv[i], "--owner") == 0	 ? &owner
		     : strcmp(argv[i], "--inside") == 0	 ? &inside
		     : strcmp(argv[i], "--probe") == 0	 ? &r.probe
		     : strcmp(argv[i], "--key-env") == 0	 ? &r.key_env
		     : strcmp(argv[i], "--key") == 0	 ? &key
		     : strcmp(argv[i], "--cli") == 0	 ? &r.cli
		     : strcmp(argv[i], "--engine") == 0	 ? &r.engine
		     : strcmp(argv[i], "--image") == 0	 ? &r.image
		     : strcmp(argv[i], "--model") == 0	 ? &r.model
		     : strcmp(argv[i], "--name") == 0	 ? (names < 3 ? &r.names[names++] : NULL)
		     : strcmp(argv[i], "--cli-exit") == 0	 ? &cli_exit
		     : strcmp(argv[i], "--seconds") == 0	 ? &seconds
							 : NULL;
		if (!to || i + 1 >= argc)
			return ctl_usage("demo-report: '%s' is not an option of it (or lacks its value): see cli-sandbox-ctl demo-report --help", argv[i]);
		*to = argv[++i];
	}
	if (!r.folder || !r.workspace || !r.probe || !r.cli || !r.engine || !r.image || !r.model || names != 3)
		return ctl_usage("demo-report needs --folder, --workspace, --probe, --cli, --engine, --image, --model and three --name: see --help");
	if (!number(owner, 0xffffffffUL, &r.owner) || !number(inside, 0xffffffffUL, &r.inside))
		return ctl_usage("demo-report: --owner and --inside take a uid, e.g. --owner 1000");
	if (!number(cli_exit, 255, &v))
		return ctl_usage("demo-report: --cli-exit takes the CLI's exit status, 0 to 255");
	r.cli_exit = (int)v;
	if (!number(seconds, 100000000UL, &v))
		return ctl_usage("demo-report: --seconds takes a whole number of seconds, e.g. --seconds 20");
	r.seconds = (long)v;
	if (!key || (strcmp(key, "yours") != 0 && strcmp(key, "throwaway") != 0))
		return ctl_usage("demo-report: --key takes yours or throwaway (whose key the run had)");
	r.key_yours = strcmp(key, "yours") == 0;
	if (!r.key_env || !valid_key_env(r.key_env, strlen(r.key_env)))
		return ctl_usage("demo-report: --key-env takes the key's variable's name, e.g. --key-env ANTHROPIC_API_KEY");
	/* The probe goes into the judge's fixed-size patterns: A.B.C.D:PORT only. */
	if (strlen(r.probe) > 21 || strspn(r.probe, "0123456789.:") != strlen(r.probe) || !strchr(r.probe, ':'))
		return ctl_usage("demo-report: --probe takes A.B.C.D:PORT, e.g. --probe 198.51.100.30:443");
	r.key = getenv(r.key_env);
	if (!r.key)
		r.key = "";
	r.as_root = getuid() == 0;
	r.hello_ok = read_hello(r.workspace, &r.hello_uid);
	if (!read_all(r.folder, "model.log", &r.model_log, &bufs[0]) || !read_all(r.folder, "cli.out", &r.cli_out, &bufs[1]) ||
	    !read_all(r.folder, "cli.err", &r.cli_err, &bufs[2])) {
		rc = ctl_usage("demo-report: cannot read the run's files in %s: %s; run the demo again (with --keep to look)", r.folder, strerror(errno));
	} else {
		rc = demo_report(&r, json, stdout);
		if (fflush(stdout) != 0)
			rc = CS_EXIT_OSERR;
	}
	for (size_t i = 0; i < 3; i++)
		free(bufs[i]);
	return rc;
}
