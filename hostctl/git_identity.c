#include "hostctl/git_identity.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hostctl/printable.h"
#include "hostctl/spawn.h"

#define GIT_TIMEOUT_MS 10000

void git_identity_parse(const char *text, char *name, char *email, size_t len)
{
	static const struct {
		const char *key;
		size_t n;
	} keys[] = { { "user.name ", 10 }, { "user.email ", 11 } };

	name[0] = email[0] = '\0';
	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		for (size_t k = 0; k < 2; k++) {
			char *out = k == 0 ? name : email;

			if (n < keys[k].n || strncmp(p, keys[k].key, keys[k].n) != 0)
				continue;
			if (one_line_n(p + keys[k].n, n - keys[k].n) && n - keys[k].n < len)
				snprintf(out, len, "%.*s", (int)(n - keys[k].n), p + keys[k].n);
			else
				out[0] = '\0';  /* a value the runner's lines cannot carry: none, as git's "" */
		}
		p = end ? end + 1 : NULL;
	}
}

void git_identity_lines(const char *ws)
{
	static const char regexp[] = "^user[.](name|email)$";
	char *local[] = { "git", "-C", (char *)ws, "config", "--get-regexp", (char *)regexp, NULL };
	char *global[] = { "git", "config", "--global", "--get-regexp", (char *)regexp, NULL };
	char out[8192], name[1024], email[1024];
	int rc;

	if (!on_path("git"))
		return;
	rc = spawn_capture(local, out, sizeof(out), GIT_TIMEOUT_MS);
	if (rc == 1)
		out[0] = '\0';
	else if (rc != 0 && spawn_capture(global, out, sizeof(out), GIT_TIMEOUT_MS) != 0)
		out[0] = '\0';
	git_identity_parse(out, name, email, sizeof(name));
	if (name[0])
		printf("git_name=%s\n", name);
	if (email[0])
		printf("git_email=%s\n", email);
}
