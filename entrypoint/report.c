#include "entrypoint/report.h"

#include <jansson.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "entrypoint/first_run.h"
#include "entrypoint/oom.h"
#include "netfilter/render.h"

/* What the seccomp filter denies (caps/sandbox_filter.h), for the plan. */
static const char *seccomp_text(const struct pipeline *pl)
{
	return pl->cfg.allow_userns
		       ? "denies AF_VSOCK and every address family but unix/inet/inet6/netlink; user namespaces ALLOWED (CLI_SANDBOX_ALLOW_USERNS=true)"
		       : "denies AF_VSOCK and every address family but unix/inet/inet6/netlink; denies user namespaces (clone/unshare CLONE_NEWUSER, clone3)";
}

#define CAPS_TEXT "all: permitted, effective, inheritable and ambient emptied; bounding set emptied and securebits locked when CAP_SETPCAP is held; no_new_privs set"

/* Values that came from the environment or argv are printed escaped, so a
 * newline in an argument can never end a "#" comment and inject a rule
 * into a dump that an operator loads with nft -f. */
static void print_escaped(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
}

static void print_groups(FILE *out, const struct cs_user *u)
{
	for (size_t i = 0; i < u->n_groups; i++)
		fprintf(out, "%s%u", i ? "," : "", (unsigned)u->groups[i]);
}

static void print_range_text(FILE *out, struct ipv4_range r)
{
	char a[IPV4_TEXT_MAX], b[IPV4_TEXT_MAX];

	if (r.first == r.last)
		fprintf(out, "%s", ipv4_to_string(r.first, a));
	else
		fprintf(out, "%s-%s", ipv4_to_string(r.first, a), ipv4_to_string(r.last, b));
}

void report_destinations(const struct policy *p, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	if (!f) {
		snprintf(buf, len, "?");
		return;
	}
	for (size_t i = 0; i < p->n_dests; i++) {
		const struct policy_dest *d = &p->dests[i];

		fprintf(f, "%s%s/%u:", i ? ", " : "", nf_l4proto_name(d->l4proto), d->port);
		if (d->n_ranges == 0)
			fputs("(none)", f);
		for (size_t k = 0; k < d->n_ranges && k < 4; k++) {
			fputs(k ? "," : "", f);
			print_range_text(f, d->ranges[k]);
		}
		if (d->n_ranges > 4)
			fprintf(f, ",+%zu more", d->n_ranges - 4);
	}
	if (p->n_dests == 0)
		fputs("none", f);
	fclose(f);
	buf[len - 1] = '\0';
}

static const char *user_name(const struct cs_user *u)
{
	return u->name[0] ? u->name : "(no passwd entry)";
}

/* A JSON string of s; bytes that are not UTF-8 (an argument can hold any)
 * are written as \xNN so the dump stays valid JSON instead of failing. */
static json_t *json_text(const char *s)
{
	json_t *j = json_string(s);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (j)
		return j;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	print_escaped(f, s);
	fclose(f);
	j = json_string(buf);
	free(buf);
	return j;
}

/* Names only: the values are keys, never printed. */
static void print_credential_names(const struct pipeline *pl, FILE *out, char sep)
{
	for (size_t i = 0; i < pl->creds.n; i++) {
		const char *e = pl->creds.entries[i];

		if (sep == ' ' || i > 0)
			fputc(sep, out);
		fwrite(e, 1, (size_t)(strchr(e, '=') - e), out);
	}
}

void report_summary(const struct pipeline *pl, FILE *out)
{
	char dests[512];

	report_destinations(&pl->policy, dests, sizeof(dests));
	fprintf(out, "configuration valid: profile=%s firewall=%s allow=[%s] user=%s uid=%u gid=%u userns=%s command=",
		cs_profile_name(pl->cfg.profile), pl->policy.firewall ? "on" : "OFF",
		dests, user_name(&pl->user), (unsigned)pl->user.uid, (unsigned)pl->user.gid,
		pl->cfg.allow_userns ? "allowed" : "denied");
	print_escaped(out, pl->command.argv[0]);
	if (pl->creds.n) {
		fputs(" credentials=", out);
		print_credential_names(pl, out, ',');
	}
	fputc('\n', out);
}

