#include "hostctl/broker_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/sha256.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* [A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127}, comma-separated */
static bool models_ok(const char *m)
{
	while (*m) {
		size_t n = 0;

		if (!alnum(*m))
			return false;
		while (m[n] && m[n] != ',') {
			if (!alnum(m[n]) && !strchr("._:@/+-", m[n]))
				return false;
			n++;
		}
		if (n > 128)
			return false;
		m += n;
		if (*m == ',' && !*++m)
			return false;
	}
	return true;
}

int broker_config_text(const char *api, const char *url, const char *models, const char *policy, const char *form,
		       char *out, size_t len, struct cs_error *err)
{
	const char *def_form, *rest, *slash, *colon;
	char scheme[8], host[300], port[8] = "", hostheader[320], sslname[300], prefix[1024] = "";
	size_t hn;
	long portn;

	if (strcmp(api, "anthropic") == 0)
		def_form = "x-api-key";
	else if (strcmp(api, "openai") == 0)
		def_form = "bearer";
	else if (strcmp(api, "gemini") == 0)
		def_form = "x-goog-api-key";
	else
		return cs_fail(err, CS_EXIT_CONFIG, "broker: API '%s': use anthropic, openai or gemini", api);
	if (!form || !*form)
		form = def_form;
	if (strcmp(form, "x-api-key") != 0 && strcmp(form, "bearer") != 0 && strcmp(form, "x-goog-api-key") != 0)
		return cs_fail(err, CS_EXIT_CONFIG, "broker: key form '%s': use x-api-key, bearer or x-goog-api-key", form);
	if (strcmp(policy, "refuse") != 0 && strcmp(policy, "rewrite") != 0)
		return cs_fail(err, CS_EXIT_CONFIG, "broker: model policy '%s': use refuse or rewrite", policy);
	if (!models_ok(models))
		return cs_fail(err, CS_EXIT_CONFIG, "broker: models '%s': names of letters, digits and ._:@/+- separated by commas", models);
	/* http[s]://HOST[:PORT][/PREFIX]: no userinfo (a password would land in the file) */
	if (strncmp(url, "http://", 7) == 0)
		snprintf(scheme, sizeof(scheme), "http"), rest = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		snprintf(scheme, sizeof(scheme), "https"), rest = url + 8;
	else
		goto bad_url;
	slash = strchr(rest, '/');
	hn = slash ? (size_t)(slash - rest) : strlen(rest);
	if (hn == 0 || hn >= sizeof(host))
		goto bad_url;
	if (rest[0] == '[') {
		const char *close = memchr(rest, ']', hn);
		if (!close || close - rest < 3 || close - rest > 46)
			goto bad_url;
		for (const char *c = rest + 1; c < close; c++)
			if (!strchr("0123456789abcdefABCDEF:.", *c))
				goto bad_url;
		snprintf(host, sizeof(host), "%.*s", (int)(close - rest + 1), rest);
		colon = close + 1 < rest + hn ? close + 1 : NULL;
		if (colon && *colon != ':')
			goto bad_url;
		snprintf(sslname, sizeof(sslname), "%.*s", (int)(close - rest - 1), rest + 1);
	} else {
		colon = memchr(rest, ':', hn);
		size_t h = colon ? (size_t)(colon - rest) : hn;
		if (h == 0 || h > 253 || !alnum(rest[0]))
			goto bad_url;
		for (size_t i = 0; i < h; i++)
			if (!alnum(rest[i]) && rest[i] != '.' && rest[i] != '-')
				goto bad_url;
		snprintf(host, sizeof(host), "%.*s", (int)h, rest);
		snprintf(sslname, sizeof(sslname), "%s", host);
	}
	if (colon) {
		size_t pn = (size_t)(rest + hn - colon - 1);
		if (pn < 1 || pn > 5 || strspn(colon + 1, "0123456789") < pn)
			goto bad_url;
		snprintf(port, sizeof(port), "%.*s", (int)pn, colon + 1);
	}
	if (slash) {
		/* (/[A-Za-z0-9._~-]+)* */
		const char *p = slash;
		if (strlen(p) >= sizeof(prefix))
			goto bad_url;
		while (*p) {
			size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~-");
			if (*p != '/' || n == 0)
				goto bad_url;
			p += 1 + n;
		}
		snprintf(prefix, sizeof(prefix), "%s", slash);
	}
	snprintf(hostheader, sizeof(hostheader), "%s%s%s", host, port[0] ? ":" : "", port);
	if (!port[0]) {
		snprintf(port, sizeof(port), "%s", strcmp(scheme, "https") == 0 ? "443" : "80");
	} else if ((strcmp(scheme, "https") == 0 && strcmp(port, "443") == 0) || (strcmp(scheme, "http") == 0 && strcmp(port, "80") == 0)) {
		snprintf(hostheader, sizeof(hostheader), "%s", host);
	}
	portn = strtol(port, NULL, 10);
	if (portn < 1 || portn > 65535)
		return cs_fail(err, CS_EXIT_CONFIG, "broker: upstream port %s: use 1-65535", port);
	/* js_var lines, not map blocks: each map "" block sets up nginx's large key hash (about
	 * 5 ms of CPU apiece), which was half the broker's start (docs/broker.md "Start"). */
	int n = snprintf(out, len,
			 "# written by cli-sandbox-ctl broker (docs/broker.md); read by /usr/share/cli-sandbox-broker/nginx.conf\n"
			 "js_var $broker_api \"%s\";\n"
			 "js_var $broker_models \"%s\";\n"
			 "js_var $broker_model_policy \"%s\";\n"
			 "js_var $broker_key_header \"%s\";\n"
			 "js_var $broker_scheme \"%s\";\n"
			 "js_var $broker_host \"%s\";\n"
			 "js_var $broker_host_header \"%s\";\n"
			 "js_var $broker_prefix \"%s\";\n"
			 "upstream broker_upstream {\n    server %s:%s;\n    keepalive 8;\n}\n",
			 api, models, policy, form, scheme, sslname, hostheader, prefix, host, port);
	if (n < 0 || (size_t)n >= len)
		return cs_fail(err, CS_EXIT_CONFIG, "broker: the configuration does not fit: shorten the models or the URL");
	return 0;
bad_url:
	return cs_fail(err, CS_EXIT_CONFIG,
		       "broker: bad upstream URL: use http[s]://HOST[:PORT][/PREFIX] (no user:password@: the key goes in the key file)");
}

