/* limits: the run's limits for the runner, one KEY=VALUE a line (read
 * without eval):
 *   LIM_PIDS=4096  LIM_MEM=2048 (MiB)  LIM_CPUS=1.5  LIM_NOFILE=65536
 *   LIM_TMP=512 (MiB)  LIM_TEXT=<the one line doctor shows>
 * From the options, else CLI_SANDBOX_PIDS_LIMIT, _MEMORY, _CPUS, _NOFILE and
 * _TMP_SIZE, else defaults from this host (limits.h).  A bad value: one line
 * naming it, exit 2, nothing on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hostctl/cmds.h"
#include "hostctl/limits.h"
#include "hostctl/spawn.h"

static const char help[] =
	"Usage: cli-sandbox-ctl limits [--engine ENGINE] [--pids-limit N] [--memory SIZE] [--cpus N]\n"
	"         [--nofile N] [--tmp-size SIZE]\n"
	"The run's limits, one KEY=VALUE a line (LIM_PIDS, LIM_MEM and LIM_TMP in MiB, LIM_CPUS,\n"
	"LIM_NOFILE, LIM_TEXT), for host/cli-sandbox (docs/host-script.md, \"Limits\").  Exit 2 on a\n"
	"bad value.\n";

/* MemTotal of /proc/meminfo in MiB (what the runner read), else sysconf's; 0 when unknown. */
static unsigned long long host_mib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
				break;
		fclose(f);
		if (kb)
			return kb / 1024;
	}
	return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size / 1048576 : 0;
}

/* Off Linux (Docker Desktop, podman machine) the engine's containers run in
 * a VM smaller than this machine, and an engine refuses --cpus above its own
 * count: ask the engine there ("CPUS MEMBYTES"). */
static void engine_resources(const char *engine, unsigned long long *mib, unsigned long long *cpus)
{
	char *argv[] = { (char *)engine, "info", "--format",
			 strcmp(engine, "docker") == 0 ? "{{.NCPU}} {{.MemTotal}}" : "{{.Host.CPUs}} {{.Host.MemTotal}}", NULL };
	char out[256];
	unsigned long long c, m;

	if (spawn_capture(argv, out, sizeof(out), 10000) == 0 && sscanf(out, "%llu %llu", &c, &m) == 2 && c > 0 && m >= 1048576) {
		*cpus = c;
		*mib = m / 1048576;
	}
}

int limits_for_run(const char *engine, const char *const opts[LIMIT_OPTS], struct limits *l, char *text, size_t len,
		   struct cs_error *err)
{
	struct limits_in in = { 0 };
	struct rlimit rl;
	long n;

	in.pids = getenv("CLI_SANDBOX_PIDS_LIMIT");
	in.memory = getenv("CLI_SANDBOX_MEMORY");
	in.cpus = getenv("CLI_SANDBOX_CPUS");
	in.nofile = getenv("CLI_SANDBOX_NOFILE");
	in.tmp = getenv("CLI_SANDBOX_TMP_SIZE");
	/* an empty option is no option: the variable, else the default */
	if (opts[0] && *opts[0])
		in.pids = opts[0];
	if (opts[1] && *opts[1])
		in.memory = opts[1];
	if (opts[2] && *opts[2])
		in.cpus = opts[2];
	if (opts[3] && *opts[3])
		in.nofile = opts[3];
	if (opts[4] && *opts[4])
		in.tmp = opts[4];
	in.host_mib = host_mib();
	n = sysconf(_SC_NPROCESSORS_ONLN);
	in.host_cpus = n > 0 ? (unsigned long long)n : 1;
	if (access("/proc/meminfo", R_OK) != 0 && engine && *engine)
		engine_resources(engine, &in.host_mib, &in.host_cpus);
	if (!in.host_mib)
		in.host_mib = 4096;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY)
		in.nofile_hard = (unsigned long long)rl.rlim_max;
	if (limits_compute(&in, l, err) != 0)
		return -1;
	limits_text(l, text, len);
	return 0;
}

const char *const limit_options[LIMIT_OPTS] = { "--pids-limit", "--memory", "--cpus", "--nofile", "--tmp-size" };

int cmd_limits(int argc, char **argv)
{
	const char *opts[LIMIT_OPTS] = { NULL }, *engine = NULL;
	struct limits l;
	struct cs_error err;
	char text[256];

	if (ctl_help(argc, argv, help))
		return 0;
	for (int i = 1; i < argc; i++) {
		const char **to = strcmp(argv[i], "--engine") == 0 ? &engine : NULL;

		for (int k = 0; k < LIMIT_OPTS && !to; k++)
			if (strcmp(argv[i], limit_options[k]) == 0)
				to = &opts[k];
		if (!to || i + 1 >= argc)
			return ctl_usage("usage: cli-sandbox-ctl limits [--engine E] [--pids-limit N] [--memory SIZE] [--cpus N] [--nofile N] [--tmp-size SIZE]");
		*to = argv[++i];
	}
	if (limits_for_run(engine, opts, &l, text, sizeof(text), &err) != 0)
		return ctl_fail(&err);
	printf("LIM_PIDS=%llu\nLIM_MEM=%llu\nLIM_CPUS=%s\nLIM_NOFILE=%llu\nLIM_TMP=%llu\nLIM_TEXT=%s\n", l.pids, l.mem_mib, l.cpus,
	       l.nofile, l.tmp_mib, text);
	return 0;
}
