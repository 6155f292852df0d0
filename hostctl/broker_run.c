#include "hostctl/broker_run.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hostctl/spawn.h"

void broker_run_cmd(struct engine_cmd *c, const char *name, const char *image, const char *dir, char *const extra[],
		    int nextra, char *vol, int vollen)
{
	snprintf(vol, (size_t)vollen, "%s:/run/broker:ro", dir);
	/* The confinement every broker runs with: read-only root, /tmp the only writable path (on
	 * memory), no capability, no_new_privs, an unprivileged uid, 64 MiB and 64 PIDs. */
	engine_cmd_add(c, "run", "-d", "--name", name, "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,noexec,size=16m,mode=1777",
		       "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--user", "1002:1002", "--memory", "64m",
		       "--memory-swap", "64m", "--pids-limit", "64", "--volume", vol, "--label", "io.cli-sandbox.role=broker",
		       (char *)NULL);
	for (int i = 0; i < nextra; i++)
		engine_cmd_add(c, extra[i], (char *)NULL);
	engine_cmd_add(c, image, (char *)NULL);
}

bool broker_listens(const char *engine, const char *name)
{
	static char out[65536];
	struct timespec pause = { 0, 100 * 1000 * 1000 };

	for (int i = 0; i < 100; i++) {
		struct engine_cmd c;

		engine_cmd_init(&c, engine);
		engine_cmd_add(&c, "exec", name, "cat", "/proc/net/tcp", (char *)NULL);
		/* 1F90: port 8080, 0A: LISTEN (the image has no client: /proc is enough) */
		if (spawn_capture(c.argv, out, sizeof(out), 10000) == 0 && strstr(out, ":1F90 00000000:0000 0A"))
			return true;
		engine_cmd_init(&c, engine);
		engine_cmd_add(&c, "inspect", "-f", "{{.State.Running}}", name, (char *)NULL);
		if (spawn_capture(c.argv, out, sizeof(out), 10000) != 0 || strcmp(out, "true") != 0)
			return false;
		nanosleep(&pause, NULL);
	}
	return false;
}
