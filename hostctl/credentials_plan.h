/* The sandbox's credentials, decided for host/cli-sandbox (cli-sandbox-ctl
 * credentials, docs/hostctl.md): which of the CLI's credential variables are
 * set, the endpoint's key-env copied to the variable the CLI reads, the login
 * file that stands in when none is set, and which variables go into the
 * credentials file on memory (base/credentials.h's format) and which go by
 * name (-e NAME, their values then in the container's config).
 *
 * The decision is pure: values come from a lookup the caller gives (the
 * program's getenv), the file system's answers from two callbacks.  No value
 * is ever copied into the result: it holds names, paths and messages only. */
#ifndef CLI_SANDBOX_HOSTCTL_CREDENTIALS_PLAN_H
#define CLI_SANDBOX_HOSTCTL_CREDENTIALS_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/cli_names.h"

#define CRED_MAX 32	    /* variables of one run (pi's table has 23) */
#define CRED_NAME_MAX 128   /* credential_name_ok's bound */
#define CRED_TEXT_MAX 1024  /* a message, a path */

struct cred_copy {
	const char *from, *to;  /* to's value is from's (never copied out of the lookup) */
};

struct cred_in {
	const struct cs_cli_name *cli;
	const char *endpoint;  /* for key-env's error text */
	const char *key_env;   /* the endpoint's key-env: must be set; copied to key_to */
	const char *key_to;    /* NULL: the CLI's first variable */
	struct cred_copy copy[CRED_MAX];
	size_t n_copy;
	const char *given[CRED_MAX];  /* the variables to pass (no finding, no key-env) */
	size_t n_given;
	bool broker;	    /* the given ones hold the run's token: not read for the decision */
	const char *state;  /* the CLI's state folder on the host (its login files) */
	const char *engine; /* named in the warning */
	const char *bases[2];  /* where the file may go, in order (XDG_RUNTIME_DIR, /dev/shm) */
	const char *(*get)(const char *name);	      /* a variable's value, NULL when unset */
	bool (*nonempty_file)(const char *path);      /* [ -s PATH ] */
	bool (*memory_dir)(const char *path);	      /* a writable directory on tmpfs or ramfs */
	bool decide_only;  /* doctor: which variables, or the login, or the error; no file */
};

struct cred_out {
	char error[CRED_TEXT_MAX];  /* no credential at all: the run dies or warns with it */
	char vars[CRED_MAX][CRED_NAME_MAX];  /* the variables passed, in the table's order */
	size_t n_vars;
	char login[CRED_TEXT_MAX];  /* the login file, when no variable is set */
	char by_name[CRED_MAX][CRED_NAME_MAX];  /* -e NAME, in the order the runner adds them */
	size_t n_by_name;
	/* by-name variables whose value is another's (the runner exports them: the
	 * engine reads a -e NAME's value from its own environment) */
	struct { char to[CRED_NAME_MAX], from[CRED_NAME_MAX]; } export_copy[CRED_MAX];
	size_t n_export_copy;
	char file_vars[CRED_MAX][CRED_NAME_MAX];  /* the file's, in order */
	size_t n_file_vars;
	const char *base;  /* the memory-backed directory for the file (one of in->bases) */
	char warning[CRED_TEXT_MAX];  /* no memory-backed directory: the file's go by name */
};

/* Fills *out (zeroed first).  -1 only for a request the runner never makes
 * (a bad variable name, too many variables): err_text says which. */
int cred_plan(const struct cred_in *in, struct cred_out *out, char *err_text, size_t len);

/* The value the sandbox gets for name: a copy's source's when name is a copy's
 * target (the last one wins), else its own; "" when unset. */
const char *cred_value(const struct cred_in *in, const char *name);

#endif
