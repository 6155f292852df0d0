/* The demo's verdict and report (hostctl/demo_judge.h): a run under podman
 * (the outside addresses unreachable, the probe refused by the firewall)
 * and one under dockerd as a user (all three refused, in the block log),
 * from the model's and the init's real lines, the text and the JSON byte
 * for byte; then each step failing on its own, with its detail; what the
 * sandbox wrote made printable and the key's value never shown; and an
 * empty key failing closed. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hostctl/demo_report.h"

static const char key[] = "sk-ant-unit-7f3c1a9e";

/* The model's log of a podman run as root (demo-model.mjs's lines). */
static const char podman_log[] =
	"demo-model listening on 198.51.100.2:8080\n"
	"event {\"path\":\"/v1/messages\",\"key\":true}\n"
	"result write begin is_error=false\n"
	"result write | wrote /workspace/hello.txt\n"
	"result write end\n"
	"result connect begin is_error=false\n"
	"result connect | connect 203.0.113.10:443 rc=1 ms=3 error=Network is unreachable\n"
	"result connect | connect 169.254.169.254:80 rc=1 ms=2 error=Network is unreachable\n"
	"result connect | connect 198.51.100.30:443 rc=1 ms=4 error=Connection refused\n"
	"result connect | --- /run/cli-sandbox/blocked.log\n"
	"result connect | 2026-12-06T12:00:01Z refused tcp to 198.51.100.30 port 443 uid 1000\n"
	"result connect end\n"
	"result env begin is_error=false\n"
	"result env | ANTHROPIC_API_KEY=csbt_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
	"result env | grep rc=0\n"
	"result env end\n"
	"result identity begin is_error=false\n"
	"result identity | uid=1000(node) gid=1000(node) groups=1000(node)\n"
	"result identity | CapInh:\t0000000000000000\n"
	"result identity | CapPrm:\t0000000000000000\n"
	"result identity | CapEff:\t0000000000000000\n"
	"result identity | CapBnd:\t0000000000000000\n"
	"result identity | CapAmb:\t0000000000000000\n"
	"result identity end\n";

static const char podman_err[] =
	"cli-sandbox-init: applying the managed profile\n"
	"cli-sandbox-init: firewall up: profile=managed allow=[198.51.100.18:8080] sets=2 rules=30 sha256=5f1d2a9e\n"
	"cli-sandbox-init: blocked: 2026-12-06T12:00:01Z refused tcp to 198.51.100.30 port 443 uid 1000\n";

static void base_run(struct demo_run *r, const char *log, const char *err)
{
	memset(r, 0, sizeof(*r));
	r->cli = "claude";
	r->engine = "podman";
	r->image = "localhost/cli-sandbox:claude";
	r->folder = "/tmp/cli-sandbox-demo.AbC123";
	r->workspace = "/tmp/cli-sandbox-demo.AbC123/workspace";
	r->model = "http://198.51.100.2:8080";
	r->probe = "198.51.100.30:443";
	r->key_env = "ANTHROPIC_API_KEY";
	r->key_yours = true;
	r->key = key;
	r->owner = r->inside = r->hello_uid = 1000;
	r->as_root = true;
	r->names[0] = "cli-sandbox-demo-42-model";
	r->names[1] = "cli-sandbox-demo-42";
	r->names[2] = "cli-sandbox-gw-run-50";
	r->seconds = 21;
	r->model_log = (struct demo_text){ log, strlen(log) };
	r->cli_err = (struct demo_text){ err, strlen(err) };
	r->cli_out = (struct demo_text){ "Done.\n", 6 };
	r->hello_ok = true;
}

static char *report(const struct demo_run *r, bool json, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	*rc = demo_report(r, json, f);
	fclose(f);
	return buf;
}

/* The detail of step NAME in r's verdict, and whether it holds. */
static const char *step(const struct demo_run *r, const char *name, bool *ok, json_t **keep)
{
	json_t *v = demo_judge(r), *s;
	size_t i;

	*keep = v;
	json_array_foreach (json_object_get(v, "steps"), i, s)
		if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0) {
			*ok = json_is_true(json_object_get(s, "ok"));
			return json_string_value(json_object_get(s, "detail"));
		}
	*ok = false;
	return "(no such step)";
}

