#include "entrypoint/init.h"

#include <errno.h>
#include <unistd.h>

void init_prepare_signals(void)
{
}

int init_supervise(char *const argv[], char *const envp[])
{
	struct cs_error err;

	exec_command(argv, envp, &err);
	cs_print_error(&err);
	return err.status;
}

int exec_command(char *const argv[], char *const envp[], struct cs_error *err)
{
	execvpe(argv[0], argv, envp);
	return cs_fail(err, errno == ENOENT ? CS_EXIT_NOTFOUND : CS_EXIT_NOEXEC,
		       "cannot run '%s'; install it or fix PATH", argv[0]);
}
