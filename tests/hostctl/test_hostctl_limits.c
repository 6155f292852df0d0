/* The run's limits (hostctl/limits.h): the defaults drawn from a host, the
 * options winning, every malformed or out-of-range value refused with one
 * line naming its option, and the sizes as the engines read them. */
#include <string.h>

#include "check.h"
#include "hostctl/limits.h"

static void sizes(void)
{
	static const struct {
		const char *s;
		int rc;
		unsigned long long mib;
	} t[] = {
		{ "4g", 0, 4096 },   { "4G", 0, 4096 },     { "512m", 0, 512 },   { "512mb", 0, 512 },  { "2048k", 0, 2 },
		{ "1073741824", 0, 1024 }, { "1.5g", -1, 0 }, { "lots", -1, 0 },  { "", -1, 0 },      { "g", -1, 0 },
		{ "-1g", -1, 0 },    { " 4g", -1, 0 },      { "99999999999999999999g", -1, 0 }, { "18014398509481984g", -1, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned long long mib = 0;
		int rc = size_to_mib(t[i].s, &mib);

		CHECK(rc == t[i].rc && (rc != 0 || mib == t[i].mib), "size '%s': rc %d, %llu MiB", t[i].s, rc, mib);
	}
}

static void defaults(void)
{
	struct limits_in in = { .host_mib = 7900, .host_cpus = 4, .nofile_hard = 0 };
	struct limits l;
	struct cs_error err;
	char text[256];

	CHECK(limits_compute(&in, &l, &err) == 0, "defaults: %s", err.msg);
	CHECK(l.pids == 4096 && l.mem_mib == 3950 && strcmp(l.cpus, "3") == 0 && l.nofile == 65536 && l.tmp_mib == 987,
	      "defaults: %llu %llu %s %llu %llu", l.pids, l.mem_mib, l.cpus, l.nofile, l.tmp_mib);
	limits_text(&l, text, sizeof(text));
	CHECK_STR(text, "processes 4096, memory 3950m (no swap on top), CPUs 3, open files 65536, /tmp 987m in memory");
	in.host_mib = 64000, in.host_cpus = 1, in.nofile_hard = 20000;
	CHECK(limits_compute(&in, &l, &err) == 0 && l.mem_mib == 8192 && strcmp(l.cpus, "1") == 0 && l.nofile == 20000 && l.tmp_mib == 1024,
	      "a big host: memory at most 8g, /tmp at most 1g; one CPU: 1; the hard limit caps nofile: %llu %s %llu %llu", l.mem_mib, l.cpus,
	      l.nofile, l.tmp_mib);
	in.pids = "9000", in.memory = "3G", in.cpus = "0.5", in.nofile = "2048", in.tmp = "1g";
	CHECK(limits_compute(&in, &l, &err) == 0 && l.pids == 9000 && l.mem_mib == 3072 && strcmp(l.cpus, "0.5") == 0 && l.nofile == 2048 &&
		      l.tmp_mib == 1024,
	      "the options win: %s", err.msg);
}

static void refused(void)
{
	static const struct {
		const char *pids, *memory, *cpus, *nofile, *tmp, *word;
	} t[] = {
		{ "10", 0, 0, 0, 0, "--pids-limit 10 is too low" },   { "-1", 0, 0, 0, 0, "bad --pids-limit '-1'" },
		{ "064", 0, 0, 0, 0, "bad --pids-limit" },            { 0, "lots", 0, 0, 0, "bad --memory 'lots'" },
		{ 0, "1.5g", 0, 0, 0, "bad --memory" },               { 0, "10m", 0, 0, 0, "--memory '10m' is under 64 MiB" },
		{ 0, 0, "0", 0, 0, "--cpus 0 is not between 0.01" },  { 0, 0, "x", 0, 0, "bad --cpus 'x'" },
		{ 0, 0, "9999", 0, 0, "the 4 CPUs of this host" },    { 0, 0, "1.2.3", 0, 0, "bad --cpus" },
		{ 0, 0, ".5", 0, 0, "bad --cpus" },                   { 0, 0, "5.", 0, 0, "bad --cpus" },
		{ 0, 0, 0, "100", 0, "--nofile 100 is too low" },     { 0, 0, 0, "1e9", 0, "bad --nofile" },
		{ 0, "2g", 0, 0, "3g", "--tmp-size 3072m is more than --memory 2048m" }, { 0, 0, 0, 0, "x", "bad --tmp-size" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct limits_in in = { t[i].pids, t[i].memory, t[i].cpus, t[i].nofile, t[i].tmp, 8000, 4, 0 };
		struct limits l;
		struct cs_error err = { 0 };
		int rc = limits_compute(&in, &l, &err);

		CHECK(rc != 0 && err.status == CS_EXIT_CONFIG && strstr(err.msg, t[i].word) && !strchr(err.msg, '\n'),
		      "case %zu: refused naming '%s': rc %d, '%s'", i, t[i].word, rc, err.msg);
	}
}

int main(void)
{
	sizes();
	defaults();
	refused();
	return check_done("hostctl limits");
}
