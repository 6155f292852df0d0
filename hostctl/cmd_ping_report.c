/* ping-report: host/lib/ping.sh's reader of what its checks printed.
 *   --lines CHECK   the sandbox's raw output (its checks' JSON lines, the
 *                   init's block log and anything else) on stdin; prints
 *                   the checks, one JSON object a line, or one failed CHECK
 *                   when the sandbox printed none;
 *   --cli CLI --endpoint NAME --path PATH [--json]
 *                   those lines on stdin; prints the report (ping_report.h)
 *                   and exits 1 when NOT OK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostctl/cmds.h"
#include "hostctl/ping_report.h"

static const char help[] =
	"Usage: cli-sandbox-ctl ping-report --lines CHECK\n"
	"       cli-sandbox-ctl ping-report --cli CLI --endpoint NAME --path PATH [--json]\n"
	"For host/lib/ping.sh: read what ping's checks printed on stdin; --lines prints the checks\n"
	"found (JSON lines), else the report: READY or NOT OK (exit 1), or one JSON object.\n";

/* Every check of stdin, in order (at most PING_CHECKS_MAX). */
static json_t *read_checks(void)
{
	json_t *checks = json_array();
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) > 0) {
		json_t *c;

		if (line[n - 1] == '\n')
			n--;
		c = ping_line(line, (size_t)n);
		if (c && json_array_size(checks) < PING_CHECKS_MAX)
			json_array_append(checks, c);
		json_decref(c);
	}
	free(line);
	return checks;
}

int cmd_ping_report(int argc, char **argv)
{
	const char *lines = NULL, *cli = NULL, *endpoint = NULL, *path = NULL;
	bool json;
	json_t *checks, *c;
	size_t i;
	int rc;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	for (int i_ = 1; i_ < argc; i_++) {
		const char **to = strcmp(argv[i_], "--lines") == 0 ? &lines
				  : strcmp(argv[i_], "--cli") == 0 ? &cli
				  : strcmp(argv[i_], "--endpoint") == 0 ? &endpoint
				  : strcmp(argv[i_], "--path") == 0 ? &path
								    : NULL;
		if (!to || i_ + 1 >= argc)
			return ctl_usage("usage: cli-sandbox-ctl ping-report --lines CHECK | --cli CLI --endpoint NAME --path PATH [--json]");
		*to = argv[++i_];
	}
	if (!lines && (!cli || !endpoint || !path))
		return ctl_usage("ping-report needs --lines CHECK, or --cli, --endpoint and --path");
	checks = read_checks();
	if (lines) {
		if (json_array_size(checks) == 0)
			json_array_append_new(checks, json_pack("{s:s, s:b, s:s}", "check", lines, "ok", 0, "error",
								"the sandbox did not run the check (see cli-sandbox doctor)"));
		json_array_foreach (checks, i, c) {
			char *s = json_dumps(c, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
			if (s)
				puts(s);
			free(s);
		}
		json_decref(checks);
		return 0;
	}
	rc = ping_render(checks, cli, endpoint, path, json, stdout);
	json_decref(checks);
	return rc;
}
