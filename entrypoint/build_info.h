/* What this init was built from, for --version: its version, the commit,
 * and the versions of the libraries it links (docs/release.md). */
#ifndef CS_ENTRYPOINT_BUILD_INFO_H
#define CS_ENTRYPOINT_BUILD_INFO_H

#include <stdio.h>

/* Prints the --version text.  Its first line stays "cli-sandbox-init
 * VERSION" (scripts and tests read it). */
void build_info_print(FILE *out);

#endif
