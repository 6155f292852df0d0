/* The --version text.  The library versions are pkg-config's, baked in at
 * configure time (cmake/reproducible.cmake): they name the headers and
 * archives the build used, which is what a static binary carries (libseccomp
 * is not linked: it generated the filter's BPF at build time, caps/).  glibc is
 * given twice: the version of the headers it was compiled against, and
 * gnu_get_libc_version() now; in the static init both are the glibc linked
 * into it, in a dynamic build the second is the one loaded at run time. */
#include "entrypoint/build_info.h"

#include <gnu/libc-version.h>

/* The machine the init was compiled for, as uname -m names it: a cross build
 * (image/arm64/) says so itself, whatever machine runs it. */
#if defined(__x86_64__)
#define CS_BUILD_ARCH "x86_64"
#elif defined(__aarch64__)
#define CS_BUILD_ARCH "aarch64"
#else
#define CS_BUILD_ARCH "other"
#endif

#define CS_STR2(x) #x
#define CS_STR(x) CS_STR2(x)

void build_info_print(FILE *out)
{
	fprintf(out,
		"cli-sandbox-init %s\n"
		"commit %s\n"
		"linkage %s\n"
		"arch %s\n"
		"libnftnl %s\n"
		"libmnl %s\n"
		"libcap-ng %s\n"
		"libseccomp %s (generated the seccomp filter at build time; not linked)\n"
		"jansson %s\n"
		"glibc %s (built against %s)\n",
		CLI_SANDBOX_VERSION, CS_BUILD_COMMIT, CS_BUILD_LINKAGE, CS_BUILD_ARCH,
		CS_BUILD_LIBNFTNL, CS_BUILD_LIBMNL, CS_BUILD_LIBCAP_NG,
		CS_BUILD_LIBSECCOMP, CS_BUILD_JANSSON,
		gnu_get_libc_version(), CS_STR(__GLIBC__) "." CS_STR(__GLIBC_MINOR__));
}