int report_nft(const struct pipeline *pl, FILE *out)
{
	const struct policy *p = &pl->policy;
	const char *first;

	fputs("# cli-sandbox-init dry run: what a real start does, in order.\n", out);
	fprintf(out, "# profile: %s\n", cs_profile_name(pl->cfg.profile));
	if (!p->firewall) {
		fputs("# firewall: NONE (SKIP_EGRESS_FIREWALL=true): nothing is programmed, egress is open\n", out);
	} else {
		fprintf(out, "# firewall: table inet %s, one atomic netlink batch replacing any earlier copy\n",
			pl->ruleset.table);
		fprintf(out, "# ruleset sha256: %s\n", pl->digest);
		for (size_t i = 0; i < p->n_dests; i++) {
			const struct policy_dest *d = &p->dests[i];

			fprintf(out, "# allow %s port %u to ", nf_l4proto_name(d->l4proto), d->port);
			for (size_t k = 0; k < d->n_ranges; k++) {
				fputs(k ? "," : "", out);
				if (k == 8) {
					fprintf(out, "... (%zu ranges)", d->n_ranges);
					break;
				}
				print_range_text(out, d->ranges[k]);
			}
			fputs(d->n_ranges ? "  <- " : "(nothing resolved)  <- ", out);
			print_escaped(out, d->origin);
			fputc('\n', out);
		}
		for (size_t i = 0; i < p->n_resolvers; i++) {
			char a[IPV4_TEXT_MAX];

			fprintf(out, "# allow DNS (udp and tcp port 53) to %s  <- nameserver in resolv.conf\n",
				ipv4_to_string(p->resolvers[i], a));
		}
		if (!p->n_resolvers)
			fputs("# DNS: none, to any address (Docker's 127.0.0.11 included)\n", out);
		if (p->has_host_net) {
			char a[IPV4_TEXT_MAX];

			fprintf(out, "# allow everything to and from %s/%u  <- CLI_SANDBOX_ALLOW_HOST_NETWORK (default gateway's network)\n",
				ipv4_to_string(p->host_net_addr, a), p->host_net_len);
		}
	}
	fputs("# user: ", out);
	print_escaped(out, user_name(&pl->user));
	fprintf(out, " uid=%u gid=%u groups=", (unsigned)pl->user.uid, (unsigned)pl->user.gid);
	print_groups(out, &pl->user);
	fputs(" home=", out);
	print_escaped(out, pl->user.home);
	fputs("\n# capabilities to drop: " CAPS_TEXT "\n", out);
	fprintf(out, "# seccomp filter (PID 1 and the command): %s\n", seccomp_text(pl));
	fprintf(out, "# init: %s\n", pl->pid1 ?
		"stays PID 1: runs the command as its child, forwards signals, reaps zombies, exits with its status" :
		"not PID 1: execs the command directly");
	if (pl->pid1)
		fprintf(out, "# out of memory: %s\n", oom_describe());
	fputs("# command:", out);
	for (char *const *a = pl->command.argv; *a; a++) {
		fputc(' ', out);
		print_escaped(out, *a);
	}
	fputc('\n', out);
	for (size_t i = 0; i < pl->command.n_added; i++) {
		const struct env_var *v = &pl->command.added[i];

		if (v->copy_of) {  /* a key: its names only */
			fprintf(out, "# environment adds: %s (the value of %s, not shown)\n", v->name, v->copy_of);
			continue;
		}
		fprintf(out, "# environment adds: %s=", v->name);
		print_escaped(out, v->value);
		fputc('\n', out);
	}
	if (pl->creds.n) {
		fputs("# credentials file (" CS_CREDENTIALS_PATH ") adds:", out);
		print_credential_names(pl, out, ' ');
		fputs(" (values not shown)\n", out);
	}
	if ((first = first_run_describe(pl->command.cli, pl->cfg.has_url)))
		fprintf(out, "# first run: %s\n", first);
	if (pl->command.autonomy[0]) {
		fputs("# autonomy: ", out);
		print_escaped(out, pl->command.autonomy);
		fputc('\n', out);
	}
	if (p->firewall && render_nft(&pl->ruleset, out))
		return -1;
	return ferror(out) ? -1 : 0;
}

static json_t *range_list(const struct policy_dest *d)
{
	json_t *a = json_array();
	char b1[IPV4_TEXT_MAX], b2[IPV4_TEXT_MAX];

	for (size_t k = 0; k < d->n_ranges; k++)
		json_array_append_new(a, d->ranges[k].first == d->ranges[k].last ?
				      json_string(ipv4_to_string(d->ranges[k].first, b1)) :
				      json_sprintf("%s-%s", ipv4_to_string(d->ranges[k].first, b1),
						   ipv4_to_string(d->ranges[k].last, b2)));
	return a;
}

