#include "hostctl/limits.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole number of digits only, not starting with 0, that fits. */
static bool whole(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '0' || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

int size_to_mib(const char *s, unsigned long long *mib)
{
	char digits[32];
	size_t n = strlen(s);
	unsigned long long v, mul = 1, div = 1;
	char *end;

	if (n > 0 && (s[n - 1] == 'b' || s[n - 1] == 'B'))
		n--;
	if (n > 0 && strchr("kKmMgG", s[n - 1])) {
		char u = (char)(s[n - 1] | 0x20);
		mul = u == 'g' ? 1024 : 1;
		div = u == 'k' ? 1024 : 1;
		n--;
	} else {
		div = 1048576;
	}
	if (n == 0 || n >= sizeof(digits))
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (strspn(digits, "0123456789") != n)
		return -1;
	errno = 0;
	v = strtoull(digits, &end, 10);
	if (errno != 0 || v > ~0ULL / mul)
		return -1;
	*mib = v * mul / div;
	return 0;
}

static const char *pick(const char *opt, const char *dflt)
{
	return opt && *opt ? opt : dflt;
}

int limits_compute(const struct limits_in *in, struct limits *out, struct cs_error *err)
{
	char dflt[32];
	const char *v;
	unsigned long long hard = in->nofile_hard;
	double cpus;
	char *end;

	memset(out, 0, sizeof(*out));
	v = pick(in->pids, "4096");
	if (!whole(v, &out->pids))
		return cs_fail(err, CS_EXIT_CONFIG, "bad --pids-limit '%s': use a whole number of processes, e.g. 4096", v);
	if (out->pids < 64)
		return cs_fail(err, CS_EXIT_CONFIG, "--pids-limit %s is too low for the CLIs (node alone runs a dozen threads): use at least 64", v);
	/* Half of the host's memory, at most 8 GiB; the same for memory plus swap: no swap on top. */
	snprintf(dflt, sizeof(dflt), "%llum", in->host_mib / 2 > 8192 ? 8192 : in->host_mib / 2);
	v = pick(in->memory, dflt);
	if (size_to_mib(v, &out->mem_mib) != 0)
		return cs_fail(err, CS_EXIT_CONFIG, "bad --memory '%s': use a whole number with k, m or g, e.g. 4g or 512m", v);
	if (out->mem_mib < 64)
		return cs_fail(err, CS_EXIT_CONFIG, "--memory '%s' is under 64 MiB, too little for the CLIs: use e.g. 4g", v);
	/* All cores but one, so the host keeps one for itself; at least one. */
	snprintf(dflt, sizeof(dflt), "%llu", in->host_cpus > 1 ? in->host_cpus - 1 : 1);
	v = pick(in->cpus, dflt);
	if (!*v || strspn(v, "0123456789.") != strlen(v) || v[0] == '.' || v[strlen(v) - 1] == '.' ||
	    (strchr(v, '.') && strchr(v, '.') != strrchr(v, '.')) || strlen(v) >= sizeof(out->cpus))
		return cs_fail(err, CS_EXIT_CONFIG, "bad --cpus '%s': use a number of CPUs, e.g. 2 or 1.5", v);
	cpus = strtod(v, &end);
	if (cpus < 0.01 || cpus > (double)in->host_cpus)
		return cs_fail(err, CS_EXIT_CONFIG, "--cpus %s is not between 0.01 and the %llu CPUs of this host: use e.g. %llu", v,
			       in->host_cpus, in->host_cpus);
	snprintf(out->cpus, sizeof(out->cpus), "%s", v);
	/* Open files: what node and codex's tokio ask for, within the hard limit, above which an
	 * engine's runtime started from here cannot set it (runc: error setting rlimit type 7). */
	snprintf(dflt, sizeof(dflt), "%llu", hard && hard < 65536 ? hard : 65536);
	v = pick(in->nofile, dflt);
	if (!whole(v, &out->nofile))
		return cs_fail(err, CS_EXIT_CONFIG, "bad --nofile '%s': use a whole number of files, e.g. 65536", v);
	if (out->nofile < 1024)
		return cs_fail(err, CS_EXIT_CONFIG, "--nofile %s is too low for npm and the CLIs: use at least 1024", v);
	/* /tmp in memory: 1 GiB, at most a quarter of the memory limit, which its pages count against. */
	snprintf(dflt, sizeof(dflt), "%llum", out->mem_mib / 4 > 1024 ? 1024 : out->mem_mib / 4);
	v = pick(in->tmp, dflt);
	if (size_to_mib(v, &out->tmp_mib) != 0)
		return cs_fail(err, CS_EXIT_CONFIG, "bad --tmp-size '%s': use a whole number with k, m or g, e.g. 4g or 512m", v);
	if (out->tmp_mib < 64)
		return cs_fail(err, CS_EXIT_CONFIG, "--tmp-size '%s' is under 64 MiB, too little for the CLIs: use e.g. 4g", v);
	if (out->tmp_mib > out->mem_mib)
		return cs_fail(err, CS_EXIT_CONFIG, "--tmp-size %llum is more than --memory %llum, which /tmp's pages count against: lower it or raise --memory",
			       out->tmp_mib, out->mem_mib);
	return 0;
}

void limits_text(const struct limits *l, char *out, size_t len)
{
	snprintf(out, len, "processes %llu, memory %llum (no swap on top), CPUs %s, open files %llu, /tmp %llum in memory",
		 l->pids, l->mem_mib, l->cpus, l->nofile, l->tmp_mib);
}