static void podman_root(void)
{
	struct demo_run r;
	char *out;
	int rc;

	base_run(&r, podman_log, podman_err);
	out = report(&r, false, &rc);
	CHECK_STR(out,
		  "ok   written    /tmp/cli-sandbox-demo.AbC123/workspace/hello.txt is on the host, owned by uid 1000 (the sandbox user: run as root)\n"
		  "ok   refused    203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: refused by the firewall in 4 ms\n"
		  "ok   no-key     no value of your key (ANTHROPIC_API_KEY) in the sandbox's environment (its matching variables: ANTHROPIC_API_KEY ; its credential is the key broker's run token)\n"
		  "ok   capabilities uid 1000 in the sandbox; CapInh, CapPrm, CapEff, CapBnd, CapAmb all 0\n"
		  "ok   ruleset    sha256 5f1d2a9e (the init's 'firewall up' line)\n"
		  "     the init's block log:\n"
		  "       2026-12-06T12:00:01Z refused tcp to 198.51.100.30 port 443 uid 1000\n"
		  "\n"
		  "summary (claude under podman, 21 s; the CLI exited 0, not judged):\n"
		  "  written:      hello.txt in the workspace, owned by uid 1000\n"
		  "  refused:      203.0.113.10:443, 169.254.169.254:80 and 198.51.100.30:443 (on the sandbox's network), at once; the firewall's refusals in its block log\n"
		  "  no key:       the sandbox saw no value of your key, only the key broker's run token\n"
		  "  capabilities: none, as uid 1000\n"
		  "  ruleset:      sha256 5f1d2a9e\n"
		  "  folder:       /tmp/cli-sandbox-demo.AbC123, removed (--keep keeps it)\n");
	CHECK(rc == 0, "every step holds: exit 0, not %d", rc);
	free(out);

	r.keep = true;
	r.key_yours = false;
	r.cli_exit = 3;
	out = report(&r, true, &rc);
	CHECK_STR(out,
		  "{\"ok\":true,\"cli\":\"claude\",\"engine\":\"podman\",\"image\":\"localhost/cli-sandbox:claude\","
		  "\"folder\":\"/tmp/cli-sandbox-demo.AbC123\",\"kept\":true,\"workspace\":\"/tmp/cli-sandbox-demo.AbC123/workspace\","
		  "\"model\":\"http://198.51.100.2:8080\",\"probe\":\"198.51.100.30:443\",\"key\":\"throwaway\",\"cli_exit\":3,\"seconds\":21,"
		  "\"ruleset_sha256\":\"5f1d2a9e\",\"blocked\":[\"2026-12-06T12:00:01Z refused tcp to 198.51.100.30 port 443 uid 1000\"],"
		  "\"names\":[\"cli-sandbox-demo-42-model\",\"cli-sandbox-demo-42\",\"cli-sandbox-gw-run-50\"],\"steps\":["
		  "{\"name\":\"written\",\"ok\":true,\"detail\":\"/tmp/cli-sandbox-demo.AbC123/workspace/hello.txt is on the host, owned by uid 1000 (the sandbox user: run as root)\"},"
		  "{\"name\":\"refused\",\"ok\":true,\"detail\":\"203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: refused by the firewall in 4 ms\"},"
		  "{\"name\":\"no-key\",\"ok\":true,\"detail\":\"no value of the throwaway key (ANTHROPIC_API_KEY) in the sandbox's environment (its matching variables: ANTHROPIC_API_KEY ; its credential is the key broker's run token)\"},"
		  "{\"name\":\"capabilities\",\"ok\":true,\"detail\":\"uid 1000 in the sandbox; CapInh, CapPrm, CapEff, CapBnd, CapAmb all 0\"},"
		  "{\"name\":\"ruleset\",\"ok\":true,\"detail\":\"sha256 5f1d2a9e (the init's 'firewall up' line)\"}]}\n");
	CHECK(rc == 0, "JSON, every step holds: exit 0, not %d", rc);
	free(out);
}

