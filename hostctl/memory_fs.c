#include "hostctl/memory_fs.h"

#include <sys/statfs.h>

#define TMPFS_FS 0x01021994u /* TMPFS_MAGIC, linux/magic.h */
#define RAMFS_FS 0x858458f6u /* RAMFS_MAGIC */

int memory_fs(const char *path)
{
	struct statfs fs;

	if (statfs(path, &fs) != 0)
		return -1;
	return (unsigned)fs.f_type == TMPFS_FS || (unsigned)fs.f_type == RAMFS_FS;
}
