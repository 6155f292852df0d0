#include "profiles/range_scan.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

#define MAX_DEPTH 32
#define MAX_KEYS 64          /* keys per object checked for duplicates */
#define MAX_INT_DIGITS 18    /* always fits jansson's json_int_t */
#define MAX_LISTS 16

/* What the value being read is to the loader. */
enum role {
	R_SKIP,        /* only checked */
	R_GH_ROOT,     /* GitHub: the top-level object */
	R_GH_LIST,     /* GitHub: a list asked for; its strings are kept */
	R_GG_ROOT,     /* Google: the top-level object */
	R_GG_PREFIXES, /* Google: the "prefixes" array */
	R_GG_ENTRY,    /* Google: one element of it */
};

struct scanner {
	const char *p, *end;
	int depth;
	const char *const *lists;
	size_t n_lists;
	struct scan_list *out;
	int status;            /* RANGE_SCAN_*: the first problem wins */
	bool seen_target;      /* the root held what the loader needs */
	bool present[MAX_LISTS];  /* GitHub: which lists asked for were there */
	/* the Google entry being read */
	struct scan_str v4;
	bool has_v4, has_v6;
};

static bool fail(struct scanner *sc, int status)
{
	if (sc->status == RANGE_SCAN_OK)
		sc->status = status;
	return false;
}

/* Byte classes: JSON whitespace, and the bytes a plain string may hold
 * (printable ASCII but '"' and '\\'). */
enum { C_WS = 1, C_PLAIN = 2 };
static unsigned char byte_class[256];

static void classes(void)
{
	if (byte_class[' '])
		return;
	for (int c = 0x20; c <= 0x7e; c++)
		byte_class[c] = C_PLAIN;
	byte_class['"'] = byte_class['\\'] = 0;
	byte_class[' '] |= C_WS;
	byte_class['\n'] = byte_class['\r'] = byte_class['\t'] = C_WS;
}

static void ws(struct scanner *sc)
{
	while (sc->p < sc->end && (byte_class[(unsigned char)*sc->p] & C_WS))
		sc->p++;
}

static bool push(struct scanner *sc, struct scan_list *l, struct scan_str s)
{
	if (grow_array((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 256))
		return fail(sc, RANGE_SCAN_NOMEM);
	l->v[l->n++] = s;
	return true;
}

/* A string of printable ASCII without escapes; anything else is left to
 * jansson (escapes, UTF-8, control characters). */
static bool string(struct scanner *sc, struct scan_str *out)
{
	const char *s;

	if (sc->p >= sc->end || *sc->p != '"')
		return fail(sc, RANGE_SCAN_FALLBACK);
	s = ++sc->p;
	while (sc->p < sc->end && (byte_class[(unsigned char)*sc->p] & C_PLAIN))
		sc->p++;
	if (sc->p >= sc->end || *sc->p != '"')
		return fail(sc, RANGE_SCAN_FALLBACK);  /* escape, control, non-ASCII, or the end */
	out->s = s;
	out->len = (size_t)(sc->p - s);
	sc->p++;
	return true;
}

/* Integers only, of a size jansson takes; reals are left to jansson. */
static bool number(struct scanner *sc)
{
	const char *d;

	if (sc->p < sc->end && *sc->p == '-')
		sc->p++;
	d = sc->p;
	while (sc->p < sc->end && *sc->p >= '0' && *sc->p <= '9')
		sc->p++;
	if (sc->p == d || (*d == '0' && sc->p - d > 1) || sc->p - d > MAX_INT_DIGITS)
		return fail(sc, RANGE_SCAN_FALLBACK);
	if (sc->p < sc->end && (*sc->p == '.' || *sc->p == 'e' || *sc->p == 'E'))
		return fail(sc, RANGE_SCAN_FALLBACK);
	return true;
}

static bool literal(struct scanner *sc, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(sc->end - sc->p) < n || memcmp(sc->p, word, n) != 0)
		return fail(sc, RANGE_SCAN_FALLBACK);
	sc->p += n;
	return true;
}