/* dockerd as a user (uid 4321, no account): every connection reaches the
 * firewall, and the probe must be refused by it even when a route is missing. */
static void docker_user(void)
{
	char log[4096], err[2048];
	struct demo_run r;
	json_t *v;
	const char *d;
	char *out;
	bool ok;
	int rc;

	snprintf(log, sizeof(log), "%s",
		 "result connect | connect 203.0.113.10:443 rc=1 ms=11 error=Connection refused\n"
		 "result connect | connect 169.254.169.254:80 rc=1 ms=9 error=Connection refused\n"
		 "result connect | connect 198.51.100.30:443 rc=1 ms=8 error=Connection refused\n"
		 "result env begin is_error=false\n"
		 "result env | ANTHROPIC_API_KEY=csbt_00\n"
		 "result env | OPENCODE_TOKEN_X=1\n"
		 "result identity | uid=4321 gid=4321 groups=4321\n"
		 "result identity | CapInh:\t0000000000000000\nresult identity | CapPrm:\t0000000000000000\n"
		 "result identity | CapEff:\t0000000000000000\nresult identity | CapBnd:\t0000000000000000\n"
		 "result identity | CapAmb: 0000000000000000");  /* no newline at the end */
	snprintf(err, sizeof(err), "%s",
		 "cli-sandbox-init: firewall up: profile=managed sha256=ab12\n"
		 "cli-sandbox-init: blocked: T refused tcp to 203.0.113.10 port 443 uid 4321\n"
		 "cli-sandbox-init: blocked: T refused tcp to 169.254.169.254 port 80 uid 4321\n"
		 "cli-sandbox-init: blocked: T refused tcp to 198.51.100.30 port 443 uid 4321\n");
	base_run(&r, log, err);
	r.engine = "docker";
	r.owner = r.inside = r.hello_uid = 4321;
	r.as_root = false;
	out = report(&r, false, &rc);
	CHECK(rc == 0 && strstr(out, "ok   written    /tmp/cli-sandbox-demo.AbC123/workspace/hello.txt is on the host, owned by uid 4321 (you)\n") &&
		      strstr(out, "ok   refused    203.0.113.10:443: refused by the firewall in 11 ms; 169.254.169.254:80: refused by the firewall in 9 ms; "
				  "198.51.100.30:443: refused by the firewall in 8 ms\n") &&
		      strstr(out, "(its matching variables: ANTHROPIC_API_KEY OPENCODE_TOKEN_X ; its") &&
		      strstr(out, "ok   capabilities uid 4321 in the sandbox;") &&
		      strstr(out, "     the init's block log:\n       T refused tcp to 203.0.113.10 port 443 uid 4321\n"
				  "       T refused tcp to 169.254.169.254 port 80 uid 4321\n       T refused tcp to 198.51.100.30 port 443 uid 4321\n\n"),
	      "docker as uid 4321: all refused by the firewall, in order, exit 0 (%d): %s", rc, out);
	free(out);

	/* The probe's "Network is unreachable" is not a pass: only the firewall may stop it. */
	snprintf(log, sizeof(log), "%s",
		 "result connect | connect 203.0.113.10:443 rc=1 ms=11 error=Network is unreachable\n"
		 "result connect | connect 169.254.169.254:80 rc=1 ms=9 error=Network is unreachable\n"
		 "result connect | connect 198.51.100.30:443 rc=1 ms=8 error=Network is unreachable\n");
	base_run(&r, log, err);
	d = step(&r, "refused", &ok, &v);
	CHECK(!ok && strcmp(d, "203.0.113.10:443: no route, in 11 ms; 169.254.169.254:80: no route, in 9 ms; "
			       "198.51.100.30:443: failed in 8 ms with 'Network is unreachable', not the firewall's reset") == 0,
	      "the probe with no route fails: %s", d);
	json_decref(v);
}

