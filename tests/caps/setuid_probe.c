/* setuid_probe DIR: every system call that sets a file's mode, asked for a
 * setuid or setgid mode in DIR (issue 31), and the ordinary modes beside
 * them.  One line per case: "NAME RESULT MODE", RESULT "ok" or the errno's
 * name (n/a where this architecture has no such call), MODE the octal mode
 * the path has afterwards (of the open file for O_TMPFILE), or "absent".
 * tests/caps/setuid.sh runs it under the init (the filter refuses) and
 * without (the control: the same uid gets the bits), and compares.  Raw
 * system calls throughout, so that each rule is met as written, whatever
 * libc would call instead. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452  /* Linux 6.6, the unified number; Debian 12's headers lack it */
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define NA (-1000)  /* no such call on this architecture */

static void report(const char *name, long rc, int err, const char *path, int fd)
{
	struct stat st;
	char mode[16] = "absent";
	int r = fd >= 0 ? fstat(fd, &st) : lstat(path, &st);

	if (r == 0)
		snprintf(mode, sizeof(mode), "%o", (unsigned)(st.st_mode & 07777));
	if (rc == NA)
		printf("%s n/a %s\n", name, mode);
	else
		printf("%s %s %s\n", name, rc >= 0 ? "ok" : strerrorname_np(err), mode);
}

