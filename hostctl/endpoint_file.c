#include "hostctl/endpoint_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostctl/api.h"

#define FILE_MAX (1 << 20)

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static void copy(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool bare_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c && strchr("._:/=@%+,-", c));
}

/* A KEY=VALUE word of a later version's key (k bytes of key in the n of w):
 * kept when its key and value are plain, each key once. */
static const char *keep_unknown(struct endpoint *e, const char *w, size_t k, size_t n)
{
	size_t used = strlen(e->extra);
	const char *p;

	if (k == 0 || k > 32 || !(w[0] >= 'a' && w[0] <= 'z') || n - k - 1 > 128)
		return "unknown KEY= word; the keys are type, speaks, model and key-env";
	for (size_t i = 0; i < n; i++)
		if (!bare_char(w[i]) || (i < k && !((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9') || w[i] == '-' || w[i] == '_')))
			return "unknown KEY= word; the keys are type, speaks, model and key-env";
	for (p = e->extra; *p; p += strcspn(p, " "), p += *p == ' ')
		if (strncmp(p, w, k + 1) == 0)
			return "a KEY= word given twice; keep one";
	if (used + (used ? 1 : 0) + n > EP_EXTRA_MAX)
		return "too many unknown KEY= words; remove the ones no version of cli-sandbox wrote";
	if (used)
		e->extra[used++] = ' ';
	memcpy(e->extra + used, w, n);
	e->extra[used + n] = '\0';
	return NULL;
}

/* One key=value word after the URL. */
static const char *parse_attr(struct endpoint *e, const char *w, size_t n, unsigned *seen)
{
	const char *eq = memchr(w, '=', n);
	size_t k, vn;
	const char *v;

	if (!eq)
		return "a word after the URL is not KEY=VALUE; write type=, speaks=, model= or key-env=";
	k = (size_t)(eq - w);
	v = eq + 1;
	vn = n - k - 1;
	/* each key once: a second would silently win over the first */
	unsigned bit = k == 4 && memcmp(w, "type", 4) == 0     ? 1u
		       : k == 6 && memcmp(w, "speaks", 6) == 0  ? 2u
		       : k == 5 && memcmp(w, "model", 5) == 0   ? 4u
		       : k == 7 && memcmp(w, "key-env", 7) == 0 ? 8u
								: 0u;
	if (*seen & bit)
		return "a KEY= word given twice; keep one";
	*seen |= bit;
	if (k == 4 && memcmp(w, "type", 4) == 0) {
		if (!valid_type(v, vn))
			return "bad type=; use anthropic, openai, ollama or gemini";
		copy(e->type, v, vn);
	} else if (k == 6 && memcmp(w, "speaks", 6) == 0) {
		if (vn > 0 && !api_parse_list(v, vn, &e->speaks))
			return "bad speaks=; use a comma list of anthropic, chat, responses, ollama and gemini";
		e->has_speaks = true;
	} else if (k == 5 && memcmp(w, "model", 5) == 0) {
		if (!valid_model(v, vn))
			return "bad model=; a model name is letters, digits and . _ : / @ + - (at most 128), starting with a letter or digit";
		copy(e->model, v, vn);
	} else if (k == 7 && memcmp(w, "key-env", 7) == 0) {
		if (!valid_key_env(v, vn))
			return "bad key-env=; give the NAME of the variable that holds the key, e.g. key-env=OPENAI_API_KEY";
		copy(e->key_env, v, vn);
	} else {
		return keep_unknown(e, w, k, n);
	}
	return NULL;
}

/* One line (without its newline): NULL when it is good, else why not. */
static const char *parse_line(const char *s, size_t n, struct endpoint *e, bool *empty, struct cs_error *uerr)
{
	size_t words = 0;
	unsigned seen = 0;

	memset(e, 0, sizeof(*e));
	*empty = false;
	for (size_t i = 0; i < n;) {
		size_t start, len;

		while (i < n && blank(s[i]))
			i++;
		if (i == n)
			break;
		if (words == 0 && s[i] == '#') {
			*empty = true;
			return NULL;
		}
		start = i;
		while (i < n && !blank(s[i]))
			i++;
		len = i - start;
		if (words == 0) {
			if (!valid_endpoint_name(s + start, len))
				return "bad endpoint name; use letters, digits, '-', '_' and '.', starting with a letter or digit (at most 63)";
			copy(e->name, s + start, len);
		} else if (words == 1) {
			if (check_url(s + start, len, uerr) != 0)
				return uerr->msg;
			copy(e->url, s + start, len);
		} else {
			const char *why = parse_attr(e, s + start, len, &seen);
			if (why)
				return why;
		}
		words++;
	}
	if (words == 0)
		*empty = true;
	else if (words == 1)
		return "a name without a URL; each line is NAME URL [key=value ...]";
	return NULL;
}

int endpoints_parse(const char *text, size_t n, const char *path, struct endpoints *out, struct cs_error *err)
{
	size_t line = 0;

	out->n = 0;
	if (memchr(text, '\0', n)) {
		return cs_fail(err, CS_EXIT_CONFIG, "%s holds a NUL byte: it is not an endpoints file; fix or remove it", path);
	}
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (text + i)) : n - i;
		struct endpoint e;
		struct cs_error uerr;
		const char *why;
		bool empty;

		size_t next = i + len + (nl ? 1 : 0);

		line++;
		if (len > 0 && text[i + len - 1] == '\r')
			len--;
		why = parse_line(text + i, len, &e, &empty, &uerr);
		i = next;
		if (why) {
			out->n = 0;
			return cs_fail(err, CS_EXIT_CONFIG, "%s line %zu: %s (edit that line or remove it with cli-sandbox endpoints rm)",
				       path, line, why);
		}
		if (empty)
			continue;
		for (size_t k = 0; k < out->n; k++)
			if (strcmp(out->e[k].name, e.name) == 0) {
				out->n = 0;
				return cs_fail(err, CS_EXIT_CONFIG, "%s line %zu: a second endpoint named like an earlier one; remove one of the two lines",
					       path, line);
			}
		if (out->n == EP_MAX) {
			out->n = 0;
			return cs_fail(err, CS_EXIT_CONFIG, "%s line %zu: more than %d endpoints; remove some", path, line, EP_MAX);
		}
		out->e[out->n++] = e;
	}
	return 0;
}

int endpoints_load(const char *path, struct endpoints *out, struct cs_error *err)
{
	struct stat st;
	char *buf;
	ssize_t got;
	size_t have = 0;
	int fd, rc;

	out->n = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return cs_fail(err, CS_EXIT_CONFIG, "cannot open %s: %s; check it is a file you can read", path, strerror(errno));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > FILE_MAX) {
		close(fd);
		return cs_fail(err, CS_EXIT_CONFIG, "%s is not a regular file under 1 MiB: move it away and add the endpoints again", path);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return cs_fail(err, CS_EXIT_OSERR, "out of memory reading %s", path);
	}
	while (have < (size_t)st.st_size && (got = read(fd, buf + have, (size_t)st.st_size - have)) > 0)
		have += (size_t)got;
	close(fd);
	rc = endpoints_parse(buf, have, path, out, err);
	free(buf);
	return rc;
}

bool endpoint_format(const struct endpoint *e, char *out, size_t len)
{
	char speaks[128];
	int n;

	api_format_list(e->speaks, speaks, sizeof(speaks));
	n = snprintf(out, len, "%s %s%s%s%s%s%s%s%s%s%s%s", e->name, e->url, e->type[0] ? " type=" : "", e->type,
		     e->has_speaks ? " speaks=" : "", e->has_speaks ? speaks : "", e->model[0] ? " model=" : "", e->model,
		     e->key_env[0] ? " key-env=" : "", e->key_env, e->extra[0] ? " " : "", e->extra);
	return n >= 0 && (size_t)n < len;
}

static int mkdir_parents(const char *path, struct cs_error *err)
{
	char dir[4096];
	char *slash;

	if (strlen(path) >= sizeof(dir))
		return cs_fail(err, CS_EXIT_CONFIG, "the path %s is too long; set CLI_SANDBOX_HOME to a shorter one", path);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return cs_fail(err, CS_EXIT_CONFIG, "cannot create %s: %s; check its parent's permissions", dir, strerror(errno));
		*p = '/';
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return cs_fail(err, CS_EXIT_CONFIG, "cannot create %s: %s; check its parent's permissions or set CLI_SANDBOX_HOME", dir,
			       strerror(errno));
	return 0;
}

int write_file_atomic(const char *path, const char *text, size_t n, struct cs_error *err)
{
	char tmp[4200];
	int fd;
	bool ok;

	if (mkdir_parents(path, err) != 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return cs_fail(err, CS_EXIT_CONFIG, "cannot write %s: %s; check the folder's permissions", tmp, strerror(errno));
	ok = write(fd, text, n) == (ssize_t)n && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return cs_fail(err, CS_EXIT_CONFIG, "cannot replace %s: %s; check the folder's permissions", path, strerror(errno));
	}
	return 0;
}

int endpoints_save(const char *path, const struct endpoints *eps, struct cs_error *err)
{
	size_t cap = eps->n * 1024 + 1, used = 0;
	char *text = malloc(cap);
	int rc;

	if (!text)
		return cs_fail(err, CS_EXIT_OSERR, "out of memory writing %s", path);
	text[0] = '\0';
	for (size_t i = 0; i < eps->n; i++) {
		if (!endpoint_format(&eps->e[i], text + used, cap - used - 1)) {
			free(text);
			return cs_fail(err, CS_EXIT_CONFIG, "endpoint %s does not fit one line; remove it", eps->e[i].name);
		}
		used += strlen(text + used);
		text[used++] = '\n';
	}
	rc = write_file_atomic(path, text, used, err);
	free(text);
	return rc;
}

struct endpoint *endpoints_find(struct endpoints *eps, const char *name)
{
	for (size_t i = 0; i < eps->n; i++)
		if (strcmp(eps->e[i].name, name) == 0)
			return &eps->e[i];
	return NULL;
}

bool endpoints_remove(struct endpoints *eps, const char *name)
{
	for (size_t i = 0; i < eps->n; i++)
		if (strcmp(eps->e[i].name, name) == 0) {
			memmove(&eps->e[i], &eps->e[i + 1], (eps->n - i - 1) * sizeof(eps->e[0]));
			eps->n--;
			return true;
		}
	return false;
}

int endpoints_put(struct endpoints *eps, const struct endpoint *e, struct cs_error *err)
{
	endpoints_remove(eps, e->name);
	if (eps->n == EP_MAX)
		return cs_fail(err, CS_EXIT_CONFIG, "already %d endpoints; remove one with cli-sandbox endpoints rm NAME", EP_MAX);
	eps->e[eps->n++] = *e;
	return 0;
}

int endpoints_remove_raw(const char *path, const char *name, bool *found, struct cs_error *err)
{
	size_t nlen = strlen(name), used = 0;
	char *text, *out, *line, *save = NULL;
	FILE *f = fopen(path, "re");
	long size;
	int rc;

	*found = false;
	if (!f)
		return cs_fail(err, CS_EXIT_CONFIG, "cannot open %s: %s; check it is a file you can read", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || size > FILE_MAX || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return cs_fail(err, CS_EXIT_CONFIG, "%s is not a regular file under 1 MiB: move it away and add the endpoints again", path);
	}
	text = calloc(1, (size_t)size + 1);
	out = calloc(1, (size_t)size + 2);
	if (!text || !out || fread(text, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(text);
		free(out);
		return cs_fail(err, CS_EXIT_OSERR, "cannot read %s", path);
	}
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *w = line + strspn(line, " \t");

		if (strncmp(w, name, nlen) == 0 && (w[nlen] == '\0' || blank(w[nlen]) || w[nlen] == '\r')) {
			*found = true;
			continue;
		}
		used += (size_t)sprintf(out + used, "%s\n", line);
	}
	rc = *found ? write_file_atomic(path, out, used, err) : 0;
	free(text);
	free(out);
	return rc;
}
