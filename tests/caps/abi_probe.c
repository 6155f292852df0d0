/* abi_probe: tries a system call through each other ABI the kernel offers a
 * x86_64 process, each in a child of its own, and prints one line per try:
 * "NAME ran" (it returned, whatever it answered), "NAME SIGSYS" (killed by
 * seccomp), or "NAME signal N" / "NAME exit N".  The tries:
 *   i386         getpid through int $0x80 (the i386 ABI, AUDIT_ARCH_I386)
 *   x32          getpid with __X32_SYSCALL_BIT set (AUDIT_ARCH_X86_64, x32 numbers)
 *   i386_thread  the i386 try in a second thread: a filter that kills only
 *                the thread (SECCOMP_RET_KILL_THREAD) lets the process exit 0;
 *                SECCOMP_RET_KILL_PROCESS kills it all.
 * On other architectures it prints "NAME n/a" for each. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
static void *i386_getpid(void *arg)
{
	long ret = 20;  /* __NR_getpid on i386 */

	(void)arg;
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	return NULL;
}

static void x32_getpid(void)
{
	syscall(0x40000000L | SYS_getpid);  /* ENOSYS where x32 is off: it still ran */
}

static void i386_in_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, i386_getpid, NULL) != 0)
		_exit(3);
	pthread_join(t, NULL);
}

static void try(const char *name, void (*fn)(void))
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });  /* a killed try leaves no core */
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		printf("%s error\n", name);
	else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		printf("%s SIGSYS\n", name);
	else if (WIFSIGNALED(st))
		printf("%s signal %d\n", name, WTERMSIG(st));
	else if (WEXITSTATUS(st) != 0)
		printf("%s exit %d\n", name, WEXITSTATUS(st));
	else
		printf("%s ran\n", name);
}

static void i386_direct(void)
{
	i386_getpid(NULL);
}

int main(void)
{
	try("i386", i386_direct);
	try("x32", x32_getpid);
	try("i386_thread", i386_in_thread);
	return 0;
}
#else
int main(void)
{
	puts("i386 n/a\nx32 n/a\ni386_thread n/a");
	return 0;
}
#endif
