#include "hostctl/demo_judge.h"
#include "hostctl/printable.h"

#include <stdlib.h>
#include <string.h>

static const char init_blocked[] = "cli-sandbox-init: blocked: ";
static const char init_firewall[] = "cli-sandbox-init: firewall up: ";
static const char redacted[] = "(the key's value)";

struct span {
	const char *s;
	size_t n;
};

/* The line of t at *pos, without its '\n'; false past the end. */
static bool next_line(const struct demo_text *t, size_t *pos, struct span *line)
{
	const char *nl;

	if (*pos >= t->n)
		return false;
	line->s = t->s + *pos;
	nl = memchr(line->s, '\n', t->n - *pos);
	line->n = nl ? (size_t)(nl - line->s) : t->n - *pos;
	*pos += line->n + 1;
	return true;
}

/* Whether l starts with prefix; then l is what follows it. */
static bool take(struct span *l, const char *prefix)
{
	size_t k = strlen(prefix);

	if (l->n < k || memcmp(l->s, prefix, k) != 0)
		return false;
	l->s += k;
	l->n -= k;
	return true;
}

static bool same(struct span l, const char *s)
{
	return l.n == strlen(s) && memcmp(l.s, s, l.n) == 0;
}

static bool contains(struct span hay, const char *needle, size_t n)
{
	return n > 0 && hay.n >= n && memmem(hay.s, hay.n, needle, n) != NULL;
}

/* What the sandbox wrote, for the screen: printable ASCII and tabs (each
 * other byte '?', so no escape sequence reaches the terminal and the JSON
 * is always UTF-8; /proc/self/status's tabs stay), the key's value (as it would show) replaced by "(the key's
 * value)".  NULL when out of memory. */
static char *shown(struct span s, const char *key)
{
	size_t kn = strlen(key), n = 0;
	char *p = malloc(s.n + 1), *k = malloc(kn + 1), *out = NULL;
	FILE *f = NULL;

	if (!p || !k)
		goto done;
	memcpy(p, s.s, s.n);
	memcpy(k, key, kn);
	printable_in_place(p, s.n, true);
	printable_in_place(k, kn, true);
	f = open_memstream(&out, &n);
	if (!f)
		goto done;
	for (size_t i = 0; i < s.n;) {
		if (kn > 0 && s.n - i >= kn && memcmp(p + i, k, kn) == 0) {
			fputs(redacted, f);
			i += kn;
		} else {
			fputc(p[i++], f);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		out = NULL;
	}
done:
	free(p);
	free(k);
	return out;
}

json_t *demo_jstr(const char *s)
{
	json_t *j = json_string(s);
	char *p;

	if (j || !s)
		return j;
	p = strdup(s);
	if (!p)
		return NULL;
	printable_in_place(p, strlen(p), true);
	j = json_string(p);
	free(p);
	return j;
}

/* A step's detail, written with fprintf. */
struct detail {
	char *s;
	size_t n;
	FILE *f;
};

static bool detail_open(struct detail *d)
{
	d->s = NULL;
	d->f = open_memstream(&d->s, &d->n);
	return d->f != NULL;
}

/* Closes d and appends the step; false when out of memory. */
static bool add_step(json_t *steps, const char *name, bool ok, struct detail *d)
{
	bool done = fclose(d->f) == 0 && d->s;
	json_t *detail = done ? demo_jstr(d->s) : NULL;

	free(d->s);
	return detail && json_array_append_new(steps, json_pack("{s:s, s:b, s:o}", "name", name, "ok", ok, "detail", detail)) == 0;
}

/* 1. hello.txt, on the host, and its owner. */
static bool judge_written(const struct demo_run *r, json_t *steps)
{
	struct detail d;
	bool ok = r->hello_ok && r->hello_uid == r->owner;

	if (!detail_open(&d))
		return false;
	if (!r->hello_ok)
		fprintf(d.f, "no %s/hello.txt with the model's text: the agent did not write it (see %s/cli.err with --keep)", r->workspace, r->folder);
	else if (ok)
		fprintf(d.f, "%s/hello.txt is on the host, owned by uid %lu%s", r->workspace, r->hello_uid,
			r->as_root ? " (the sandbox user: run as root)" : " (you)");
	else
		fprintf(d.f, "%s/hello.txt is owned by uid %lu, not uid %lu", r->workspace, r->hello_uid, r->owner);
	return add_step(steps, "written", ok, &d);
}

/* The digits after the last KEY (" rc=") of l that are followed by a
 * space (the runner's sed 's/.* rc=\([0-9]*\) .*'\/\1/'); empty when none. */
static struct span number_after(struct span l, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = l.n; i-- > 0;) {
		size_t j = i + k;

		if (l.n - i < k || memcmp(l.s + i, key, k) != 0)
			continue;
		while (j < l.n && l.s[j] >= '0' && l.s[j] <= '9')
			j++;
		if (j < l.n && l.s[j] == ' ')
			return (struct span){ l.s + i + k, j - i - k };
	}
	return (struct span){ "", 0 };
}