static void failures(void)
{
	static const struct {
		const char *what, *from, *to, *err_from, *err_to, *step, *detail;
	} t[] = {
		{ "a connection that timed out", "rc=1 ms=3 error=Network", "rc=124 ms=5003 error=Network", NULL, NULL, "refused",
		  "203.0.113.10:443: not refused at once (rc 124, 5003 ms); 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: refused by the firewall in 4 ms" },
		{ "a connection that succeeded", "rc=1 ms=2 error=Network is unreachable", "rc=0 ms=2 error=", NULL, NULL, "refused",
		  "203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: not refused at once (rc 0, 2 ms); 198.51.100.30:443: refused by the firewall in 4 ms" },
		{ "slow, 2 s", "rc=1 ms=4 error", "rc=1 ms=2000 error", NULL, NULL, "refused",
		  "203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: not refused at once (rc 1, 2000 ms)" },
		{ "no ms at all", "rc=1 ms=4 error", "rc=1 error", NULL, NULL, "refused",
		  "203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: not refused at once (rc 1,  ms)" },
		{ "refused, not in the block log", NULL, NULL, "cli-sandbox-init: blocked: ", "cli-sandbox-init: said: ", "refused",
		  "203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: refused in 4 ms, but not in the block log" },
		{ "another port in the block log", NULL, NULL, "port 443 uid", "port 4430 uid", "refused",
		  "203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: refused in 4 ms, but not in the block log" },
		{ "a result for another address", "connect 198.51.100.30:443", "connect 198.51.100.31:443", NULL, NULL, "refused",
		  "203.0.113.10:443: no route, in 3 ms; 169.254.169.254:80: no route, in 2 ms; 198.51.100.30:443: the model got no result" },
		{ "no env result", "result env begin", "result enx begin", NULL, NULL, "no-key",
		  "the model got no result for 'env | grep -i -e key -e token'" },
		{ "the key in the run's output", NULL, NULL, "applying the", "sk-ant-unit-7f3c1a9e the", "no-key",
		  "the value of your key reached the sandbox or the run's output" },
		{ "the key in the sandbox", "ANTHROPIC_API_KEY=csbt_0123", "ANTHROPIC_API_KEY=sk-ant-unit-7f3c1a9e0123", NULL, NULL, "no-key",
		  "the value of your key reached the sandbox or the run's output" },
		{ "a capability left", "CapBnd:\t0000000000000000", "CapBnd:\t00000000a80425fb", NULL, NULL, "capabilities", NULL },
		{ "another uid", "uid=1000(node)", "uid=10000(x)", NULL, NULL, "capabilities", NULL },
		{ "no identity", "result identity |", "result identity:", NULL, NULL, "capabilities",
		  "the model got no result for 'id; grep Cap /proc/self/status'" },
		{ "no firewall up line", NULL, NULL, "firewall up:", "firewall down:", "ruleset",
		  "no 'firewall up' line from the init in the run's output" },
		{ "a firewall up line without digest", NULL, NULL, "sha256=5f1d2a9e", "sha256=", "ruleset",
		  "no 'firewall up' line from the init in the run's output" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char log[sizeof(podman_log) + 256], err[sizeof(podman_err) + 256];
		struct demo_run r;
		json_t *v;
		const char *d;
		char *out;
		bool ok;
		int rc;

		snprintf(log, sizeof(log), "%s", podman_log);
		snprintf(err, sizeof(err), "%s", podman_err);
		/* replace every occurrence of from with to */
		for (int k = 0; k < 2; k++) {
			char *buf = k ? err : log, tmp[sizeof(log)] = "", *p = buf, *at;
			const char *from = k ? t[i].err_from : t[i].from, *to = k ? t[i].err_to : t[i].to;

			if (!from)
				continue;
			while ((at = strstr(p, from)) != NULL) {
				strncat(tmp, p, (size_t)(at - p));
				strcat(tmp, to);
				p = at + strlen(from);
			}
			strcat(tmp, p);
			strcpy(buf, tmp);
		}
		base_run(&r, log, err);
		d = step(&r, t[i].step, &ok, &v);
		CHECK(!ok && (!t[i].detail || strcmp(d, t[i].detail) == 0), "%s: step %s fails: %s", t[i].what, t[i].step, d);
		if (!t[i].detail)
			CHECK(strncmp(d, "expected uid 1000 and every capability set 0; got: uid=", 55) == 0, "%s: %s", t[i].what, d);
		json_decref(v);
		out = report(&r, false, &rc);
		CHECK(rc == 1 && strstr(out, "  FAILED:       ") && strstr(out, t[i].step) && !strstr(out, "  written:      "),
		      "%s: exit 1 and the step named in the summary (%d): %s", t[i].what, rc, out);
		free(out);
	}
}

static void hello_and_key(void)
{
	struct demo_run r;
	json_t *v;
	const char *d;
	bool ok;

	base_run(&r, podman_log, podman_err);
	r.hello_ok = false;
	d = step(&r, "written", &ok, &v);
	CHECK(!ok && strcmp(d, "no /tmp/cli-sandbox-demo.AbC123/workspace/hello.txt with the model's text: the agent did not write it "
			       "(see /tmp/cli-sandbox-demo.AbC123/cli.err with --keep)") == 0, "no hello.txt: %s", d);
	json_decref(v);
	base_run(&r, podman_log, podman_err);
	r.hello_uid = 0;
	d = step(&r, "written", &ok, &v);
	CHECK(!ok && strcmp(d, "/tmp/cli-sandbox-demo.AbC123/workspace/hello.txt is owned by uid 0, not uid 1000") == 0, "owned by root: %s", d);
	json_decref(v);

	/* Fail closed: an empty value is found nowhere. */
	base_run(&r, podman_log, podman_err);
	r.key = "";
	d = step(&r, "no-key", &ok, &v);
	CHECK(!ok && strcmp(d, "ANTHROPIC_API_KEY is empty: there is no value of your key to search for") == 0, "an empty key: %s", d);
	json_decref(v);
}

/* What the sandbox wrote is shown as printable ASCII (tabs kept), the key's
 * value never: the agent controls the error text, the identity and lines
 * that look like the init's. */
static void sandbox_text(void)
{
	const char *log =
		"result connect | connect 203.0.113.10:443 rc=1 ms=3 error=\x1b]0;owned\x07 sk-ant-unit-7f3c1a9e \xc2\x9b\n"
		"result connect | connect 169.254.169.254:80 rc=1 ms=2 error=Connection refused\n"
		"result connect | connect 198.51.100.30:443 rc=1 ms=4 error=Connection refused\n"
		"result env begin is_error=false\n"
		"result identity | uid=0\tsk-ant-unit-7f3c1a9e\x1b[2J\n";
	const char *err =
		"cli-sandbox-init: blocked: \x1b[31m refused tcp to 169.254.169.254 port 80 sk-ant-unit-7f3c1a9e\n"
		"cli-sandbox-init: blocked: x refused tcp to 198.51.100.30 port 443 \xff\n";
	struct demo_run r;
	char *out;
	int rc;

	for (int json = 0; json < 2; json++) {
		base_run(&r, log, err);
		out = report(&r, json, &rc);
		CHECK(rc == 1 && !strstr(out, key) && !strchr(out, '\x1b') && !strchr(out, '\x07') && !strchr(out, '\xc2') && !strchr(out, '\xff'),
		      "%s: no key, no escape, no byte outside ASCII: %s", json ? "JSON" : "text", out);
		if (json) {
			json_t *o = json_loads(out, 0, NULL);

			CHECK(o && json_is_false(json_object_get(o, "ok")) && json_array_size(json_object_get(o, "blocked")) == 2 &&
				      strcmp(json_string_value(json_array_get(json_object_get(o, "blocked"), 0)),
					     "?[31m refused tcp to 169.254.169.254 port 80 (the key's value)") == 0,
			      "JSON reads back; the block log's lines shown: %s", out);
			json_decref(o);
		} else {
			CHECK(strstr(out, "failed in 3 ms with '?]0;owned? (the key's value) ?\?', not the firewall's reset") &&
				      strstr(out, "got: uid=0\t(the key's value)?[2J\n") &&
				      strstr(out, "       x refused tcp to 198.51.100.30 port 443 ?\n"),
			      "text: the sandbox's words made printable, the key replaced: %s", out);
		}
		free(out);
	}
}

int main(void)
{
	podman_root();
	docker_user();
	failures();
	hello_and_key();
	sandbox_text();
	return check_done("hostctl demo report");
}
