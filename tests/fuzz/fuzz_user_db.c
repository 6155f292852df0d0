/* libFuzzer harness for the passwd and group parsers (user_resolve): the
 * input is a passwd file, "\n--\n", then a group file.  No input may crash
 * them, and an accepted user is never root nor in a root group. */
#include <sys/types.h>

#include "caps/user_db.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cs_user u;
	const gid_t inherited[] = { 0, 27, 999 };
	struct user_spec spec = { 0 };
	struct cs_error err;
	const uint8_t *group;
	size_t passwd_size, group_size;
	const char *passwd_path, *group_path;

	if (size == 0)
		return 0;
	/* The first byte picks the spec: by name "node", uid 1000, or uid:gid. */
	if (data[0] % 3 == 0) {
		spec.by_name = true;
		strcpy(spec.name, "node");
	} else {
		spec.uid = 1000;
		spec.has_gid = data[0] % 3 == 2;
		spec.gid = 1000;
	}
	fuzz_split(data + 1, size - 1, &passwd_size, &group, &group_size);
	passwd_path = fuzz_file(0, data + 1, passwd_size);
	group_path = fuzz_file(1, group, group_size);
	if (user_resolve(&spec, passwd_path, group_path, inherited, 3, &u, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		return 0;
	}
	invariant(u.uid != 0 && u.gid != 0);
	invariant(spec.by_name ? strcmp(u.name, "node") == 0 : u.uid == 1000);
	invariant(u.n_groups >= 1 && u.n_groups <= CS_MAX_GROUPS);
	for (size_t i = 0; i < u.n_groups; i++) {
		invariant(u.groups[i] != 0);
		invariant(i == 0 || u.groups[i - 1] < u.groups[i]);
	}
	invariant(memchr(u.home, '\0', sizeof(u.home)) != NULL && u.home[0] == '/');
	return 0;
}