/* Milliseconds as a number, at most a billion; an empty one counts as
 * too long (the runner's ${_ms:-99999}). */
static unsigned long ms_value(struct span ms)
{
	unsigned long v = 0;

	if (ms.n == 0)
		return 99999;
	for (size_t i = 0; i < ms.n; i++)
		v = v >= 100000000 ? 1000000000 : v * 10 + (unsigned long)(ms.s[i] - '0');
	return v;
}

/* The first line of cli.err from the block log naming a refused TCP
 * connection to dest ("HOST:PORT"), after "cli-sandbox-init: blocked: ". */
static bool block_line(const struct demo_run *r, const char *dest, struct span *found)
{
	const char *colon = strrchr(dest, ':'), *first = strchr(dest, ':');
	char want[160];
	int w;
	size_t pos = 0;
	struct span l;

	if (!colon)
		return false;
	w = snprintf(want, sizeof(want), "refused tcp to %.*s port %s ", (int)(colon - dest), dest, first + 1);
	if (w < 0 || (size_t)w >= sizeof(want))
		return false;
	while (next_line(&r->cli_err, &pos, &l)) {
		if (take(&l, init_blocked) && contains(l, want, (size_t)w)) {
			*found = l;
			return true;
		}
	}
	return false;
}

/* 2. the connections: each failed at once (not the 5 s timeout).  A reset
 * ("Connection refused") is the firewall's, and must be in its block log;
 * "Network is unreachable" is the kernel's, before any firewall (the
 * broker's network is internal, with no route out).  The probe, on the
 * sandbox's own network, is routed, so the firewall must refuse it. */
static bool judge_refused(const struct demo_run *r, json_t *steps, json_t *blocked)
{
	const char *dests[] = { DEMO_OUTSIDE_1, DEMO_OUTSIDE_2, r->probe };
	struct detail d;
	bool ok = true;

	if (!detail_open(&d))
		return false;
	for (size_t i = 0; i < sizeof(dests) / sizeof(dests[0]); i++) {
		const char *dest = dests[i];
		char prefix[128];
		size_t pos = 0;
		struct span l, line = { NULL, 0 }, rc, ms, err, blk;
		const char *e;

		snprintf(prefix, sizeof(prefix), "connect %s rc=", dest);
		while (next_line(&r->model_log, &pos, &l))
			if (take(&l, "result connect | ") && l.n >= strlen(prefix) && memcmp(l.s, prefix, strlen(prefix)) == 0) {
				line = l;
				break;
			}
		fputs(i ? "; " : "", d.f);
		if (!line.s) {
			ok = false;
			fprintf(d.f, "%s: the model got no result", dest);
			continue;
		}
		rc = number_after(line, " rc=");
		ms = number_after(line, " ms=");
		e = memmem(line.s, line.n, " error=", 7);
		err = e ? (struct span){ e + 7, line.n - (size_t)(e + 7 - line.s) } : line;
		if (same(rc, "0") || same(rc, "124") || ms_value(ms) >= 2000) {
			ok = false;
			fprintf(d.f, "%s: not refused at once (rc %.*s, %.*s ms)", dest, (int)rc.n, rc.s, (int)ms.n, ms.s);
		} else if (same(err, "Network is unreachable") && strcmp(dest, r->probe) != 0) {
			fprintf(d.f, "%s: no route, in %.*s ms", dest, (int)ms.n, ms.s);
		} else if (!same(err, "Connection refused")) {
			char *s = shown(err, r->key);

			ok = false;
			if (!s)
				goto oom;
			fprintf(d.f, "%s: failed in %.*s ms with '%s', not the firewall's reset", dest, (int)ms.n, ms.s, s);
			free(s);
		} else if (!block_line(r, dest, &blk)) {
			ok = false;
			fprintf(d.f, "%s: refused in %.*s ms, but not in the block log", dest, (int)ms.n, ms.s);
		} else {
			char *s = shown(blk, r->key);

			if (!s || json_array_append_new(blocked, json_string(s)) != 0) {
				free(s);
				goto oom;
			}
			free(s);
			fprintf(d.f, "%s: refused by the firewall in %.*s ms", dest, (int)ms.n, ms.s);
		}
	}
	return add_step(steps, "refused", ok, &d);
oom:
	fclose(d.f);
	free(d.s);
	return false;
}

