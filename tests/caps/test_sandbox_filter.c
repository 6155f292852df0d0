/* The embedded seccomp programs (issue 13): cli-sandbox-init installs BPF
 * that caps/sandbox_filter_gen wrote at build time.  Here libseccomp
 * regenerates both variants from the rules now, and they must be byte for
 * byte the programs the init carries; the generator, run where seccomp(2)
 * is refused (EPERM, as a locked-down builder's policy might) or missing
 * (ENOSYS), writes the very header this build embeds, which proves the
 * generation asks nothing of the builder's kernel.  As
 * root, the filter the kernel holds after sandbox_filter_install() is read
 * back (PTRACE_SECCOMP_GET_FILTER) and must be that program too. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps/sandbox_filter.h"
#include "caps/sandbox_rules.h"
#include "check.h"

static char name[160];

/* A check's name, with the variant in front. */
static const char *named(bool allow_userns, const char *what)
{
	snprintf(name, sizeof(name), "allow_userns=%s: %s", allow_userns ? "true" : "false", what);
	return name;
}

/* 0 when libseccomp's program for this variant equals the embedded one,
 * 1 when it differs, 2 when the generation failed. */
static int regenerated_matches(bool allow_userns)
{
	const struct sock_filter *embedded;
	size_t n_embedded = sandbox_filter_program(allow_userns, &embedded), n;
	struct sock_filter *fresh;
	const char *what;
	int rc = sandbox_rules_export(allow_userns, &fresh, &n, &what);

	if (rc != 0)
		return 2;
	rc = n == n_embedded && memcmp(fresh, embedded, n * sizeof(*fresh)) == 0 ? 0 : 1;
	free(fresh);
	return rc;
}

/* The whole file in *buf (malloc'd), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)n;
	if (f)
		fclose(f);
	return buf;
}

/* The generator run afresh (exec'd, so nothing libseccomp learnt in this
 * process is inherited) in a child whose seccomp(2) answers with errno
 * `answer`: 0 when it writes the very header this build embeds, 1 when the
 * header differs, 2 when the generator failed, -1 when the check could not
 * run. */
static int generated_matches_refused(int answer)
{
	struct sock_filter refuse[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)answer),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(refuse) / sizeof(refuse[0]), .filter = refuse };
	char dir[] = "/tmp/cs-filter-gen.XXXXXX", out[64];
	char *want = NULL, *got = NULL;
	size_t n_want = 0, n_got = 0;
	int st, rc = -1;
	pid_t pid;

	if (!mkdtemp(dir))
		return -1;
	snprintf(out, sizeof(out), "%s/bpf.h", dir);
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
			_exit(3);
		if (syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &(unsigned){ SECCOMP_RET_KILL_PROCESS }) == 0 ||
		    errno != answer)
			_exit(4);  /* the refusal is not in place: the check would prove nothing */
		execl(FILTER_GEN, FILTER_GEN, out, (char *)NULL);
		_exit(5);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st)) {
		if (WEXITSTATUS(st) != 0)
			rc = WEXITSTATUS(st) == 1 ? 2 : -1;
		else if ((want = slurp(FILTER_BPF_H, &n_want)) && (got = slurp(out, &n_got)))
			rc = n_want == n_got && memcmp(want, got, n_got) == 0 ? 0 : 1;
		else
			rc = -1;
		free(want);
		free(got);
	}
	unlink(out);
	rmdir(dir);
	return rc;
}

/* The filter the kernel holds after sandbox_filter_install(), newest first:
 * 0 when it is the embedded program, 1 when not, 77 without the privilege
 * to read it (CAP_SYS_ADMIN), -1 on a failure of the check itself. */