static bool str_is(struct scan_str s, const char *want)
{
	return s.len == strlen(want) && memcmp(s.s, want, s.len) == 0;
}

static bool value(struct scanner *sc, enum role role);

/* The role of the value under key k of an object of role r. */
static enum role member_role(struct scanner *sc, enum role r, struct scan_str k, size_t *list)
{
	if (r == R_GH_ROOT) {
		for (size_t i = 0; i < sc->n_lists; i++)
			if (str_is(k, sc->lists[i])) {
				*list = i;
				return R_GH_LIST;
			}
	}
	if (r == R_GG_ROOT && str_is(k, "prefixes"))
		return R_GG_PREFIXES;
	return R_SKIP;
}

static bool object(struct scanner *sc, enum role role)
{
	struct scan_str keys[MAX_KEYS];
	size_t n = 0;

	sc->p++;  /* { */
	ws(sc);
	if (sc->p < sc->end && *sc->p == '}') {
		sc->p++;
		return true;
	}
	for (;;) {
		struct scan_str k, v;
		size_t list = 0;
		enum role mr;

		ws(sc);
		if (!string(sc, &k))
			return false;
		/* duplicate keys: jansson (JSON_REJECT_DUPLICATES) refuses them */
		if (n == MAX_KEYS)
			return fail(sc, RANGE_SCAN_FALLBACK);
		for (size_t i = 0; i < n; i++)
			if (keys[i].len == k.len && memcmp(keys[i].s, k.s, k.len) == 0)
				return fail(sc, RANGE_SCAN_FALLBACK);
		keys[n++] = k;
		ws(sc);
		if (sc->p >= sc->end || *sc->p != ':')
			return fail(sc, RANGE_SCAN_FALLBACK);
		sc->p++;
		ws(sc);
		mr = member_role(sc, role, k, &list);
		if (role == R_GG_ENTRY && (str_is(k, "ipv4Prefix") || str_is(k, "ipv6Prefix"))) {
			/* a prefix that is not a string is jansson's to report */
			if (!string(sc, &v))
				return fail(sc, RANGE_SCAN_FALLBACK);
			if (str_is(k, "ipv4Prefix")) {
				sc->v4 = v;
				sc->has_v4 = true;
			} else {
				sc->has_v6 = true;
			}
		} else if (mr == R_GH_LIST) {
			if (sc->p >= sc->end || *sc->p != '[')
				return fail(sc, RANGE_SCAN_FALLBACK);
			sc->seen_target = true;
			for (size_t i = list; i < sc->n_lists; i++)
				sc->present[i] = sc->present[i] || str_is(k, sc->lists[i]);
			sc->p++;
			ws(sc);
			if (sc->p < sc->end && *sc->p == ']') {
				sc->p++;
			} else {
				for (size_t at = 0;; at++) {
					ws(sc);
					if (!string(sc, &v))
						return false;
					v.index = at;
					/* a list named twice in the profile is read twice */
					for (size_t i = list; i < sc->n_lists; i++)
						if (str_is(k, sc->lists[i]) && !push(sc, &sc->out[i], v))
							return false;
					ws(sc);
					if (sc->p < sc->end && *sc->p == ',') {
						sc->p++;
						continue;
					}
					if (sc->p < sc->end && *sc->p == ']') {
						sc->p++;
						break;
					}
					return fail(sc, RANGE_SCAN_FALLBACK);
				}
			}
		} else if (!value(sc, mr)) {
			return false;
		}
		ws(sc);
		if (sc->p < sc->end && *sc->p == ',') {
			sc->p++;
			continue;
		}
		if (sc->p < sc->end && *sc->p == '}') {
			sc->p++;
			return true;
		}
		return fail(sc, RANGE_SCAN_FALLBACK);
	}
}

