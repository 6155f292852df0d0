#include "profiles/ranges.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profiles/json_file.h"
#include "profiles/range_scan.h"

#define REFRESH_HINT "fix the entry or refresh the file with scripts/refresh-ranges"

void range_list_free(struct range_list *l)
{
	free(l->r);
	memset(l, 0, sizeof(*l));
}

int range_list_add(struct range_list *l, uint32_t first, uint32_t last)
{
	if (grow_array((void **)&l->r, &l->cap, l->n, sizeof(*l->r), 16))
		return -1;
	l->r[l->n].first = first;
	l->r[l->n].last = last;
	l->n++;
	return 0;
}

void range_list_normalise(struct range_list *l)
{
	l->n = ipv4_ranges_normalise(l->r, l->n);
}

int range_list_subtract(const struct range_list *a, const struct range_list *b,
			struct range_list *out)
{
	size_t j = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->n; i++) {
		/* 64 bits: the cursor steps past 255.255.255.255 */
		uint64_t cur = a->r[i].first, last = a->r[i].last;

		while (j < b->n && b->r[j].last < a->r[i].first)
			j++;
		for (size_t k = j; k < b->n && b->r[k].first <= last && cur <= last; k++) {
			if (b->r[k].first > cur &&
			    range_list_add(out, (uint32_t)cur, b->r[k].first - 1))
				goto oom;
			if ((uint64_t)b->r[k].last + 1 > cur)
				cur = (uint64_t)b->r[k].last + 1;
		}
		if (cur <= last && range_list_add(out, (uint32_t)cur, (uint32_t)last))
			goto oom;
	}
	return 0;
oom:
	range_list_free(out);
	return -1;
}

int range_list_remove_forbidden(struct range_list *l, bool *removed)
{
	struct range_list f = { 0 }, out;

	*removed = false;
	for (size_t i = 0; i < ipv4_n_forbidden_blocks; i++)
		if (range_list_add(&f, ipv4_forbidden_blocks[i].range.first, ipv4_forbidden_blocks[i].range.last)) {
			range_list_free(&f);
			return -1;
		}
	range_list_normalise(&f);
	if (range_list_subtract(l, &f, &out)) {
		range_list_free(&f);
		return -1;
	}
	range_list_free(&f);
	/* Subtraction only removes: equal counts and equal bounds mean no cut. */
	*removed = out.n != l->n;
	for (size_t i = 0; !*removed && i < out.n; i++)
		*removed = out.r[i].first != l->r[i].first || out.r[i].last != l->r[i].last;
	range_list_free(l);
	*l = out;
	return 0;
}

/* One prefix string of a provider list (not NUL-terminated): an IPv4
 * prefix, added masked; IPv6 skipped. */
static int add_prefix(const char *path, const char *where, size_t index, const char *s, size_t n,
		      struct range_list *out, size_t *masked, struct cs_error *err)
{
	int shown = n > 60 ? 60 : (int)n;
	uint32_t addr;
	unsigned len;
	bool host_bits;
	struct ipv4_range r;

	if (memchr(s, ':', n))
		return 0;  /* IPv6: dropped by the firewall anyway */
	if (ipv4_prefix_parse(s, n, &addr, &len, &host_bits))
		return cs_fail(err, CS_EXIT_CONFIG, "%s: %s[%zu] '%.*s' is not an IPv4 prefix a.b.c.d/len; " REFRESH_HINT,
			       path, where, index, shown, s);
	if (len < RANGES_MIN_PREFIX_LEN)
		return cs_fail(err, CS_EXIT_CONFIG, "%s: %s[%zu] '%.*s' is wider than /%d, which no provider publishes; " REFRESH_HINT,
			       path, where, index, shown, s, RANGES_MIN_PREFIX_LEN);
	*masked += host_bits;
	r = ipv4_prefix_range(addr, len);
	if (range_list_add(out, r.first, r.last))
		return cs_fail(err, CS_EXIT_OSERR, "out of memory reading %s", path);
	return 0;
}

/* The same for a jansson value, which must be a string. */
static int add_entry(const char *path, const char *where, size_t index, json_t *v,
		     struct range_list *out, size_t *masked, struct cs_error *err)
{
	const char *s = json_string_value(v);

	if (!s)
		return cs_fail(err, CS_EXIT_CONFIG, "%s: %s[%zu] is not a string; " REFRESH_HINT, path, where, index);
	return add_prefix(path, where, index, s, strlen(s), out, masked, err);
}

/* The strings the fast scanner found (profiles/range_scan.h). */
static int add_scanned(const char *path, const char *where, const struct scan_list *l,
		       struct range_list *out, size_t *masked, struct cs_error *err)
{
	for (size_t i = 0; i < l->n; i++)
		if (add_prefix(path, where, l->v[i].index, l->v[i].s, l->v[i].len, out, masked, err))
			return -1;
	return 0;
}