/* A character of a variable's name: [A-Za-z_], or [A-Za-z0-9_] after the first. */
static bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

/* 3. the environment: the key's value nowhere the sandbox or the run
 * showed it. */
static bool judge_no_key(const struct demo_run *r, json_t *steps)
{
	const char *what = r->key_yours ? "your key" : "the throwaway key";
	size_t pos = 0, kn = strlen(r->key), nn = 0;
	struct span l;
	bool begun = false, ok = false;
	char *names = NULL, *s;
	FILE *nf = open_memstream(&names, &nn);
	struct detail d;

	if (!nf)
		return false;
	/* The names of the variables `env | grep -i -e key -e token` printed. */
	while (next_line(&r->model_log, &pos, &l)) {
		size_t j = 0;

		if (take(&l, "result env begin"))
			begun = true;
		if (!take(&l, "result env | "))
			continue;
		while (j < l.n && name_char(l.s[j], j == 0))
			j++;
		if (j > 0 && j < l.n && l.s[j] == '=')
			fprintf(nf, "%.*s ", (int)j, l.s);
	}
	if (fclose(nf) != 0 || !names) {
		free(names);
		return false;
	}
	s = shown((struct span){ names, nn }, r->key);
	free(names);
	if (!s || !detail_open(&d)) {
		free(s);
		return false;
	}
	if (!begun) {
		fputs("the model got no result for 'env | grep -i -e key -e token'", d.f);
	} else if (kn == 0) {
		/* Fail closed: an empty value would be found nowhere. */
		fprintf(d.f, "%s is empty: there is no value of %s to search for", r->key_env, what);
	} else if (contains((struct span){ r->model_log.s, r->model_log.n }, r->key, kn) ||
		   contains((struct span){ r->cli_out.s, r->cli_out.n }, r->key, kn) ||
		   contains((struct span){ r->cli_err.s, r->cli_err.n }, r->key, kn)) {
		fprintf(d.f, "the value of %s reached the sandbox or the run's output", what);
	} else {
		ok = true;
		/* Each name followed by a space, "none " when there is none: the runner's tr '\n' ' '. */
		fprintf(d.f, "no value of %s (%s) in the sandbox's environment (its matching variables: %s; its credential is the key broker's run token)",
			what, r->key_env, s[0] ? s : "none ");
	}
	free(s);
	return add_step(steps, "no-key", ok, &d);
}

/* `grep Cap /proc/self/status`'s line for an empty set:
 * ^Cap(Inh|Prm|Eff|Bnd|Amb):[[:space:]]*0{16}$ */
static bool empty_cap_line(struct span l)
{
	static const char *const sets[] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:" };
	bool known = false;

	for (size_t i = 0; i < 5 && !known; i++)
		known = take(&l, sets[i]);
	if (!known)
		return false;
	while (l.n > 0 && (l.s[0] == ' ' || (l.s[0] >= '\t' && l.s[0] <= '\r'))) {
		l.s++;
		l.n--;
	}
	return same(l, "0000000000000000");
}

