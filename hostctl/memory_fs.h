/* Whether a folder is on memory (tmpfs or ramfs, by statfs): where the host
 * side may put a file that must not reach a disk (the credentials file, the
 * gateway's secrets).  One test for the runner's memory_dir lines and the
 * credentials command's choice of a base. */
#ifndef CLI_SANDBOX_HOSTCTL_MEMORY_FS_H
#define CLI_SANDBOX_HOSTCTL_MEMORY_FS_H

/* 1 on memory, 0 on another file system, -1 when statfs fails. */
int memory_fs(const char *path);

#endif