/* A fresh regular file (0644) or directory (0755) for one case. */
static void fresh(const char *path, bool dir)
{
	int fd;

	if (dir) {
		mkdir(path, 0755);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

/* What a call returns: 0 or -1, a file descriptor to close, or the
 * descriptor of an O_TMPFILE, whose mode is read from it. */
enum ret { STATUS, FD, TMPFILE_FD };

/* Runs one call (its result and errno) and reports it. */
#define CASE(name, path, ret, expr)                                                    \
	do {                                                                           \
		long rc_ = (expr);                                                     \
		int e_ = errno;                                                        \
		report(name, rc_, e_, path, (ret) == TMPFILE_FD && rc_ >= 0 ? (int)rc_ : -1); \
		if (rc_ >= 0 && (ret) != STATUS)                                       \
			close((int)rc_);                                               \
	} while (0)

int main(int argc, char **argv)
{
	struct open_how how = { .flags = O_WRONLY | O_CREAT | O_CLOEXEC, .mode = 04755 };
	struct open_how plain = { .flags = O_RDONLY | O_CLOEXEC };

	if (argc != 2 || chdir(argv[1]) != 0) {
		fputs("usage: setuid_probe DIR (an empty directory this uid may write)\n", stderr);
		return 2;
	}
	umask(0);
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Refused: the mode-setting calls with S_ISUID or S_ISGID. */
	fresh("chmod_4755", false);
#ifdef SYS_chmod
	CASE("chmod_4755", "chmod_4755", STATUS, syscall(SYS_chmod, "chmod_4755", 04755));
#else
	CASE("chmod_4755", "chmod_4755", STATUS, NA);
#endif
	fresh("chmod_2755_dir", true);
#ifdef SYS_chmod
	CASE("chmod_2755_dir", "chmod_2755_dir", STATUS, syscall(SYS_chmod, "chmod_2755_dir", 02755));
#else
	CASE("chmod_2755_dir", "chmod_2755_dir", STATUS, NA);
#endif
	fresh("fchmod_4755", false);
	{
		int fd = open("fchmod_4755", O_RDONLY | O_CLOEXEC);

		CASE("fchmod_4755", "fchmod_4755", STATUS, syscall(SYS_fchmod, fd, 04755));
		/* the upper half of the register is no way around the rule */
		CASE("fchmod_4755_highbits", "fchmod_4755", STATUS, syscall(SYS_fchmod, fd, (1L << 32) | 04755));
		if (fd >= 0)
			close(fd);
	}
	fresh("fchmodat_4755", false);
	CASE("fchmodat_4755", "fchmodat_4755", STATUS, syscall(SYS_fchmodat, AT_FDCWD, "fchmodat_4755", 04755));
	fresh("fchmodat_2755", false);
	CASE("fchmodat_2755", "fchmodat_2755", STATUS, syscall(SYS_fchmodat, AT_FDCWD, "fchmodat_2755", 02755));
	fresh("fchmodat2_4755", false);
	CASE("fchmodat2_4755", "fchmodat2_4755", STATUS, syscall(SYS_fchmodat2, AT_FDCWD, "fchmodat2_4755", 04755, 0));
	fresh("fchmodat2_2755_dir", true);
	CASE("fchmodat2_2755_dir", "fchmodat2_2755_dir", STATUS,
	     syscall(SYS_fchmodat2, AT_FDCWD, "fchmodat2_2755_dir", 02755, 0));

#ifdef SYS_open
	CASE("open_creat_4755", "open_creat_4755", FD, syscall(SYS_open, "open_creat_4755", O_WRONLY | O_CREAT | O_CLOEXEC, 04755));
#else
	CASE("open_creat_4755", "open_creat_4755", FD, NA);
#endif
	CASE("openat_creat_4755", "openat_creat_4755", FD,
	     syscall(SYS_openat, AT_FDCWD, "openat_creat_4755", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 04755));
	CASE("openat_creat_2755", "openat_creat_2755", FD,
	     syscall(SYS_openat, AT_FDCWD, "openat_creat_2755", O_WRONLY | O_CREAT | O_CLOEXEC, 02755));
	fresh("tmpdir", true);
	CASE("openat_tmpfile_4755", "tmpdir", TMPFILE_FD, syscall(SYS_openat, AT_FDCWD, "tmpdir", O_WRONLY | O_TMPFILE | O_CLOEXEC, 04755));
#ifdef SYS_creat
	CASE("creat_4755", "creat_4755", FD, syscall(SYS_creat, "creat_4755", 04755));
#else
	CASE("creat_4755", "creat_4755", FD, NA);
#endif
#ifdef SYS_mkdir
	CASE("mkdir_2755", "mkdir_2755", STATUS, syscall(SYS_mkdir, "mkdir_2755", 02755));
#else
	CASE("mkdir_2755", "mkdir_2755", STATUS, NA);
#endif
	CASE("mkdirat_4755", "mkdirat_4755", STATUS, syscall(SYS_mkdirat, AT_FDCWD, "mkdirat_4755", 04755));
#ifdef SYS_mknod
	CASE("mknod_4755", "mknod_4755", STATUS, syscall(SYS_mknod, "mknod_4755", S_IFREG | 04755, 0));
#else
	CASE("mknod_4755", "mknod_4755", STATUS, NA);
#endif
	CASE("mknodat_2755", "mknodat_2755", STATUS, syscall(SYS_mknodat, AT_FDCWD, "mknodat_2755", S_IFREG | 02755, 0));

	/* openat2: allowed (codex's bubblewrap needs it); its mode is behind a pointer. */
	CASE("openat2_creat_4755", "openat2_creat_4755", FD,
	     syscall(SYS_openat2, AT_FDCWD, "openat2_creat_4755", &how, sizeof(how)));
	fresh("openat2_plain", false);
	CASE("openat2_plain", "openat2_plain", FD, syscall(SYS_openat2, AT_FDCWD, "openat2_plain", &plain, sizeof(plain)));

	/* Allowed: the ordinary modes, and a mode an open without O_CREAT
	 * never reads (Rust passes 0666 to every open; garbage is possible). */
	fresh("chmod_755", false);
	CASE("chmod_755", "chmod_755", STATUS, syscall(SYS_fchmodat, AT_FDCWD, "chmod_755", 0755));
	CASE("open_creat_644", "open_creat_644", FD,
	     syscall(SYS_openat, AT_FDCWD, "open_creat_644", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	CASE("open_nocreat_4755", "open_creat_644", FD,
	     syscall(SYS_openat, AT_FDCWD, "open_creat_644", O_RDONLY | O_CLOEXEC, 04755));
	CASE("mkdir_755", "mkdir_755", STATUS, syscall(SYS_mkdirat, AT_FDCWD, "mkdir_755", 0755));
	CASE("chmod_1777_dir", "mkdir_755", STATUS, syscall(SYS_fchmodat, AT_FDCWD, "mkdir_755", 01777));
	return 0;
}
