/* Path text helpers that need nothing but libc. */
#ifndef CLI_SANDBOX_PATH_H
#define CLI_SANDBOX_PATH_H

/* The last component of path: what follows its last '/' (all of it when
 * there is none).  Points into path. */
const char *cs_basename(const char *path);

#endif
