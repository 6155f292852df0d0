#include "profiles/profile.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/json_file.h"

#define PROFILE_MAX_BYTES (1u << 20)
#define WHERE_PATH_MAX 128

/* Where in the document a value is ("clis.pi.domains[2].ports"), for messages. */
struct where {
	const char *source;
	char path[WHERE_PATH_MAX];
	struct cs_error *err;
};

static int bad(const struct where *w, const char *what)
{
	return cs_fail(w->err, CS_EXIT_CONFIG, "%s: %s %s; fix the profile (format: docs/interactive.md)",
		       w->source, w->path, what);
}

/* A path that does not fit is cut short: it only serves messages. */
__attribute__((format(printf, 2, 3)))
static void path_fmt(char *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, WHERE_PATH_MAX, fmt, ap);
	va_end(ap);
}

static struct where sub(const struct where *w, const char *key, long index)
{
	struct where s = *w;

	if (index >= 0)
		path_fmt(s.path, "%s[%ld]", w->path, index);
	else
		path_fmt(s.path, "%s%s%s", w->path, w->path[0] ? "." : "", key ? key : "");
	return s;
}

/* Refuses keys outside allowed: a typo must not silently drop an entry.
 * "comment" and "why" are documentation and must be strings. */
static int only_keys(const struct where *w, json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return bad(w, "is not an object");
	json_object_foreach(obj, key, v) {
		bool ok = false;

		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(key, *a) == 0;
		if (!ok) {
			struct where k = sub(w, key, -1);

			return bad(&k, "is not a known key");
		}
		if ((strcmp(key, "comment") == 0 || strcmp(key, "why") == 0) && !json_is_string(v)) {
			struct where k = sub(w, key, -1);

			return bad(&k, "is not a string");
		}
	}
	return 0;
}

/* A string of at most max-1 characters from [a-z0-9] and extra. */
static int token(const struct where *w, json_t *v, const char *extra, char *out, size_t max)
{
	const char *s = json_string_value(v);
	size_t n;

	if (!s)
		return bad(w, "is missing or not a string");
	n = strlen(s);
	if (n == 0 || n >= max)
		return bad(w, "is empty or too long");
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || strchr(extra, s[i])))
			return bad(w, "has a character outside a-z 0-9 and the allowed punctuation");
	memcpy(out, s, n + 1);
	return 0;
}

static int ports(const struct where *w, json_t *arr, uint16_t *out, size_t *n)
{
	json_t *v;
	size_t i;

	if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > PROFILE_MAX_PORTS)
		return bad(w, "must be a list of 1 to 8 ports");
	json_array_foreach(arr, i, v) {
		struct where e = sub(w, NULL, (long)i);
		json_int_t p = json_integer_value(v);

		if (!json_is_integer(v) || p < 1 || p > 65535)
			return bad(&e, "is not a port 1-65535");
		if (p == 53)
			return bad(&e, "is port 53, reserved for DNS to the resolv.conf nameservers");
		out[i] = (uint16_t)p;
	}
	*n = json_array_size(arr);
	return 0;
}

static int domain(const struct where *w, json_t *obj, struct profile_domain *d)
{
	static const char *const keys[] = { "name", "ports", "why", NULL };
	struct where k = sub(w, "name", -1);
	struct where pk = sub(w, "ports", -1);

	if (only_keys(w, obj, keys) || token(&k, json_object_get(obj, "name"), ".-", d->name, sizeof(d->name)))
		return -1;
	if (dns_name_valid(d->name, strlen(d->name)))
		return bad(&k, "is not a valid DNS name");
	return ports(&pk, json_object_get(obj, "ports"), d->ports, &d->n_ports);
}

/* A data file name inside the profile directory: no path, no hidden file. */
static int file_name(const struct where *w, json_t *v, char *out)
{
	if (token(w, v, "._-", out, PROFILE_FILE_MAX))
		return -1;
	if (out[0] == '.')
		return bad(w, "must be a plain file name not starting with '.'");
	return 0;
}

static int ranges(const struct where *w, json_t *obj, struct profile_ranges *r)
{
	static const char *const keys[] = { "file", "format", "lists", "minus", "ports", "why", NULL };
	struct where fk = sub(w, "file", -1), mk = sub(w, "format", -1);
	struct where lk = sub(w, "lists", -1), xk = sub(w, "minus", -1), pk = sub(w, "ports", -1);
	const char *format;
	json_t *lists = json_object_get(obj, "lists"), *minus = json_object_get(obj, "minus"), *v;
	size_t i;

	if (only_keys(w, obj, keys) || file_name(&fk, json_object_get(obj, "file"), r->file))
		return -1;
	format = json_string_value(json_object_get(obj, "format"));
	if (format && strcmp(format, "github-meta") == 0)
		r->format = PROFILE_RANGES_GITHUB_META;
	else if (format && strcmp(format, "google") == 0)
		r->format = PROFILE_RANGES_GOOGLE;
	else
		return bad(&mk, "must be \"github-meta\" or \"google\"");
	if (r->format == PROFILE_RANGES_GITHUB_META) {
		if (!json_is_array(lists) || json_array_size(lists) == 0 || json_array_size(lists) > PROFILE_MAX_LISTS)
			return bad(&lk, "must list 1 to 8 lists of the meta document (such as \"web\", \"api\", \"git\")");
		json_array_foreach(lists, i, v) {
			struct where e = sub(&lk, NULL, (long)i);

			if (token(&e, v, "_", r->lists[i], PROFILE_NAME_MAX))
				return -1;
		}
		r->n_lists = json_array_size(lists);
	} else if (lists) {
		return bad(&lk, "applies to the github-meta format only");
	}
	if (minus && file_name(&xk, minus, r->minus))
		return -1;
	return ports(&pk, json_object_get(obj, "ports"), r->ports, &r->n_ports);
}