static int installed_matches(bool allow_userns)
{
	const struct sock_filter *embedded;
	size_t n_embedded = sandbox_filter_program(allow_userns, &embedded);
	struct sock_filter got[BPF_MAXINSNS];
	int st, rc = -1;
	long n;
	pid_t pid;

	if (geteuid() != 0)
		return 77;
	pid = fork();
	if (pid == 0) {
		struct cs_error err = { 0 };

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0 || sandbox_filter_install(allow_userns, &err) != 0)
			_exit(3);
		raise(SIGSTOP);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSTOPPED(st)) {
		n = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, 0, NULL);
		if (n < 0 && (errno == EACCES || errno == EPERM))
			rc = 77;  /* root, but without CAP_SYS_ADMIN, or under seccomp itself */
		else if (n < 0 && errno == EIO)
			rc = 76;  /* the kernel has no such request (CONFIG_CHECKPOINT_RESTORE off) */
		else if (n > 0 && n <= BPF_MAXINSNS && ptrace(PTRACE_SECCOMP_GET_FILTER, pid, 0, got) == n)
			rc = (size_t)n == n_embedded && memcmp(got, embedded, sizeof(got[0]) * (size_t)n) == 0 ? 0 : 1;
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	return rc;
}

int main(void)
{
	int rc;

	/* First, before this process has used libseccomp at all. */
	rc = generated_matches_refused(EPERM);
	CHECK_NAMED("the generator writes the same header where seccomp(2) is refused (EPERM)", rc == 0,
		    "got %d (1: differs, 2: the generator failed)", rc);
	rc = generated_matches_refused(ENOSYS);
	CHECK_NAMED("the generator writes the same header where seccomp(2) is missing (ENOSYS)", rc == 0,
		    "got %d (1: differs, 2: the generator failed)", rc);
	for (int u = 0; u <= 1; u++) {
		bool allow = u;
		const struct sock_filter *p;
		size_t n = sandbox_filter_program(allow, &p);

		CHECK_NAMED(named(allow, "libseccomp regenerates the embedded program byte for byte"), regenerated_matches(allow) == 0,
			    "libseccomp's program from caps/sandbox_rules.c differs from the embedded one (or failed)");

		/* The head every libseccomp program has: load the architecture,
		 * kill the process when it is not ours. */
		CHECK_NAMED(named(allow, "it starts by loading the architecture"),
			    n > 3 && p[0].code == (BPF_LD | BPF_W | BPF_ABS) &&
				    p[0].k == offsetof(struct seccomp_data, arch), "code 0x%x k %u", p[0].code, p[0].k);
		CHECK_NAMED(named(allow, "it admits the native architecture only"),
			    p[1].code == (BPF_JMP | BPF_JEQ | BPF_K) && p[1].k == sandbox_rules_arch() && p[1].jt == 0,
			    "code 0x%x k 0x%x", p[1].code, p[1].k);
		CHECK_NAMED(named(allow, "any other architecture kills the process (SECCOMP_RET_KILL_PROCESS)"),
			    2u + p[1].jf < n && p[2 + p[1].jf].code == (BPF_RET | BPF_K) &&
				    p[2 + p[1].jf].k == SECCOMP_RET_KILL_PROCESS, "jf %u", p[1].jf);
		CHECK_NAMED(named(allow, "it ends in a return"), p[n - 1].code == (BPF_RET | BPF_K), "code 0x%x", p[n - 1].code);

		rc = installed_matches(allow);
		if (rc == 77)
			check_skip(named(allow, "the kernel holds exactly this program after sandbox_filter_install()"),
				   "not root with CAP_SYS_ADMIN (or under a seccomp filter already): the installed filter cannot be read back");
		else if (rc == 76)
			check_skip(named(allow, "the kernel holds exactly this program after sandbox_filter_install()"),
				   "this kernel has no PTRACE_SECCOMP_GET_FILTER (EIO: CONFIG_CHECKPOINT_RESTORE off)");
		else
			CHECK_NAMED(named(allow, "the kernel holds exactly this program after sandbox_filter_install()"), rc == 0,
				    "got %d", rc);
	}
	{
		const struct sock_filter *deny, *allow;
		size_t nd = sandbox_filter_program(false, &deny), na = sandbox_filter_program(true, &allow);

		CHECK_NAMED("the default variant has the user-namespace rules on top (longer)", nd > na, "%zu vs %zu", nd,
			    na);
	}
	return check_done("test_sandbox_filter");
}