static int finish(const char *path, size_t masked, struct range_list *out)
{
	if (masked)
		cs_warn("%s: %zu prefixes had host bits set; used their network address (e.g. 192.0.2.1/24 as 192.0.2.0/24)",
			path, masked);
	range_list_normalise(out);
	return 0;
}

/* The common end of a loader: normalise what was read, or free it on error. */
static int loaded(int rc, const char *path, size_t masked, json_t *root, struct range_list *out)
{
	if (rc == 0)
		finish(path, masked, out);
	json_decref(root);
	if (rc)
		range_list_free(out);
	return rc;
}

int ranges_load_github_meta(const char *path, const char *const *lists, size_t n_lists,
			    struct range_list *out, struct cs_error *err)
{
	json_t *root = NULL;
	struct scan_list *found;
	enum range_scan_result scanned;
	size_t masked = 0, len;
	char *text;
	int rc = json_file_read(path, RANGES_MAX_FILE_BYTES, &text, &len, err);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	/* The fast path first; jansson for whatever it leaves. */
	found = calloc(n_lists + 1, sizeof(*found));
	scanned = found ? range_scan_github(text, len, lists, n_lists, found) : RANGE_SCAN_NOMEM;
	if (scanned == RANGE_SCAN_OK) {
		for (size_t i = 0; i < n_lists && rc == 0; i++)
			rc = add_scanned(path, lists[i], &found[i], out, &masked, err);
		for (size_t i = 0; i < n_lists; i++)
			scan_list_free(&found[i]);
	}
	free(found);
	if (scanned == RANGE_SCAN_NOMEM)
		rc = cs_fail(err, CS_EXIT_OSERR, "out of memory reading %s", path);
	if (scanned != RANGE_SCAN_FALLBACK) {
		free(text);
		return loaded(rc, path, masked, NULL, out);
	}
	rc = json_text_load(text, len, path, &root, err);
	free(text);
	if (rc)
		return rc;
	if (!json_is_object(root)) {
		rc = cs_fail(err, CS_EXIT_CONFIG, "%s is not a GitHub meta document (a JSON object with \"web\", \"api\", \"git\" lists); " REFRESH_HINT, path);
		goto out;
	}
	for (size_t i = 0; i < n_lists && rc == 0; i++) {
		json_t *list = json_object_get(root, lists[i]);
		json_t *v;
		size_t k;

		if (!json_is_array(list)) {
			rc = cs_fail(err, CS_EXIT_CONFIG, "%s has no \"%s\" list of prefixes; " REFRESH_HINT, path, lists[i]);
			break;
		}
		json_array_foreach(list, k, v) {
			rc = add_entry(path, lists[i], k, v, out, &masked, err);
			if (rc)
				break;
		}
	}
out:
	return loaded(rc, path, masked, root, out);
}

int ranges_load_google(const char *path, struct range_list *out, struct cs_error *err)
{
	json_t *root = NULL, *prefixes, *e;
	struct scan_list found;
	enum range_scan_result scanned;
	size_t masked = 0, k, len;
	char *text;
	int rc = json_file_read(path, RANGES_MAX_FILE_BYTES, &text, &len, err);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	/* The fast path first; jansson for whatever it leaves. */
	scanned = range_scan_google(text, len, &found);
	if (scanned == RANGE_SCAN_OK) {
		rc = add_scanned(path, "prefixes", &found, out, &masked, err);
		scan_list_free(&found);
	} else if (scanned == RANGE_SCAN_NOMEM) {
		rc = cs_fail(err, CS_EXIT_OSERR, "out of memory reading %s", path);
	}
	if (scanned != RANGE_SCAN_FALLBACK) {
		free(text);
		return loaded(rc, path, masked, NULL, out);
	}
	rc = json_text_load(text, len, path, &root, err);
	free(text);
	if (rc)
		return rc;
	prefixes = json_object_get(root, "prefixes");
	if (!json_is_array(prefixes)) {
		rc = cs_fail(err, CS_EXIT_CONFIG, "%s has no \"prefixes\" list (Google's {\"prefixes\":[{\"ipv4Prefix\":...}]} format); " REFRESH_HINT, path);
		goto out;
	}
	json_array_foreach(prefixes, k, e) {
		json_t *v4 = json_object_get(e, "ipv4Prefix");

		if (!json_is_object(e)) {
			rc = cs_fail(err, CS_EXIT_CONFIG, "%s: prefixes[%zu] is not an object; " REFRESH_HINT, path, k);
			break;
		}
		if (v4) {
			rc = add_entry(path, "prefixes", k, v4, out, &masked, err);
		} else if (!json_is_string(json_object_get(e, "ipv6Prefix"))) {
			rc = cs_fail(err, CS_EXIT_CONFIG, "%s: prefixes[%zu] has neither \"ipv4Prefix\" nor \"ipv6Prefix\"; " REFRESH_HINT, path, k);
		}
		if (rc)
			break;
	}
out:
	return loaded(rc, path, masked, root, out);
}
