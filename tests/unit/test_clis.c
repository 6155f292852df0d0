/* The CLI table (entrypoint/clis/cli.h): every row has every entry the
 * others have, so a CLI added without one of them fails here and not in a
 * user's container.  A step a CLI does not need is said explicitly (""
 * for a text, the cli_*_nothing functions for a step), never left out. */
#include <stdio.h>
#include <string.h>

#include "base/cli_names.h"
#include "base/credentials.h"
#include "entrypoint/command.h"
#include "entrypoint/first_run.h"
#include "profiles/profile.h"
#include "check.h"

static size_t count_rows(void)
{
	size_t n = 0;

	while (cli_table[n])
		n++;
	return n;
}

/* The row's plan in one profile, for its argv[0] alone. */
static int build(const struct cli *c, enum cs_profile profile, struct command *p, struct cs_error *err)
{
	struct cs_user user = { .name = "node", .uid = 1000, .gid = 1000, .home = "/nonexistent" };
	struct cs_config cfg = { .profile = profile };
	char *no_env[] = { NULL };
	char *argv[] = { (char *)c->name, NULL };

	cfg.has_url = model_url_parse("http://192.0.2.10:4000/v1", profile == CS_PROFILE_INTERACTIVE, &cfg.url, err) == 0;
	return command_build(&cfg, &user, no_env, argv, "/nonexistent/ext.js", p, err);
}

/* Each ';'-separated item of a CLI's protect list is "K REL": K one of f d j o,
 * REL relative, inside the state folder (no "..", no leading '/'), no ';'. */
static int protect_items_ok(const char *s)
{
	while (*s) {
		size_t n = strcspn(s, ";");

		if (n < 3 || !strchr("fdjo", s[0]) || s[1] != ' ' || s[2] == '/' || s[2] == ' ')
			return 0;
		for (size_t i = 2; i + 1 < n; i++)
			if (s[i] == '.' && s[i + 1] == '.')
				return 0;
		s += n + (s[n] == ';');
	}
	return 1;
}

int main(void)
{
	struct profile prof;
	struct cs_error err;
	size_t n = count_rows();

	CHECK(n >= 3, "the table has its rows (%zu)", n);
	CHECK(profile_load("/nonexistent", &prof, &err) == 0, "built-in profile: %s", err.msg);
	for (size_t i = 0; i < n; i++) {
		const struct cli *c = cli_table[i];
		const char *nm = c->name ? c->name : "(no name)";
		struct command p;

		CHECK(c->name && c->name[0], "row %zu has a name", i);
		CHECK(cli_find(nm) == c, "%s: found by its name", nm);
		for (size_t k = 0; k < i; k++)
			CHECK(strcmp(cli_table[k]->name, nm) != 0, "%s: one row only", nm);
		/* gateway wiring: a variable, a config key or a step of its own */
		CHECK(c->base_url_vars[0] || c->base_url_config || c->wire != cli_plan_nothing,
		      "%s: pointed at the gateway somehow", nm);
		CHECK(c->wire != NULL, "%s: a wiring step (cli_plan_nothing for none)", nm);
		CHECK(c->quiet_vars[0][0] || c->quiet_args[0], "%s: kept quiet in managed", nm);
		/* a key copied under a second name: both are names the credentials
		 * file may carry (the host script hands keys in it), and differ */
		for (size_t k = 0; k < CLI_MAX_KEY_COPIES && c->key_copies[k][0]; k++)
			CHECK(c->key_copies[k][1] && strcmp(c->key_copies[k][0], c->key_copies[k][1]) != 0 &&
			      credential_name_ok(c->key_copies[k][0], strlen(c->key_copies[k][0])) &&
			      credential_name_ok(c->key_copies[k][1], strlen(c->key_copies[k][1])),
			      "%s: key copy %s from %s", nm, c->key_copies[k][0], c->key_copies[k][1] ? c->key_copies[k][1] : "(none)");
		CHECK(c->managed_autonomy && c->interactive_note, "%s: autonomy in both profiles", nm);
		CHECK(c->nested_sandbox && c->decide_sandbox, "%s: a nested-sandbox step (the nothing ones for none)", nm);
		CHECK(c->state_var && c->state_dir && (c->state_var[0] != '\0') == (c->state_dir[0] != '\0'),
		      "%s: state folder named, or \"\" and \"\"", nm);
		CHECK(c->first_run && c->first_run_plan, "%s: first-run help and its plan line (\"\" for none)", nm);
		CHECK((c->first_run == cli_first_run_nothing) == (c->first_run_plan[0] == '\0'),
		      "%s: a first-run step exactly when the plan says one", nm);
		CHECK(c->first_run == cli_first_run_nothing || c->state_var[0],
		      "%s: a first run needs a state folder to write", nm);
		CHECK(c->profile_section && profile_cli(&prof, c->profile_section),
		      "%s: its section '%s' is in the interactive profile", nm, c->profile_section ? c->profile_section : "");
		/* what the plan and the start line say, in both profiles */
		CHECK(build(c, CS_PROFILE_MANAGED, &p, &err) == 0, "%s managed: %s", nm, err.msg);
		CHECK(p.cli == c && p.autonomy[0], "%s managed: the plan says what its autonomy is", nm);
		command_free(&p);
		CHECK(build(c, CS_PROFILE_INTERACTIVE, &p, &err) == 0, "%s interactive: %s", nm, err.msg);
		CHECK(p.cli == c && p.autonomy[0], "%s interactive: the plan says what its autonomy is", nm);
		command_free(&p);
	}
	/* every CLI section of the profile belongs to a row (no dead data) */
	for (size_t s = 1; s < prof.n_sections; s++) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			found = found || strcmp(cli_table[i]->profile_section, prof.sections[s].name) == 0;
		CHECK(found, "profile section '%s' is a CLI of the table", prof.sections[s].name);
	}
	CHECK(cli_find("bash") == NULL && cli_find("/usr/bin/claude") == cli_find("claude"),
	      "any other command has no row; a path is found by its basename");
	/* One list of CLIs: the table's rows are base/cli_names.h's names, in
	 * its order, no more and no fewer (the host program reads that list). */
	size_t m = 0;
	while (cs_cli_names[m].name)
		m++;
	CHECK(m == n, "base/cli_names.h lists as many CLIs (%zu) as the table (%zu)", m, n);
	for (size_t i = 0; i < n && i < m; i++) {
		const struct cs_cli_name *h = &cs_cli_names[i];
		const struct cli *c = cli_table[i];

		CHECK(strcmp(h->name, c->name) == 0, "row %zu: the table's %s is base/cli_names.h's %s", i, c->name, h->name);
		/* the host's state folder (what the runner mounts) is the init's where
		 * the init names one; the host's own fields are all there */
		CHECK(h->state_dir && h->state_dir[0] && h->state_var && h->state_sub && h->logins && h->logins[0] && h->keys &&
			      h->keys[0] && (h->state_var[0] != '\0') == (h->state_sub[0] != '\0'),
		      "%s: base/cli_names.h has its state folder, login files and key variables", h->name);
		CHECK(!c->state_var[0] || (strcmp(c->state_var, h->state_var) == 0 && strcmp(c->state_dir, h->state_dir) == 0),
		      "%s: the host mounts the state folder the init points it at (%s=~/%s)", h->name, c->state_var, c->state_dir);
		CHECK(h->protect && protect_items_ok(h->protect), "%s: its protected state paths are 'KIND REL' items (%s)",
		      h->name, h->protect ? h->protect : "none");
	}
	profile_free(&prof);
	return check_done("test_clis");
}