int broker_dir_new(const char *parent, char *out, size_t len, struct cs_error *err)
{
	struct statfs fs;
	char tokens[4200];

	if (statfs(parent, &fs) != 0 || fs.f_type != TMPFS_MAGIC)
		return cs_fail(err, CS_EXIT_CONFIG, "broker: %s is not on memory (tmpfs): set CLI_SANDBOX_BROKER_RUNDIR to a tmpfs directory", parent);
	if (snprintf(out, len, "%s/cli-sandbox-broker.XXXXXX", parent) >= (int)len || !mkdtemp(out))
		return cs_fail(err, CS_EXIT_OSERR, "broker: cannot make a directory in %s: check its permissions", parent);
	/* 0711: the broker's uid may pass through, nobody else may list (the tokens' names are hashes) */
	snprintf(tokens, sizeof(tokens), "%s/tokens", out);
	if (chmod(out, 0711) != 0 || mkdir(tokens, 0711) != 0 || chmod(tokens, 0711) != 0) {
		broker_dir_remove(out);
		return cs_fail(err, CS_EXIT_OSERR, "broker: cannot prepare %s", out);
	}
	return 0;
}

/* path = dir/name, written through name.new, mode, owned by the broker as root. */
static int write_atomic(const char *dir, const char *name, const char *data, size_t n, mode_t mode, bool broker_owned,
			struct cs_error *err)
{
	char tmp[4300], path[4300];
	int fd;
	ssize_t w = 0;

