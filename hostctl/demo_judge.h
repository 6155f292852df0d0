/* `cli-sandbox demo`'s verdict (docs/host-script.md, "See it
 * work"): each step judged by what the scripted model received (its log's
 * "result STEP | TEXT" lines), by the init's lines on the run's stderr
 * ("cli-sandbox-init: blocked: ..." and "firewall up: ... sha256=HEX") and
 * by hello.txt, never by the CLI's exit status.  Pure: the caller reads the
 * files.  What the sandbox wrote reaches the verdict only as printable
 * ASCII and never with the key's value in it. */
#ifndef CLI_SANDBOX_HOSTCTL_DEMO_JUDGE_H
#define CLI_SANDBOX_HOSTCTL_DEMO_JUDGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The outside addresses every demo connects to (host/lib/demo-model.mjs). */
#define DEMO_OUTSIDE_1 "203.0.113.10:443"
#define DEMO_OUTSIDE_2 "169.254.169.254:80"

struct demo_text {
	const char *s;  /* may hold NUL bytes; NULL when n is 0 */
	size_t n;
};

struct demo_run {
	/* What the runner decided. */
	const char *cli, *engine, *image, *folder, *workspace, *model, *probe;
	const char *key_env;       /* the key's variable's name */
	bool key_yours;            /* the person's key, else the throwaway one */
	const char *key;           /* its value: searched for, never shown */
	unsigned long owner;       /* who must own hello.txt on the host */
	unsigned long inside;      /* the uid the sandbox must run as */
	bool as_root;              /* the person ran the demo as root */
	const char *names[3];      /* the model's container, its network, the run's */
	int cli_exit;
	long seconds;
	bool keep;
	/* What the run left. */
	struct demo_text model_log, cli_out, cli_err;
	bool hello_ok;             /* workspace/hello.txt: a regular file with the model's text */
	unsigned long hello_uid;   /* its owner, when hello_ok */
};

/* The verdict: {"ok":BOOL,"ruleset_sha256":HEX or "","blocked":[LINE...],
 * "steps":[{"name","ok","detail"}...]} with the steps written, refused,
 * no-key, capabilities and ruleset in that order; NULL when out of memory. */
json_t *demo_judge(const struct demo_run *r);

/* A person's path (TMPDIR's) or a detail as a JSON string: printable
 * ASCII when it is not UTF-8, which jansson refuses; NULL when out of memory. */
json_t *demo_jstr(const char *s);

#endif
