/* libFuzzer harness for the profile JSON (the override file of
 * CLI_SANDBOX_PROFILE_DIR): no document may crash the parser, and every
 * accepted profile holds only what the interactive policy may use. */
#include "fuzz.h"
#include "profiles/profile.h"

static void check_ports(const uint16_t *ports, size_t n)
{
	invariant(n >= 1 && n <= PROFILE_MAX_PORTS);
	for (size_t i = 0; i < n; i++)
		invariant(ports[i] != 0 && ports[i] != 53);
}

static void check_file(const char *f)
{
	invariant(f[0] && f[0] != '.' && strchr(f, '/') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct cs_error err;

	if (profile_parse((const char *)data, size, "fuzz", &p, &err) != 0) {
		invariant_error(&err, CS_EXIT_CONFIG);
		invariant(p.n_sections == 0 && p.sections == NULL);
		return 0;
	}
	invariant(p.n_sections >= 1 && strcmp(p.sections[0].name, "common") == 0);
	for (size_t s = 0; s < p.n_sections; s++) {
		const struct profile_section *sec = &p.sections[s];

		invariant(sec->name[0] && (s == 0 || strcmp(sec->name, "common") != 0));
		for (size_t d = 0; d < sec->n_domains; d++) {
			invariant(dns_name_valid(sec->domains[d].name, strlen(sec->domains[d].name)) == 0);
			check_ports(sec->domains[d].ports, sec->domains[d].n_ports);
		}
		for (size_t r = 0; r < sec->n_ranges; r++) {
			const struct profile_ranges *pr = &sec->ranges[r];

			check_file(pr->file);
			if (pr->minus[0])
				check_file(pr->minus);
			invariant(pr->format == PROFILE_RANGES_GITHUB_META ? pr->n_lists >= 1 : pr->n_lists == 0);
			check_ports(pr->ports, pr->n_ports);
		}
	}
	profile_free(&p);
	return 0;
}