	snprintf(tmp, sizeof(tmp), "%s/%s.new", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return cs_fail(err, CS_EXIT_OSERR, "broker: cannot write %s: check the directory", path);
	if (n)
		w = write(fd, data, n);
	if ((size_t)w != n || (broker_owned && geteuid() == 0 && fchown(fd, BROKER_UID, BROKER_UID) != 0) || fchmod(fd, mode) != 0 ||
	    close(fd) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return cs_fail(err, CS_EXIT_OSERR, "broker: cannot write %s: check the space on its file system", path);
	}
	return 0;
}

int broker_config_write(const char *dir, const char *text, struct cs_error *err)
{
	return write_atomic(dir, "broker.conf", text, strlen(text), 0644, false, err);
}

int broker_key_write(const char *dir, int fd, struct cs_error *err)
{
	char key[8192];
	size_t n = 0;
	int rc;

	for (;;) {
		ssize_t r = read(fd, key + n, sizeof(key) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return cs_fail(err, CS_EXIT_OSERR, "broker: cannot read the key from stdin");
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == sizeof(key))
			return cs_fail(err, CS_EXIT_CONFIG, "broker: the key is over 8 KiB: give the key alone");
	}
	if (n > 0 && key[n - 1] == '\n')
		n--;
	if (n == 0 || memchr(key, '\n', n) || memchr(key, '\0', n)) {
		explicit_bzero(key, sizeof(key));
		return cs_fail(err, CS_EXIT_CONFIG, "broker: the key is empty or has a line break: set the variable to the key alone");
	}
	/* As root the key file is the broker's uid's, mode 0400. A person who is not root cannot
	 * give it away: it is then 0444, and the caller keeps DIR inside a private (0700)
	 * directory of its own, which no other user of this host can enter. */
	rc = write_atomic(dir, "key", key, n, geteuid() == 0 ? 0400 : 0444, true, err);
	explicit_bzero(key, sizeof(key));
	return rc;
}

static int token_path(const char *dir, const char *token, char *path, size_t len)
{
	char hex[65];

	sha256_hex(token, strlen(token), hex);
	return snprintf(path, len, "%s/tokens/%s", dir, hex) < (int)len ? 0 : -1;
}

int broker_token_add(const char *dir, char *token, struct cs_error *err)
{
	unsigned char raw[32];
	char path[4300];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw)) {
		if (fd >= 0)
			close(fd);
		return cs_fail(err, CS_EXIT_OSERR, "broker: cannot read /dev/urandom");
	}
	close(fd);
	memcpy(token, "csbt_", 5);
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(token + 5 + 2 * i, 3, "%02x", raw[i]);
	explicit_bzero(raw, sizeof(raw));
	if (token_path(dir, token, path, sizeof(path)) != 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return cs_fail(err, CS_EXIT_OSERR, "broker: cannot add a token in %s/tokens", dir);
	close(fd);
	return 0;
}

int broker_token_revoke(const char *dir, const char *token, struct cs_error *err)
{
	char path[4300];

	if (token_path(dir, token, path, sizeof(path)) != 0 || (unlink(path) != 0 && errno != ENOENT))
		return cs_fail(err, CS_EXIT_OSERR, "broker: cannot revoke the token in %s/tokens", dir);
	return 0;
}

void broker_dir_remove(const char *dir)
{
	const char *base = strrchr(dir, '/');
	char tokens[4300], path[4600];
	DIR *d;
	struct dirent *e;

	if (!base || strncmp(base + 1, "cli-sandbox-broker.", 19) != 0)
		return;
	snprintf(tokens, sizeof(tokens), "%s/tokens", dir);
	if ((d = opendir(tokens))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", tokens, e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(tokens);
	for (const char *const *f = (const char *const[]){ "key", "key.new", "broker.conf", "broker.conf.new", NULL }; *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		unlink(path);
	}
	rmdir(dir);
}