static bool array(struct scanner *sc, enum role role)
{
	enum role er = role == R_GG_PREFIXES ? R_GG_ENTRY : R_SKIP;

	sc->p++;  /* [ */
	ws(sc);
	if (sc->p < sc->end && *sc->p == ']') {
		sc->p++;
		return true;
	}
	for (size_t at = 0;; at++) {
		ws(sc);
		if (er == R_GG_ENTRY) {
			/* every element an object with a string ipv4Prefix or ipv6Prefix */
			if (sc->p >= sc->end || *sc->p != '{')
				return fail(sc, RANGE_SCAN_FALLBACK);
			sc->has_v4 = sc->has_v6 = false;
			if (!value(sc, R_GG_ENTRY))
				return false;
			sc->v4.index = at;
			if (sc->has_v4 ? !push(sc, &sc->out[0], sc->v4) : !sc->has_v6)
				return fail(sc, RANGE_SCAN_FALLBACK);
		} else if (!value(sc, er)) {
			return false;
		}
		ws(sc);
		if (sc->p < sc->end && *sc->p == ',') {
			sc->p++;
			continue;
		}
		if (sc->p < sc->end && *sc->p == ']') {
			sc->p++;
			return true;
		}
		return fail(sc, RANGE_SCAN_FALLBACK);
	}
}

static bool value(struct scanner *sc, enum role role)
{
	struct scan_str s;
	bool ok;

	if (sc->p >= sc->end)
		return fail(sc, RANGE_SCAN_FALLBACK);
	if (role == R_GG_PREFIXES) {
		if (*sc->p != '[')
			return fail(sc, RANGE_SCAN_FALLBACK);
		sc->seen_target = true;
	}
	if ((role == R_GH_ROOT || role == R_GG_ROOT || role == R_GG_ENTRY) && *sc->p != '{')
		return fail(sc, RANGE_SCAN_FALLBACK);
	if (++sc->depth > MAX_DEPTH)
		return fail(sc, RANGE_SCAN_FALLBACK);
	switch (*sc->p) {
	case '{': ok = object(sc, role); break;
	case '[': ok = array(sc, role); break;
	case '"': ok = string(sc, &s); break;
	case 't': ok = literal(sc, "true"); break;
	case 'f': ok = literal(sc, "false"); break;
	case 'n': ok = literal(sc, "null"); break;
	default: ok = number(sc); break;
	}
	sc->depth--;
	return ok;
}

static enum range_scan_result scan(struct scanner *sc, const char *text, size_t len, enum role root)
{
	classes();
	sc->p = text;
	sc->end = text + len;
	ws(sc);
	if (value(sc, root)) {
		ws(sc);
		if (sc->p != sc->end)
			fail(sc, RANGE_SCAN_FALLBACK);  /* trailing text */
	}
	if (sc->status == RANGE_SCAN_OK && !sc->seen_target)
		sc->status = RANGE_SCAN_FALLBACK;  /* the lists are missing: jansson's message */
	return (enum range_scan_result)sc->status;
}

enum range_scan_result range_scan_github(const char *text, size_t len, const char *const *lists,
					 size_t n_lists, struct scan_list *out)
{
	struct scanner sc = { .lists = lists, .n_lists = n_lists, .out = out };
	enum range_scan_result rc = RANGE_SCAN_FALLBACK;

	memset(out, 0, n_lists * sizeof(*out));
	if (n_lists <= MAX_LISTS) {
		rc = scan(&sc, text, len, R_GH_ROOT);
		/* every list asked for must be there (an empty one counts) */
		for (size_t i = 0; i < n_lists && rc == RANGE_SCAN_OK; i++)
			if (!sc.present[i])
				rc = RANGE_SCAN_FALLBACK;
	}
	if (rc != RANGE_SCAN_OK)
		for (size_t i = 0; i < n_lists; i++)
			scan_list_free(&out[i]);
	return rc;
}

enum range_scan_result range_scan_google(const char *text, size_t len, struct scan_list *out)
{
	struct scanner sc = { .out = out };
	enum range_scan_result rc;

	memset(out, 0, sizeof(*out));
	rc = scan(&sc, text, len, R_GG_ROOT);
	if (rc != RANGE_SCAN_OK)
		scan_list_free(out);
	return rc;
}

void scan_list_free(struct scan_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
