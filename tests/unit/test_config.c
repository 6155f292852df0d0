/* Every rule of the contract's configuration table, the empty string
 * included: each case is an environment and the expected outcome. */
#include "base/config.h"
#include "check.h"

#define URL "TASK_AGENT_MODEL_BASE_URL=http://192.0.2.10:8080"
#define MAX_ENV 8

struct env_case {
	const char *env[MAX_ENV];
	bool ok;
	const char *expect;  /* rejection: message fragment; accepted: a property key below */
};

static const struct env_case cases[] = {
	/* CLI_SANDBOX_EGRESS_PROFILE */
	{ { URL }, true, "managed" },
	{ { URL, "CLI_SANDBOX_EGRESS_PROFILE=managed" }, true, "managed" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive" }, true, "interactive" },
	{ { URL, "CLI_SANDBOX_EGRESS_PROFILE=" }, false, "CLI_SANDBOX_EGRESS_PROFILE=''" },
	{ { URL, "CLI_SANDBOX_EGRESS_PROFILE=Managed" }, false, "CLI_SANDBOX_EGRESS_PROFILE='Managed'" },
	{ { URL, "CLI_SANDBOX_EGRESS_PROFILE=open" }, false, "'managed' or 'interactive'" },
	{ { URL, "CLI_SANDBOX_EGRESS_PROFILE=managed " }, false, "CLI_SANDBOX_EGRESS_PROFILE" },
	/* TASK_AGENT_MODEL_BASE_URL */
	{ { NULL }, false, "TASK_AGENT_MODEL_BASE_URL is not set" },
	{ { "TASK_AGENT_MODEL_BASE_URL=" }, false, "TASK_AGENT_MODEL_BASE_URL is empty" },
	{ { "TASK_AGENT_MODEL_BASE_URL=https://api.anthropic.com" }, false, "DNS name" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "TASK_AGENT_MODEL_BASE_URL=https://api.anthropic.com" }, true, "interactive+url" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "TASK_AGENT_MODEL_BASE_URL=" }, false, "TASK_AGENT_MODEL_BASE_URL is empty" },
	/* CLI_SANDBOX_ALLOW_HOST_NETWORK */
	{ { URL, "CLI_SANDBOX_ALLOW_HOST_NETWORK=false" }, true, "managed" },
	{ { URL, "CLI_SANDBOX_ALLOW_HOST_NETWORK=true" }, false, "only allowed with CLI_SANDBOX_EGRESS_PROFILE=interactive" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_ALLOW_HOST_NETWORK=true" }, true, "host-network" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_ALLOW_HOST_NETWORK=" }, false, "CLI_SANDBOX_ALLOW_HOST_NETWORK=''" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_ALLOW_HOST_NETWORK=TRUE" }, false, "exactly 'true' or 'false'" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_ALLOW_HOST_NETWORK=1" }, false, "exactly 'true' or 'false'" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_ALLOW_HOST_NETWORK=yes" }, false, "exactly 'true' or 'false'" },
	/* SKIP_EGRESS_FIREWALL */
	{ { URL, "SKIP_EGRESS_FIREWALL=false" }, true, "managed" },
	{ { URL, "SKIP_EGRESS_FIREWALL=true" }, false, "SKIP_EGRESS_FIREWALL=true is only allowed" },
	{ { URL, "SKIP_EGRESS_FIREWALL=" }, false, "SKIP_EGRESS_FIREWALL=''" },
	{ { URL, "SKIP_EGRESS_FIREWALL=True" }, false, "exactly 'true' or 'false'" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "SKIP_EGRESS_FIREWALL=true" }, true, "skip" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "SKIP_EGRESS_FIREWALL=0" }, false, "exactly 'true' or 'false'" },
	/* CLI_SANDBOX_USER */
	{ { URL, "CLI_SANDBOX_USER=alice" }, true, "user alice" },
	{ { URL, "CLI_SANDBOX_USER=1000" }, true, "uid 1000" },
	{ { URL, "CLI_SANDBOX_USER=1000:1001" }, true, "uid 1000:1001" },
	{ { URL, "CLI_SANDBOX_USER=" }, false, "CLI_SANDBOX_USER is empty" },
	{ { URL, "CLI_SANDBOX_USER=0" }, false, "uid 0" },
	{ { URL, "CLI_SANDBOX_USER=0:0" }, false, "uid 0" },
	{ { URL, "CLI_SANDBOX_USER=1000:0" }, false, "gid 0" },
	{ { URL, "CLI_SANDBOX_USER=root" }, false, "is root" },
	{ { URL, "CLI_SANDBOX_USER=01000" }, false, "not a valid uid" },
	{ { URL, "CLI_SANDBOX_USER=1000:" }, false, "not a valid uid" },
	{ { URL, "CLI_SANDBOX_USER=4294967295" }, false, "not a valid uid" },
	{ { URL, "CLI_SANDBOX_USER=-1" }, false, "not a valid user name" },
	{ { URL, "CLI_SANDBOX_USER=Alice" }, false, "not a valid user name" },
	{ { URL, "CLI_SANDBOX_USER=a:b" }, false, "not a valid user name" },
	{ { URL, "CLI_SANDBOX_USER=../etc" }, false, "not a valid user name" },
	/* CLI_SANDBOX_ALLOW */
	{ { URL, "CLI_SANDBOX_ALLOW=example.org" }, false, "CLI_SANDBOX_ALLOW is set, but the managed profile" },
	{ { URL, "CLI_SANDBOX_ALLOW=" }, false, "CLI_SANDBOX_ALLOW is set, but the managed profile" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_ALLOW=example.org:443" }, true, "allow" },
	/* CLI_SANDBOX_PROFILE_DIR */
	{ { URL, "CLI_SANDBOX_PROFILE_DIR=/opt/profiles" }, true, "dir /opt/profiles" },
	{ { URL, "CLI_SANDBOX_PROFILE_DIR=relative/dir" }, false, "not an absolute path" },
	{ { URL, "CLI_SANDBOX_PROFILE_DIR=" }, false, "not an absolute path" },
	/* CLI_SANDBOX_ALLOW_USERNS: both profiles, exact lower case */
	{ { URL, "CLI_SANDBOX_ALLOW_USERNS=true" }, true, "userns" },
	{ { "CLI_SANDBOX_EGRESS_PROFILE=interactive", "CLI_SANDBOX_ALLOW_USERNS=true" }, true, "userns" },
	{ { URL, "CLI_SANDBOX_ALLOW_USERNS=false" }, true, "no userns" },
	{ { URL }, true, "no userns" },
	{ { URL, "CLI_SANDBOX_ALLOW_USERNS=TRUE" }, false, "CLI_SANDBOX_ALLOW_USERNS='TRUE' is not valid" },
	{ { URL, "CLI_SANDBOX_ALLOW_USERNS=1" }, false, "CLI_SANDBOX_ALLOW_USERNS='1' is not valid" },
	{ { URL, "CLI_SANDBOX_ALLOW_USERNS=" }, false, "CLI_SANDBOX_ALLOW_USERNS='' is not valid" },
	/* CLI_SANDBOX_DNS=pinned and its resolver's uid (issue 33) */
#define INTER "CLI_SANDBOX_EGRESS_PROFILE=interactive"
	{ { INTER, "CLI_SANDBOX_DNS=pinned", "CLI_SANDBOX_RESOLVER_UID=990" }, true, "pinned 990" },
	{ { INTER }, true, "not pinned" },
	{ { INTER, "CLI_SANDBOX_DNS=Pinned", "CLI_SANDBOX_RESOLVER_UID=990" }, false, "CLI_SANDBOX_DNS='Pinned' is not valid" },
	{ { INTER, "CLI_SANDBOX_DNS=", "CLI_SANDBOX_RESOLVER_UID=990" }, false, "CLI_SANDBOX_DNS='' is not valid" },
	{ { INTER, "CLI_SANDBOX_DNS=pinned" }, false, "needs CLI_SANDBOX_RESOLVER_UID" },
	{ { INTER, "CLI_SANDBOX_DNS=pinned", "CLI_SANDBOX_RESOLVER_UID=0" }, false, "needs CLI_SANDBOX_RESOLVER_UID" },
	{ { INTER, "CLI_SANDBOX_DNS=pinned", "CLI_SANDBOX_RESOLVER_UID=09" }, false, "needs CLI_SANDBOX_RESOLVER_UID" },
	{ { INTER, "CLI_SANDBOX_DNS=pinned", "CLI_SANDBOX_RESOLVER_UID=-1" }, false, "needs CLI_SANDBOX_RESOLVER_UID" },
	{ { INTER, "CLI_SANDBOX_RESOLVER_UID=990" }, false, "without CLI_SANDBOX_DNS=pinned" },
	{ { URL, "CLI_SANDBOX_DNS=pinned", "CLI_SANDBOX_RESOLVER_UID=990" }, false, "only for CLI_SANDBOX_EGRESS_PROFILE=interactive" },
	{ { INTER, "SKIP_EGRESS_FIREWALL=true", "CLI_SANDBOX_DNS=pinned", "CLI_SANDBOX_RESOLVER_UID=990" }, false, "needs the firewall" },
	/* CLI_SANDBOX_DNS_UPSTREAM: the resolver's upstreams when resolv.conf names 127.0.0.1 (a pod) */
#define PINNED INTER, "CLI_SANDBOX_DNS=pinned", "CLI_SANDBOX_RESOLVER_UID=990"
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=10.96.0.10" }, true, "upstream 10.96.0.10" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=10.96.0.10,192.0.2.53,198.51.100.53" }, true, "upstream three" },
	{ { PINNED }, true, "no upstream" },
	{ { INTER, "CLI_SANDBOX_DNS_UPSTREAM=10.96.0.10" }, false, "CLI_SANDBOX_DNS_UPSTREAM is set without CLI_SANDBOX_DNS=pinned" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=" }, false, "is not 1 to 3 dotted-quad" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=10.96.0.10," }, false, "is not 1 to 3 dotted-quad" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=10.96.0.010" }, false, "is not 1 to 3 dotted-quad" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=kube-dns" }, false, "is not 1 to 3 dotted-quad" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=10.96.0.10:53" }, false, "is not 1 to 3 dotted-quad" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=192.0.2.1,192.0.2.2,192.0.2.3,192.0.2.4" }, false, "is not 1 to 3 dotted-quad" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=127.0.0.1" }, false, "loopback 127.0.0.0/8" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=127.0.0.11" }, false, "loopback 127.0.0.0/8" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=224.0.0.251" }, false, "cannot be the resolver's upstream" },
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=169.254.169.253" }, true, "pinned 990" },  /* a cloud's own DNS (AWS), as in resolv.conf */
	{ { PINNED, "CLI_SANDBOX_DNS_UPSTREAM=0.0.0.0" }, false, "cannot be the resolver's upstream" },
	/* unknown variables of ours are typos */
	{ { URL, "CLI_SANDBOX_EGRES_PROFILE=interactive" }, false, "unknown variable CLI_SANDBOX_EGRES_PROFILE" },
	{ { URL, "CLI_SANDBOX_USERS=alice" }, false, "unknown variable CLI_SANDBOX_USERS" },
	{ { URL, "OTHER_VARIABLE=x", "PATH=/usr/bin" }, true, "managed" },
};

