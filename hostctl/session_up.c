/* The broker 'up' keeps (hostctl/session.h): its record, a run's join, its end by 'down'. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sha256.h"
#include "hostctl/broker_dir.h"
#include "hostctl/cmds.h"
#include "hostctl/engine_cmd.h"
#include "hostctl/session.h"
#include "hostctl/spawn.h"

/* up's record: FILE (0600) names the kept session; its directory on memory holds the rest. */
int session_record_write(const char *record, const char *priv)
{
	char parent[4300];
	const char *slash = strrchr(record, '/');
	FILE *f;
	int fd;

	if (slash) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - record), record);
		mkdir(parent, 0755);
	}
	fd = open(record, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "session=%s\n", priv);
	return fclose(f);
}

/* The value of KEY= in FILE's lines into out ("" when absent); false when FILE cannot be read. */
static bool file_value(const char *file, const char *key, char *out, size_t len)
{
	char line[4400];
	size_t n = strlen(key);
	FILE *f = fopen(file, "re");

	out[0] = '\0';
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, key, n) == 0 && line[n] == '=')
			snprintf(out, len, "%s", line + n + 1);
	}
	fclose(f);
	return true;
}

int session_up_router(const char *record, char *ct, size_t clen, char *ip, size_t ilen)
{
	char up[4300], path[4400];

	ct[0] = ip[0] = '\0';
	if (!file_value(record, "session", up, sizeof(up)))
		return -1;
	snprintf(path, sizeof(path), "%s/session", up);
	if (!session_id_ok(up) || !file_value(path, "engine", ct, clen))
		return 2;
	file_value(path, "router", ct, clen);
	file_value(path, "router_ip", ip, ilen);
	return ct[0] ? 1 : 0;
}

/* A run against the broker 'up' keeps (its record: FILE's session= line): a session of the
 * run's own beside it that holds only its token (and the names of its sandbox's containers,
 * for the guardian).  Exit 3, saying nothing, when there is no such broker, it does not run, or
 * its API, key form, path or models are not the run's: the run then starts its own. */
int session_join(int argc, char **argv)
{
	const char *record = NULL, *id = NULL, *first[4], *want[4] = { NULL, NULL, NULL, NULL };
	const char *keys[4] = { "api", "form", "mode", "models" };
	char up[4300], path[4400], dir[4300], net[300], url[300], engine[64], ct[300], v[4300], priv[4300];
	char token[BROKER_TOKEN_LEN + 1], hash[65], out[64];
	struct engine_cmd c;
	struct cs_error err;
	bool dry = false;
	int nfirst = 0;

	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(o, "--dry-run") == 0) {
			dry = true;
			continue;
		}
		if (!val)
			return ctl_usage("session join: %s needs a value: see cli-sandbox-ctl session --help", o);
		if (strcmp(o, "--record") == 0)
			record = val;
		else if (strcmp(o, "--id") == 0)
			id = val;
		else if (strcmp(o, "--first") == 0 && nfirst < 4)
			first[nfirst++] = val;
		else if (strcmp(o, "--api") == 0)
			want[0] = val;
		else if (strcmp(o, "--key-form") == 0)
			want[1] = val;
		else if (strcmp(o, "--mode") == 0)
			want[2] = val;
		else if (strcmp(o, "--models") == 0)
			want[3] = val;
		else
			return ctl_usage("session join: %s is not an option: see cli-sandbox-ctl session --help", o);
		i++;
	}
	if (!record || (!dry && (!id || strspn(id, "0123456789") != strlen(id))))
		return ctl_usage("session join: give --record FILE and --id RUNNER-PID");
	if (!file_value(record, "session", up, sizeof(up)) || !session_id_ok(up))
		return 3;
	snprintf(path, sizeof(path), "%s/session", up);
	if (!file_value(path, "dir", dir, sizeof(dir)) || !file_value(path, "url", url, sizeof(url)) ||
	    !file_value(path, "broker_network", net, sizeof(net)) || !file_value(path, "engine", engine, sizeof(engine)) ||
	    !file_value(path, "container", ct, sizeof(ct)) || !*dir || !*url || !*net || !*engine || !*ct)
		return 3;
	for (int k = 0; k < 4; k++)
		if (want[k] && (!file_value(path, keys[k], v, sizeof(v)) || strcmp(v, want[k]) != 0))
			return 3;
	engine_cmd_init(&c, engine);
	engine_cmd_add(&c, "inspect", "-f", "{{.State.Running}}", ct, (char *)NULL);
	if (spawn_capture(c.argv, out, sizeof(out), 30000) != 0 || strcmp(out, "true") != 0)
		return 3;
	file_value(path, "router", ct, sizeof(ct));
	if (dry) {
		printf("session=%s\nnetwork=%s\nurl=%s\n", up, net, url);
		if (*ct)
			printf("router=%s\n", ct);
		return 0;
	}
	snprintf(priv, sizeof(priv), "%.*s/cli-sandbox-session.XXXXXX", (int)(strrchr(up, '/') - up), up);
	if (!mkdtemp(priv))
		return ctl_usage("cannot create a private directory beside %s: check that it is writable by you", up);
	session_note(priv, "engine", engine);
	for (int i = 0; i < nfirst; i++)
		session_note(priv, "first", first[i]);
	if (session_note(priv, "joined", dir) != 0 || broker_token_add(dir, token, &err) != 0) {
		session_end(priv, NULL, 0, false);
		return ctl_usage("cannot add the run's token in %s: is the broker of 'cli-sandbox up' still there?", dir);
	}
	sha256_hex(token, strlen(token), hash);
	session_note(priv, "token", hash);
	session_guard(priv, atoi(id));
	printf("session=%s\nnetwork=%s\nurl=%s\ntoken=%s\n", priv, net, url, token);
	if (*ct)
		printf("router=%s\n", ct);
	explicit_bzero(token, sizeof(token));
	return 0;
}

/* 'down': the broker 'up' keeps ended, its record removed; 3 when there is none. */
int session_down(const char *record)
{
	char up[4300];
	int rc;

	if (!file_value(record, "session", up, sizeof(up)))
		return 3;
	rc = session_id_ok(up) ? session_end(up, NULL, 0, false) : 0;
	unlink(record);
	return rc;
}

