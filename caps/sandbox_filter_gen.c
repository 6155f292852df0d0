/* sandbox_filter_gen OUTPUT.h: the build step that turns the libseccomp
 * rules (sandbox_rules.c) into the BPF programs cli-sandbox-init embeds,
 * one per variant, as a C header.  Built for and run on the build machine,
 * which is the target machine (CMake refuses cross builds): libseccomp
 * generates for its native architecture.  The output depends on the rules
 * and the libseccomp version only, never on the builder's kernel (see
 * SANDBOX_RULES_API_LEVEL).  Written to OUTPUT.tmp and renamed, so a failed
 * run leaves no half header behind. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/sandbox_rules.h"

/* variant: 0 deny user namespaces, 1 allow them, 2 the resolver child's */
static int write_program(FILE *out, const char *name, int variant)
{
	struct sock_filter *insns;
	const char *what;
	size_t n;
	int rc = variant == 2 ? sandbox_rules_export_resolver(&insns, &n, &what)
			      : sandbox_rules_export(variant == 1, &insns, &n, &what);

	if (rc != 0) {
		fprintf(stderr, "sandbox_filter_gen: cannot generate the %s program (%s: %s)\n", name, what,
			strerror(-rc));
		return -1;
	}
	fprintf(out, "\n/* %s: %zu instructions */\n",
		variant == 2 ? "the resolver child" : variant == 1 ? "allow_userns=true" : "allow_userns=false", n);
	fprintf(out, "static const struct sock_filter %s[%zu] = {\n", name, n);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\t{ 0x%04x, %3u, %3u, 0x%08x },\n", insns[i].code, insns[i].jt, insns[i].jf,
			(unsigned)insns[i].k);
	fputs("};\n", out);
	free(insns);
	return 0;
}

int main(int argc, char **argv)
{
	const struct scmp_version *v = seccomp_version();
	char tmp[4096];
	FILE *out;
	int rc, werr;

	if (argc != 2 || snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]) >= (int)sizeof(tmp)) {
		fputs("usage: sandbox_filter_gen OUTPUT.h\n", stderr);
		return 2;
	}
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "sandbox_filter_gen: %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	fprintf(out,
		"/* Generated at build time by caps/sandbox_filter_gen from the rules in\n"
		" * caps/sandbox_rules.c (libseccomp %u.%u.%u, API level %d): do not edit.\n"
		" * Included by caps/sandbox_filter.c only. */\n"
		"#ifndef CLI_SANDBOX_SANDBOX_FILTER_BPF_H\n"
		"#define CLI_SANDBOX_SANDBOX_FILTER_BPF_H\n\n"
		"#include <linux/filter.h>\n\n"
		"/* The architecture the programs admit (AUDIT_ARCH_*): any other is killed. */\n"
		"#define SANDBOX_FILTER_AUDIT_ARCH 0x%08xu\n",
		v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0, SANDBOX_RULES_API_LEVEL, sandbox_rules_arch());
	rc = write_program(out, "sandbox_filter_deny_userns", 0);
	if (rc == 0)
		rc = write_program(out, "sandbox_filter_allow_userns", 1);
	if (rc == 0)
		rc = write_program(out, "resolver_filter", 2);
	fputs("\n#endif\n", out);
	werr = ferror(out);
	werr |= fclose(out) != 0;
	if (werr && rc == 0) {
		fprintf(stderr, "sandbox_filter_gen: writing %s failed\n", tmp);
		rc = -1;
	}
	if (rc == 0 && rename(tmp, argv[1]) != 0) {
		fprintf(stderr, "sandbox_filter_gen: %s: %s\n", argv[1], strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		remove(tmp);
	return rc == 0 ? 0 : 1;
}