static bool property(const struct cs_config *c, const char *key)
{
	if (strcmp(key, "managed") == 0)
		return c->profile == CS_PROFILE_MANAGED && c->has_url && c->url.addr == 0xc000020a &&
		       c->url.port == 8080 && strcmp(c->user.name, "node") == 0 && c->user.by_name &&
		       strcmp(c->profile_dir, CS_DEFAULT_PROFILE_DIR) == 0 && !c->skip_firewall &&
		       !c->allow_host_network && !c->has_allow;
	if (strcmp(key, "interactive") == 0)
		return c->profile == CS_PROFILE_INTERACTIVE && !c->has_url;
	if (strcmp(key, "interactive+url") == 0)
		return c->profile == CS_PROFILE_INTERACTIVE && c->has_url && !c->url.host_is_ipv4 &&
		       strcmp(c->url.host, "api.anthropic.com") == 0 && c->url.port == 443;
	if (strcmp(key, "host-network") == 0)
		return c->allow_host_network && !c->skip_firewall;
	if (strcmp(key, "skip") == 0)
		return c->skip_firewall && !c->allow_host_network;
	if (strcmp(key, "user alice") == 0)
		return c->user.by_name && strcmp(c->user.name, "alice") == 0;
	if (strcmp(key, "uid 1000") == 0)
		return !c->user.by_name && c->user.uid == 1000 && !c->user.has_gid;
	if (strcmp(key, "uid 1000:1001") == 0)
		return !c->user.by_name && c->user.uid == 1000 && c->user.has_gid && c->user.gid == 1001;
	if (strcmp(key, "allow") == 0)
		return c->has_allow && c->n_allow == 1 && c->allow[0].is_name && strcmp(c->allow[0].name, "example.org") == 0 &&
		       c->allow[0].port == 443;
	if (strcmp(key, "userns") == 0)
		return c->allow_userns;
	if (strcmp(key, "no userns") == 0)
		return !c->allow_userns;
	if (strcmp(key, "pinned 990") == 0)
		return c->dns_pinned && c->resolver_uid == 990;
	if (strcmp(key, "not pinned") == 0)
		return !c->dns_pinned && c->resolver_uid == 0;
	if (strcmp(key, "upstream 10.96.0.10") == 0)
		return c->dns_pinned && c->n_dns_upstream == 1 && c->dns_upstream[0] == 0x0a60000au;
	if (strcmp(key, "upstream three") == 0)
		return c->n_dns_upstream == 3 && c->dns_upstream[0] == 0x0a60000au && c->dns_upstream[1] == 0xc0000235u &&
		       c->dns_upstream[2] == 0xc6336435u;
	if (strcmp(key, "no upstream") == 0)
		return c->dns_pinned && c->n_dns_upstream == 0;
	if (strcmp(key, "dir /opt/profiles") == 0)
		return strcmp(c->profile_dir, "/opt/profiles") == 0;
	return false;
}

int main(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < n; i++) {
		struct cs_config cfg;
		struct cs_error err = { 0 };
		int rc = config_load((char *const *)cases[i].env, &cfg, &err);

		if (cases[i].ok) {
			CHECK(rc == 0, "case %zu rejected: %s", i, err.msg);
			CHECK(rc != 0 || property(&cfg, cases[i].expect), "case %zu lacks property '%s'", i, cases[i].expect);
			config_free(&cfg);
		} else {
			CHECK(rc == -1 && err.status == CS_EXIT_CONFIG, "case %zu accepted (status %d)", i, err.status);
			CHECK(strstr(err.msg, cases[i].expect) != NULL, "case %zu: '%s' lacks '%s'", i, err.msg, cases[i].expect);
			CHECK(strchr(err.msg, '\n') == NULL, "case %zu: one line", i);
		}
	}
	return check_done("test_config");
}