int report_json(const struct pipeline *pl, FILE *out)
{
	json_t *root, *groups = json_array(), *argv = json_array(), *env = json_object(), *copied = json_object();
	json_t *dests = json_array(), *ruleset = json_null(), *uname = json_text(pl->user.name);
	int rc;

	for (size_t i = 0; i < pl->user.n_groups; i++)
		json_array_append_new(groups, json_integer(pl->user.groups[i]));
	for (char *const *a = pl->command.argv; *a; a++)
		json_array_append_new(argv, json_text(*a));
	for (size_t i = 0; i < pl->command.n_added; i++)
		if (pl->command.added[i].copy_of)  /* a key: its names only */
			json_object_set_new(copied, pl->command.added[i].name, json_string(pl->command.added[i].copy_of));
		else
			json_object_set_new(env, pl->command.added[i].name, json_text(pl->command.added[i].value));
	for (size_t i = 0; i < pl->policy.n_dests; i++) {
		const struct policy_dest *d = &pl->policy.dests[i];

		json_array_append_new(dests, json_pack("{s:s, s:i, s:o, s:s}", "protocol",
						       nf_l4proto_name(d->l4proto), "port", d->port,
						       "addresses", range_list(d), "origin", d->origin));
	}
	{
		json_t *res = json_array();
		char a[IPV4_TEXT_MAX];

		for (size_t i = 0; i < pl->policy.n_resolvers; i++)
			json_array_append_new(res, json_string(ipv4_to_string(pl->policy.resolvers[i], a)));
		json_array_append_new(dests, json_pack("{s:s, s:i, s:o, s:s}", "protocol", "dns", "port", 53,
						       "addresses", res, "origin", "resolv.conf"));
		if (pl->policy.has_host_net) {
			char net[24];

			snprintf(net, sizeof(net), "%s/%u", ipv4_to_string(pl->policy.host_net_addr, a),
				 pl->policy.host_net_len);
			json_array_append_new(dests, json_pack("{s:s, s:i, s:[s], s:s}", "protocol", "any", "port", 0,
							       "addresses", net, "origin", "CLI_SANDBOX_ALLOW_HOST_NETWORK"));
		}
	}
	if (pl->policy.firewall) {
		json_decref(ruleset);
		ruleset = render_json(&pl->ruleset);
	}
	root = json_pack("{s:s, s:b, s:s, s:o, s:o, s:{s:s, s:i, s:i, s:o, s:o}, s:s, s:{s:s, s:b}, s:{s:s, s:o, s:o, s:o}, s:s}",
			 "profile", cs_profile_name(pl->cfg.profile),
			 "firewall", pl->policy.firewall,
			 "ruleset_sha256", pl->digest,
			 "destinations", dests,
			 "ruleset", ruleset ? ruleset : json_null(),
			 "user", "name", json_string_value(uname) ? json_string_value(uname) : "", "uid", (json_int_t)pl->user.uid,
			 "gid", (json_int_t)pl->user.gid, "groups", groups, "home", json_text(pl->user.home),
			 "capabilities_dropped", CAPS_TEXT,
			 "seccomp", "denies", seccomp_text(pl), "user_namespaces", pl->cfg.allow_userns,
			 "exec", "mode", pl->pid1 ? "init (PID 1)" : "exec", "argv", argv, "env_added", env,
			 "env_copied", copied,
			 "table", pl->ruleset.table);
	json_decref(uname);
	if (!root)
		return -1;
	{
		const char *first = first_run_describe(pl->command.cli, pl->cfg.has_url);

		json_object_set_new(json_object_get(root, "exec"), "first_run", first ? json_string(first) : json_null());
	}
	if (pl->creds.n) {
		json_t *names = json_array();

		for (size_t i = 0; i < pl->creds.n; i++) {
			const char *e = pl->creds.entries[i];

			json_array_append_new(names, json_stringn(e, (size_t)(strchr(e, '=') - e)));
		}
		json_object_set_new(json_object_get(root, "exec"), "credentials_file", names);
	}
	if (pl->command.autonomy[0])
		json_object_set_new(json_object_get(root, "exec"), "autonomy", json_text(pl->command.autonomy));
	rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return rc || ferror(out) ? -1 : 0;
}

void report_firewall_up(const struct pipeline *pl)
{
	char dests[512];

	report_destinations(&pl->policy, dests, sizeof(dests));
	cs_info("firewall up: profile=%s allow=[%s] sets=%zu rules=%zu sha256=%s",
		cs_profile_name(pl->cfg.profile), dests, pl->ruleset.n_sets,
		ruleset_n_rules(&pl->ruleset), pl->digest);
	/* Which DNS this is, in one line: a person reading a plain `docker run`
	 * learns why a rotated address is refused later, and what fixes it. */
	if (pl->policy.profile == CS_PROFILE_INTERACTIVE && pl->policy.dns_pinned)
		cs_info("DNS: pinned: the resolver on 127.0.0.1:53 (uid %u) answers the allowed names only and opens each answer's addresses as it answers",
			(unsigned)pl->policy.resolver_uid);
	else if (pl->policy.profile == CS_PROFILE_INTERACTIVE)
		cs_info("DNS: names resolved once, at start; an address a name moves to later is refused (the host script's pinning resolver follows DNS: docs/interactive.md)");
}
