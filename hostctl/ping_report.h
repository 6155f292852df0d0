/* ping's report: what the checks in the sandbox (host/lib/ping.mjs, one
 * JSON object a line: {"check","ok","ms","api","reply"|"tool"|"error",
 * "hint","load_ms","cold"}) and the init's block log
 * ("cli-sandbox-init: blocked: ...", a connection the firewall refused)
 * found, read with jansson and shown as text or one JSON object.  A
 * server's words reach the screen only as printable ASCII. */
#ifndef CLI_SANDBOX_HOSTCTL_PING_REPORT_H
#define CLI_SANDBOX_HOSTCTL_PING_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Lines longer than this are not a check (ping.mjs cuts replies at 80). */
#define PING_LINE_MAX 65536
/* At most this many checks are kept (a run has two or three). */
#define PING_CHECKS_MAX 64

/* The check one line of the sandbox's output holds: a JSON object (a line
 * starting with '{': one that does not read is a failed check), or a
 * blocked connection (a failed "firewall" check); NULL for any other line. */
json_t *ping_line(const char *line, size_t n);

/* The report of checks (an array of ping_line's objects) for CLI via PATH to
 * ENDPOINT: text, one line a check and the verdict (READY or NOT OK), or
 * with json one object {"cli","endpoint","path","ready","checks"}.
 * Returns the exit status: 0 when every check passed (and there was one). */
int ping_render(json_t *checks, const char *cli, const char *endpoint, const char *path, bool json, FILE *out);

#endif
