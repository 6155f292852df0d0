/* platform: what this host offers a run, each fact read from the kernel or
 * the engine (never assumed), with what it means for a run. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostctl/cmds.h"
#include "hostctl/engine.h"
#include "hostctl/spawn.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static const char help[] =
	"Usage: cli-sandbox-ctl platform [--json]\n"
	"What was detected on this host, each with what it means for a run: OS, architecture,\n"
	"kernel, the engine that answers and its version, rootful or rootless, cgroup v1 or v2,\n"
	"user namespaces, seccomp, IA32 emulation and CAP_SYS_RESOURCE.\n";

static void fact(json_t *facts, bool json, const char *name, const char *value, const char *meaning)
{
	json_t *f = json_object();

	json_object_set_new(f, "name", json_string(name));
	json_object_set_new(f, "value", json_string(value));
	json_object_set_new(f, "meaning", json_string(meaning));
	json_array_append_new(facts, f);
	if (!json)
		printf("%-18s %s\n%-18s   %s\n", name, value, "", meaning);
}

static void os_name(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/etc/os-release", "re");

	snprintf(out, len, "unknown");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
			char *v = line + 12;
			v[strcspn(v, "\n")] = '\0';
			if (*v == '"') {
				v++;
				v[strcspn(v, "\"")] = '\0';
			}
			snprintf(out, len, "%s", v);
		}
	if (f)
		fclose(f);
}

/* A child tries it; the parent only reads how it ended. */
static int child_result(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* The default action for the signal it may raise (a sanitizer's
		 * handler would report it), and its stderr nowhere. */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		fn();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void try_userns(void)
{
	_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
}

static void try_int80(void)
{
#if defined(__x86_64__)
	long ret = 20; /* i386 getpid */
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	_exit(ret > 0 ? 0 : 1);
#else
	_exit(2);
#endif
}

static bool cap_eff_bit(int bit)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	if (f)
		fclose(f);
	return (caps >> bit) & 1;
}

int cmd_platform(int argc, char **argv)
{
	struct utsname u;
	struct statfs sf;
	char os[512], engine[16], version[128], info[256], buf[512];
	const char *why;
	bool json, have_engine;
	json_t *o, *facts;
	int r;

	if (ctl_help(argc, argv, help))
		return 0;
	json = ctl_take_json(&argc, argv);
	if (argc > 1)
		return ctl_usage("usage: cli-sandbox-ctl platform [--json]");
	o = json_object();
	facts = json_array();
	os_name(os, sizeof(os));
	uname(&u);
	fact(facts, json, "os", os, "the host system the engine runs on");
	fact(facts, json, "architecture", u.machine,
	     strcmp(u.machine, "x86_64") == 0 || strcmp(u.machine, "aarch64") == 0
		     ? "an architecture the images are built for"
		     : "the images are built for x86_64 and aarch64: this one needs its own build");
	fact(facts, json, "kernel", u.release, "nftables and the init's seccomp filter need Linux 5.4 or later");

	have_engine = engine_pick(engine, sizeof(engine), &why);
	if (have_engine) {
		engine_version(engine, version, sizeof(version));
		snprintf(buf, sizeof(buf), "%s %s", engine, version[0] ? version : "(does not answer)");
		fact(facts, json, "engine", buf,
		     version[0] ? why : "the engine is installed but does not answer: start its daemon or pick the other with CLI_SANDBOX_ENGINE");
		{
			char *pq[] = { "podman", "info", "--format", "{{.Host.Security.Rootless}}", NULL };
			char *dq[] = { "docker", "info", "--format", "{{json .SecurityOptions}}", NULL };
			bool rootless = strcmp(engine, "podman") == 0
						? spawn_capture(pq, info, sizeof(info), 10000) == 0 && strcmp(info, "true") == 0
						: spawn_capture(dq, info, sizeof(info), 10000) == 0 && strstr(info, "rootless") != NULL;
			fact(facts, json, "mode", rootless ? "rootless" : "rootful",
			     rootless ? "the sandbox's root is your user: files the agent writes are yours; the firewall is in the container's own namespace"
				      : "the engine runs as root: the runner maps the agent to your uid so the files it writes stay yours");
		}
	} else {
		fact(facts, json, "engine", "none", "no docker or podman answers: install one (docs/host-script.md) or set CLI_SANDBOX_ENGINE");
	}

	r = statfs("/sys/fs/cgroup", &sf) == 0 && (unsigned long)sf.f_type == CGROUP2_SUPER_MAGIC;
	fact(facts, json, "cgroup", r ? "v2" : "v1",
	     r ? "the run's limits (memory, pids, cpus) are enforced per container" : "cgroup v1: rootless engines cannot set the run's limits; use a rootful engine or a cgroup v2 host");

	r = child_result(try_userns);
	fact(facts, json, "user namespaces", r == 0 ? "allowed" : "denied",
	     r == 0 ? "codex's own sandbox can start where the engine's seccomp allows them (--allow-userns)"
		    : "user namespaces denied: codex's own sandbox cannot start; --allow-userns needs an engine whose seccomp allows them");

	errno = 0;
	r = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	fact(facts, json, "seccomp", r >= 0 && access("/proc/sys/kernel/seccomp/actions_avail", R_OK) == 0 ? "available" : "absent",
	     r >= 0 ? "the init installs its seccomp filters on the command and PID 1" : "no seccomp: the init cannot filter system calls and refuses to start");

	r = child_result(try_int80);
	fact(facts, json, "IA32 emulation", r == 0 ? "present" : r == 2 ? "not x86_64" : "absent",
	     r == 0 ? "32-bit system calls exist: the init's filter blocks them for the command"
		    : "32-bit system calls are not there to block: the filter's IA32 part is moot");

	r = cap_eff_bit(24);
	fact(facts, json, "CAP_SYS_RESOURCE", r ? "held" : geteuid() == 0 ? "root without it" : "not held (not root)",
	     r ? "a rootful run can lower the init's OOM score so the kernel kills the agent first"
		 : "the init's oom_score_adj below 0 is refused: under memory pressure the kernel may pick the init (it reports that and goes on)");

	json_object_set_new(o, "facts", facts);
	if (json)
		return ctl_print_json(o);
	json_decref(o);
	return 0;
}