/* 4. identity and capabilities. */
static bool judge_capabilities(const struct demo_run *r, json_t *steps)
{
	char *id = NULL, uid[32], *s;
	size_t idn = 0, pos = 0;
	struct span l;
	int caps = 0;
	bool uid_ok = false, ok;
	FILE *f = open_memstream(&id, &idn);
	struct detail d;

	if (!f)
		return false;
	while (next_line(&r->model_log, &pos, &l))
		if (take(&l, "result identity | ")) {
			size_t k = (size_t)snprintf(uid, sizeof(uid), "uid=%lu", r->inside);

			caps += empty_cap_line(l);
			uid_ok = uid_ok || (l.n >= k && memcmp(l.s, uid, k) == 0 && (l.n == k || l.s[k] == '(' || l.s[k] == ' '));
			fwrite(l.s, 1, l.n, f);
			fputc('\n', f);
		}
	if (fclose(f) != 0 || !id || !detail_open(&d)) {
		free(id);
		return false;
	}
	/* As the runner's $(...) read it: without its last newlines, then one line. */
	while (idn > 0 && id[idn - 1] == '\n')
		idn--;
	for (size_t i = 0; i < idn; i++)
		if (id[i] == '\n')
			id[i] = ' ';
	ok = uid_ok && caps == 5;
	s = shown((struct span){ id, idn }, r->key);
	free(id);
	if (ok)
		fprintf(d.f, "uid %lu in the sandbox; CapInh, CapPrm, CapEff, CapBnd, CapAmb all 0", r->inside);
	else if (idn == 0)
		fputs("the model got no result for 'id; grep Cap /proc/self/status'", d.f);
	else if (s)
		fprintf(d.f, "expected uid %lu and every capability set 0; got: %s", r->inside, s);
	if (!s) {
		fclose(d.f);
		free(d.s);
		return false;
	}
	free(s);
	return add_step(steps, "capabilities", ok, &d);
}

/* 5. the ruleset the init programmed: the hex after the last " sha256=" of
 * the first "firewall up" line (empty there: no digest). */
static bool judge_ruleset(const struct demo_run *r, json_t *steps, json_t *verdict)
{
	size_t pos = 0;
	struct span l, hex = { "", 0 };
	struct detail d;

	while (next_line(&r->cli_err, &pos, &l)) {
		const char *at = NULL;

		if (!take(&l, init_firewall))
			continue;
		for (const char *p = l.s; (p = memmem(p, l.n - (size_t)(p - l.s), " sha256=", 8)) != NULL; p++)
			at = p;
		if (!at)
			continue;
		hex.s = at + 8;
		while (hex.s + hex.n < l.s + l.n && ((hex.s[hex.n] >= '0' && hex.s[hex.n] <= '9') || (hex.s[hex.n] >= 'a' && hex.s[hex.n] <= 'f')))
			hex.n++;
		break;
	}
	if (json_object_set_new(verdict, "ruleset_sha256", json_stringn(hex.s, hex.n)) != 0 || !detail_open(&d))
		return false;
	if (hex.n)
		fprintf(d.f, "sha256 %.*s (the init's 'firewall up' line)", (int)hex.n, hex.s);
	else
		fputs("no 'firewall up' line from the init in the run's output", d.f);
	return add_step(steps, "ruleset", hex.n > 0, &d);
}

json_t *demo_judge(const struct demo_run *r)
{
	json_t *steps = json_array(), *blocked = json_array(), *v = json_object(), *s;
	bool ok = true;
	size_t i;

	if (!steps || !blocked || !v || json_object_set_new(v, "ok", json_true()) != 0 ||
	    !judge_written(r, steps) || !judge_refused(r, steps, blocked) || !judge_no_key(r, steps) ||
	    !judge_capabilities(r, steps) || !judge_ruleset(r, steps, v) ||
	    json_object_set(v, "blocked", blocked) != 0 || json_object_set(v, "steps", steps) != 0) {
		json_decref(steps);
		json_decref(blocked);
		json_decref(v);
		return NULL;
	}
	json_array_foreach (steps, i, s)
		ok = ok && json_is_true(json_object_get(s, "ok"));
	json_object_set_new(v, "ok", json_boolean(ok));
	json_decref(steps);
	json_decref(blocked);
	return v;
}