static int section(const struct where *w, json_t *obj, const char *name, struct profile_section *s)
{
	static const char *const keys[] = { "comment", "domains", "ranges", NULL };
	json_t *domains = json_object_get(obj, "domains"), *rs = json_object_get(obj, "ranges"), *v;
	struct where dk = sub(w, "domains", -1), rk = sub(w, "ranges", -1);
	size_t i;

	snprintf(s->name, sizeof(s->name), "%s", name);
	if (only_keys(w, obj, keys))
		return -1;
	if (domains && !json_is_array(domains))
		return bad(&dk, "is not a list");
	if (rs && !json_is_array(rs))
		return bad(&rk, "is not a list");
	s->domains = calloc(json_array_size(domains) + 1, sizeof(*s->domains));
	s->ranges = calloc(json_array_size(rs) + 1, sizeof(*s->ranges));
	if (!s->domains || !s->ranges)
		return cs_fail(w->err, CS_EXIT_OSERR, "out of memory reading the profile");
	json_array_foreach(domains, i, v) {
		struct where e = sub(&dk, NULL, (long)i);

		if (domain(&e, v, &s->domains[i]))
			return -1;
		s->n_domains++;
	}
	json_array_foreach(rs, i, v) {
		struct where e = sub(&rk, NULL, (long)i);

		if (ranges(&e, v, &s->ranges[i]))
			return -1;
		s->n_ranges++;
	}
	return 0;
}

static int parse_root(json_t *root, struct where *w, struct profile *p)
{
	static const char *const keys[] = { "version", "comment", "common", "clis", NULL };
	json_t *common = json_object_get(root, "common"), *clis = json_object_get(root, "clis");
	json_t *empty = NULL, *v;
	const char *name;
	int rc;

	if (only_keys(w, root, keys))
		return -1;
	if (json_integer_value(json_object_get(root, "version")) != 1 || !json_is_integer(json_object_get(root, "version"))) {
		struct where k = sub(w, "version", -1);

		return bad(&k, "must be 1");
	}
	if (clis && !json_is_object(clis)) {
		struct where k = sub(w, "clis", -1);

		return bad(&k, "is not an object keyed by command name");
	}
	p->sections = calloc(json_object_size(clis) + 1, sizeof(*p->sections));
	if (!p->sections)
		return cs_fail(w->err, CS_EXIT_OSERR, "out of memory reading the profile");
	p->n_sections = 1;
	if (!common)
		common = empty = json_object();
	{
		struct where k = sub(w, "common", -1);

		rc = section(&k, common, "common", &p->sections[0]);
	}
	json_decref(empty);
	if (rc)
		return -1;
	json_object_foreach(clis, name, v) {
		struct where k = sub(w, "clis", -1);
		struct where e = sub(&k, name, -1);
		if (strlen(name) == 0 || strlen(name) >= PROFILE_NAME_MAX ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(name) ||
		    strcmp(name, "common") == 0)
			return bad(&e, "is not a usable command name (a-z 0-9 . _ -, not \"common\")");
		/* counted first, so profile_free() releases a half-read section */
		if (section(&e, v, name, &p->sections[p->n_sections++]))
			return -1;
	}
	return 0;
}

static int from_json(json_t *root, const char *source, struct profile *out,
		     struct cs_error *err)
{
	struct where w = { .source = source, .path = "", .err = err };

	memset(out, 0, sizeof(*out));
	snprintf(out->source, sizeof(out->source), "%s", source);
	if (!json_is_object(root))
		return cs_fail(err, CS_EXIT_CONFIG, "%s is not a JSON object; fix the profile (format: docs/interactive.md)", source);
	if (parse_root(root, &w, out)) {
		profile_free(out);
		return -1;
	}
	return 0;
}

int profile_parse(const char *text, size_t len, const char *source, struct profile *out,
		  struct cs_error *err)
{
	json_t *root;
	int rc;

	memset(out, 0, sizeof(*out));
	if (json_text_load(text, len, source, &root, err))
		return -1;
	rc = from_json(root, source, out, err);
	json_decref(root);
	return rc;
}

int profile_load(const char *dir, struct profile *out, struct cs_error *err)
{
	char path[PATH_MAX + 32];
	json_t *root;
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s", dir, PROFILE_OVERRIDE_FILE);
	rc = json_file_load(path, PROFILE_MAX_BYTES, &root, err);
	if (rc < 0)
		return -1;
	if (rc == 1)
		return profile_parse(profile_builtin_json, profile_builtin_json_len, "built-in profile", out, err);
	cs_info("using the profile %s instead of the built-in one", path);
	rc = from_json(root, path, out, err);
	json_decref(root);
	return rc;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->n_sections; i++) {
		free(p->sections[i].domains);
		free(p->sections[i].ranges);
	}
	free(p->sections);
	memset(p, 0, sizeof(*p));
}

const struct profile_section *profile_cli(const struct profile *p, const char *name)
{
	for (size_t i = 1; i < p->n_sections; i++)
		if (strcmp(p->sections[i].name, name) == 0)
			return &p->sections[i];
	return NULL;
}
