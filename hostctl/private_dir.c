#include "hostctl/private_dir.h"

#include <errno.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>

static int kernel_random(unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int private_dir(const char *base, const char *prefix, char *out, size_t len, private_dir_random_fn rnd,
		struct cs_error *err)
{
	if (!rnd)
		rnd = kernel_random;
	for (int try = 0; try < PRIVATE_DIR_TRIES; try++) {
		unsigned char r[8];
		int n;

		if (rnd(r, sizeof(r)) != 0)
			return cs_fail(err, CS_EXIT_CONFIG,
				       "cannot read the kernel's random source for a private directory's name: "
				       "check that getrandom(2) works here");
		n = snprintf(out, len, "%s/%s.%02x%02x%02x%02x%02x%02x%02x%02x", base, prefix, r[0], r[1], r[2], r[3],
			     r[4], r[5], r[6], r[7]);
		if (n < 0 || (size_t)n >= len)
			return cs_fail(err, CS_EXIT_CONFIG, "the folder %s is too long a path: use a shorter TMPDIR", base);
		/* 0700 whatever the umask: the mode asked is masked, never widened */
		if (mkdir(out, 0700) == 0)
			return 0;
	}
	return cs_fail(err, CS_EXIT_CONFIG,
		       "cannot create a private directory %s/%s.* (%d random names tried): check that %s exists and is "
		       "writable by you",
		       base, prefix, PRIVATE_DIR_TRIES, base);
}
