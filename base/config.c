#include "base/config.h"
#include "base/ipv4.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every variable the init reads.  Any other CLI_SANDBOX_* variable is a
 * typo of one of these, and a typo in a security setting must not be
 * silently ignored. */
static const char *const known_vars[] = {
	"CLI_SANDBOX_EGRESS_PROFILE", "CLI_SANDBOX_ALLOW_HOST_NETWORK", "CLI_SANDBOX_USER",
	"CLI_SANDBOX_ALLOW", "CLI_SANDBOX_PROFILE_DIR", "CLI_SANDBOX_ALLOW_USERNS", "CLI_SANDBOX_DNS",
	"CLI_SANDBOX_RESOLVER_UID", "CLI_SANDBOX_DNS_UPSTREAM", NULL,
};

const char *env_lookup(char *const envp[], const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

const char *cs_profile_name(enum cs_profile p)
{
	return p == CS_PROFILE_INTERACTIVE ? "interactive" : "managed";
}

static int check_unknown_vars(char *const envp[], struct cs_error *err)
{
	static const char prefix[] = "CLI_SANDBOX_";

	for (char *const *e = envp; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
		bool known = false;

		if (strncmp(*e, prefix, sizeof(prefix) - 1) != 0)
			continue;
		for (const char *const *k = known_vars; *k; k++)
			if (strlen(*k) == n && strncmp(*e, *k, n) == 0)
				known = true;
		if (!known)
			return cs_fail(err, CS_EXIT_CONFIG,
				       "unknown variable %.*s; fix its spelling or remove it (known: CLI_SANDBOX_EGRESS_PROFILE, CLI_SANDBOX_USER, CLI_SANDBOX_ALLOW, CLI_SANDBOX_ALLOW_HOST_NETWORK, CLI_SANDBOX_PROFILE_DIR, CLI_SANDBOX_ALLOW_USERNS, CLI_SANDBOX_DNS, CLI_SANDBOX_RESOLVER_UID, CLI_SANDBOX_DNS_UPSTREAM)",
				       (int)(n > 64 ? 64 : n), *e);
	}
	return 0;
}

/* unset, "false" or "true", exact lower case; anything else stops startup. */
static int parse_switch(char *const envp[], const char *name, bool *out, struct cs_error *err)
{
	const char *v = env_lookup(envp, name);

	*out = false;
	if (!v || strcmp(v, "false") == 0)
		return 0;
	if (strcmp(v, "true") == 0) {
		*out = true;
		return 0;
	}
	return cs_fail(err, CS_EXIT_CONFIG, "%s='%.32s' is not valid; set it to exactly 'true' or 'false', or unset it", name, v);
}

static int parse_u32(const char *s, size_t len, uint32_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 10 || (s[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= UINT32_MAX)  /* (uid_t)-1 means "unchanged" to setresuid */
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int user_spec_parse(const char *s, struct user_spec *spec, struct cs_error *err)
{
	const char *colon;
	size_t n = strlen(s);

	memset(spec, 0, sizeof(*spec));
	if (n == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER is empty; set a user name or uid[:gid], or unset it for '" CS_DEFAULT_USER "'");
	if (isdigit((unsigned char)s[0])) {
		colon = strchr(s, ':');
		if (parse_u32(s, colon ? (size_t)(colon - s) : n, &spec->uid) ||
		    (colon && parse_u32(colon + 1, strlen(colon + 1), &spec->gid)))
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER='%.40s' is not a valid uid[:gid]; write decimal ids such as 1000 or 1000:1000", s);
		spec->has_gid = colon != NULL;
		if (spec->uid == 0)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER is uid 0 (root); the command never runs as root, name an unprivileged user");
		if (spec->has_gid && spec->gid == 0)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER has gid 0 (root's group); give the user's own unprivileged group");
		return 0;
	}
	/* POSIX-ish portable user names, as useradd accepts them. */
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = islower((unsigned char)c) || c == '_' ||
			  (i > 0 && (isdigit((unsigned char)c) || c == '-' || c == '.'));
		if (!ok || n >= CS_USER_NAME_MAX)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER='%.40s' is not a valid user name; use lower-case letters, digits, '_', '-', '.'", s);
	}
	if (strcmp(s, "root") == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_USER is root; the command never runs as root, name an unprivileged user");
	spec->by_name = true;
	memcpy(spec->name, s, n + 1);
	return 0;
}

static int parse_profile(char *const envp[], struct cs_config *cfg, struct cs_error *err)
{
	const char *v = env_lookup(envp, "CLI_SANDBOX_EGRESS_PROFILE");

	if (!v || strcmp(v, "managed") == 0)
		cfg->profile = CS_PROFILE_MANAGED;
	else if (strcmp(v, "interactive") == 0)
		cfg->profile = CS_PROFILE_INTERACTIVE;
	else
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_EGRESS_PROFILE='%.32s' is not valid; set it to 'managed' or 'interactive', or unset it for managed", v);
	return 0;
}

static int parse_url(char *const envp[], struct cs_config *cfg, struct cs_error *err)
{
	const char *v = env_lookup(envp, "TASK_AGENT_MODEL_BASE_URL");
	bool managed = cfg->profile == CS_PROFILE_MANAGED;

	if (!v) {
		if (managed)
			return cs_fail(err, CS_EXIT_CONFIG, "TASK_AGENT_MODEL_BASE_URL is not set; the managed profile needs the model gateway as http(s)://A.B.C.D[:PORT][/PATH]");
		return 0;
	}
	if (model_url_parse(v, !managed, &cfg->url, err))
		return -1;
	cfg->has_url = true;
	return 0;
}

static int parse_interactive_only(char *const envp[], struct cs_config *cfg, struct cs_error *err)
{
	const char *allow = env_lookup(envp, "CLI_SANDBOX_ALLOW");
	bool managed = cfg->profile == CS_PROFILE_MANAGED;

	if (parse_switch(envp, "CLI_SANDBOX_ALLOW_HOST_NETWORK", &cfg->allow_host_network, err) ||
	    parse_switch(envp, "SKIP_EGRESS_FIREWALL", &cfg->skip_firewall, err))
		return -1;
	if (managed && cfg->allow_host_network)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_ALLOW_HOST_NETWORK=true is only allowed with CLI_SANDBOX_EGRESS_PROFILE=interactive; unset it for the managed profile");
	if (managed && cfg->skip_firewall)
		return cs_fail(err, CS_EXIT_CONFIG, "SKIP_EGRESS_FIREWALL=true is only allowed with CLI_SANDBOX_EGRESS_PROFILE=interactive; the managed profile always has its firewall, unset it");
	if (allow && managed)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_ALLOW is set, but the managed profile allows only the model gateway; unset it or use CLI_SANDBOX_EGRESS_PROFILE=interactive");
	if (allow) {
		if (strlen(allow) >= CS_ALLOW_TEXT_MAX)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_ALLOW is longer than %d characters; shorten it", CS_ALLOW_TEXT_MAX - 1);
		if (allow_parse(allow, &cfg->allow, &cfg->n_allow, err))
			return -1;
		cfg->has_allow = true;
	}
	return 0;
}

/* CLI_SANDBOX_DNS=pinned: the pinning resolver beside the agent owns DNS
 * (docs/interactive.md).  Interactive only, with its firewall, and with the
 * resolver's uid, which alone may send DNS upstream. */
static int parse_dns(char *const envp[], struct cs_config *cfg, struct cs_error *err)
{
	const char *dns = env_lookup(envp, "CLI_SANDBOX_DNS");
	const char *uid = env_lookup(envp, "CLI_SANDBOX_RESOLVER_UID");

	if (dns && strcmp(dns, "pinned") != 0)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_DNS='%.32s' is not valid; set it to exactly 'pinned' (with the pinning resolver beside the sandbox) or unset it", dns);
	cfg->dns_pinned = dns != NULL;
	if (!cfg->dns_pinned) {
		if (uid)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_RESOLVER_UID is set without CLI_SANDBOX_DNS=pinned; set both or neither");
		return 0;
	}
	if (cfg->profile != CS_PROFILE_INTERACTIVE)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_DNS=pinned is only for CLI_SANDBOX_EGRESS_PROFILE=interactive (the managed profile has no DNS at all); unset it");
	if (cfg->skip_firewall)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_DNS=pinned needs the firewall, but SKIP_EGRESS_FIREWALL=true turns it off; unset one of them");
	if (!uid || parse_u32(uid, strlen(uid), &cfg->resolver_uid) || cfg->resolver_uid == 0)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_DNS=pinned needs CLI_SANDBOX_RESOLVER_UID, the pinning resolver's own uid (decimal, not 0)");
	return 0;
}

/* CLI_SANDBOX_DNS_UPSTREAM=A.B.C.D[,A.B.C.D...]: where the pinning resolver
 * forwards, when resolv.conf cannot say it.  In a pod (dnsPolicy None) and
 * beside a sidecar, resolv.conf names 127.0.0.1, the resolver itself, for
 * every container; the upstream (the cluster's DNS Service) must come from
 * elsewhere, and this is the one place: the rule that lets the resolver's
 * uid alone send DNS upstream, and --verify-only's proof that nothing else
 * can, both need it. */
static int parse_dns_upstream(char *const envp[], struct cs_config *cfg, struct cs_error *err)
{
	const char *v = env_lookup(envp, "CLI_SANDBOX_DNS_UPSTREAM");

	if (!v)
		return 0;
	if (!cfg->dns_pinned)
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_DNS_UPSTREAM is set without CLI_SANDBOX_DNS=pinned; it names the pinning resolver's upstreams, set both or neither");
	for (const char *p = v;;) {
		size_t len = strcspn(p, ",");
		uint32_t a;
		const char *why;

		if (cfg->n_dns_upstream == CS_DNS_UPSTREAM_MAX || ipv4_parse_strict(p, len, &a) != 0)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_DNS_UPSTREAM='%.64s' is not 1 to %d dotted-quad IPv4 addresses separated by commas; set it to the cluster DNS Service's address (e.g. 10.96.0.10)",
				       v, CS_DNS_UPSTREAM_MAX);
		why = ipv4_forbidden_nameserver(a);
		if (why || (a >> 24) == 127)
			return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_DNS_UPSTREAM names %.*s, in %s, which cannot be the resolver's upstream; set the cluster DNS Service's address",
				       (int)len, p, why ? why : "loopback 127.0.0.0/8 (the resolver listens there itself)");
		cfg->dns_upstream[cfg->n_dns_upstream++] = a;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	return 0;
}

/* The variables both profiles read. */
static int parse_rest(char *const envp[], struct cs_config *cfg, struct cs_error *err)
{
	const char *user, *dir;

	user = env_lookup(envp, "CLI_SANDBOX_USER");
	if (user_spec_parse(user ? user : CS_DEFAULT_USER, &cfg->user, err))
		return -1;

	/* Both profiles: the operator decides, the command cannot set it. */
	if (parse_switch(envp, "CLI_SANDBOX_ALLOW_USERNS", &cfg->allow_userns, err))
		return -1;

	dir = env_lookup(envp, "CLI_SANDBOX_PROFILE_DIR");
	if (dir && dir[0] != '/')
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_PROFILE_DIR='%.64s' is not an absolute path; set an absolute directory or unset it for " CS_DEFAULT_PROFILE_DIR, dir);
	if (dir && strlen(dir) >= sizeof(cfg->profile_dir))
		return cs_fail(err, CS_EXIT_CONFIG, "CLI_SANDBOX_PROFILE_DIR is too long (%zu characters, at most %zu); set a shorter directory or unset it for " CS_DEFAULT_PROFILE_DIR,
			       strlen(dir), sizeof(cfg->profile_dir) - 1);
	snprintf(cfg->profile_dir, sizeof(cfg->profile_dir), "%s", dir ? dir : CS_DEFAULT_PROFILE_DIR);
	return 0;
}

int config_load(char *const envp[], struct cs_config *cfg, struct cs_error *err)
{
	memset(cfg, 0, sizeof(*cfg));
	if (check_unknown_vars(envp, err) || parse_profile(envp, cfg, err) ||
	    parse_url(envp, cfg, err) || parse_interactive_only(envp, cfg, err) || parse_dns(envp, cfg, err) ||
	    parse_dns_upstream(envp, cfg, err) ||
	    parse_rest(envp, cfg, err)) {
		config_free(cfg);
		return -1;
	}
	return 0;
}

void config_free(struct cs_config *cfg)
{
	free(cfg->allow);
	cfg->allow = NULL;
	cfg->n_allow = 0;
}
