/* Table-driven test of the managed (and interactive) URL rules: every case
 * names the fragment its rejection message must contain, so each rejection
 * is proven to have its own message. */
#include <stdbool.h>

#include "base/model_url.h"
#include "check.h"

struct url_case {
	const char *url;
	bool ok;
	const char *expect;  /* ok: "addr:port:path"; rejected: message fragment */
	bool dns;            /* parse as the interactive profile (DNS names allowed) */
};

static const struct url_case cases[] = {
	/* accepted */
	{ "http://192.0.2.10", true, "192.0.2.10:80:" },
	{ "https://192.0.2.10", true, "192.0.2.10:443:" },
	{ "http://192.0.2.10:8080", true, "192.0.2.10:8080:" },
	{ "https://10.0.0.1:1", true, "10.0.0.1:1:" },
	{ "https://10.0.0.1:65535", true, "10.0.0.1:65535:" },
	{ "http://192.0.2.10/", true, "192.0.2.10:80:/" },
	{ "http://192.0.2.10:8080/v1", true, "192.0.2.10:8080:/v1" },
	{ "http://192.0.2.10/a-b.c_d~e/F9/", true, "192.0.2.10:80:/a-b.c_d~e/F9/" },
	{ "http://192.0.2.10/..a/a..", true, "192.0.2.10:80:/..a/a.." },
	{ "http://192.0.2.10/./x", true, "192.0.2.10:80:/./x" },
	{ "http://172.16.0.1", true, "172.16.0.1:80:" },
	{ "http://192.168.1.1", true, "192.168.1.1:80:" },
	{ "http://1.0.0.0", true, "1.0.0.0:80:" },
	{ "http://126.255.255.255", true, "126.255.255.255:80:" },
	{ "http://128.0.0.0", true, "128.0.0.0:80:" },
	{ "http://169.253.255.255", true, "169.253.255.255:80:" },
	{ "http://169.255.0.0", true, "169.255.0.0:80:" },
	{ "http://223.255.255.255", true, "223.255.255.255:80:" },
	{ "http://0.0.0.0", false, "unspecified" },
	{ "http://0.255.255.255", false, "unspecified" },
	{ "http://127.0.0.0", false, "loopback" },
	{ "http://127.0.0.1", false, "loopback" },
	{ "http://127.255.255.255", false, "loopback" },
	{ "http://169.254.0.0", false, "link-local" },
	{ "http://169.254.169.254", false, "link-local" },
	{ "http://169.254.255.255", false, "link-local" },
	{ "http://224.0.0.0", false, "multicast" },
	{ "http://239.255.255.255", false, "multicast" },
	{ "http://240.0.0.0", false, "reserved" },
	{ "http://255.255.255.255", false, "reserved" },
	/* numeric forms */
	{ "http://192.0.2.010", false, "dotted-quad" },
	{ "http://010.0.0.1", false, "dotted-quad" },
	{ "http://192.0.2.00", false, "dotted-quad" },
	{ "http://0x7f.0.0.1", false, "dotted-quad" },
	{ "http://0xc0000201", false, "dotted-quad" },
	{ "http://3221225994", false, "dotted-quad" },
	{ "http://192.0.522", false, "dotted-quad" },
	{ "http://192.0.2", false, "dotted-quad" },
	{ "http://192.0.2.256", false, "dotted-quad" },
	{ "http://192.0.2.1.5", false, "dotted-quad" },
	{ "http://192.0..2", false, "dotted-quad" },
	{ "http://192.0.2.10.", false, "trailing dot" },
	{ "http://api.example.", false, "trailing dot" },
	/* scheme */
	{ "HTTP://192.0.2.10", false, "lower-case" },
	{ "Https://192.0.2.10", false, "lower-case" },
	{ "ftp://192.0.2.10", false, "is not allowed" },
	{ "ws://192.0.2.10", false, "is not allowed" },
	{ "192.0.2.10:8080", false, "no scheme" },
	{ "//192.0.2.10", false, "no scheme" },
	{ "http:/192.0.2.10", false, "no scheme" },
	/* smuggling characters */
	{ "http://user@192.0.2.10", false, "userinfo" },
	{ "http://192.0.2.10@198.51.100.1", false, "userinfo" },
	{ "http://192.0.2.10/?q=1", false, "query" },
	{ "http://192.0.2.10/#frag", false, "fragment" },
	{ "http://192.0.2.10 /", false, "whitespace" },
	{ " http://192.0.2.10", false, "whitespace" },
	{ "http://192.0.2.10\t", false, "whitespace" },
	{ "http://192.0.2.10/\n", false, "whitespace" },
	{ "http://192.0.2.10/\x01", false, "control character" },
	{ "http://192.0.2.10/\x7f", false, "control character" },
	{ "http://192.0.2.10\\@evil", false, "backslash" },
	{ "http://192.0.2.10/a\\b", false, "backslash" },
	{ "http://192.0.2.10/%2e%2e/", false, "percent" },
	{ "http://%31%39%32.0.2.10", false, "percent" },
	{ "http://192.0.2.10/caf\xc3\xa9", false, "non-ASCII" },
	{ "http://\xef\xbc\x91\xef\xbc\x99\xef\xbc\x92.0.2.10", false, "non-ASCII" },
	/* hosts */
	{ "http://[2001:db8::1]", false, "IPv6" },
	{ "http://[2001:db8::1]:8080", false, "IPv6" },
	{ "http://2001:db8::1", false, "IPv6" },
	{ "http://[::ffff:192.0.2.10]", false, "IPv6" },
	{ "http://192.0.2.1:8080:9090/", false, "more than one ':port'" },
	{ "http://gw.example:8080:9090", false, "more than one ':port'" },
	{ "http://api.example.com", false, "DNS name" },
	{ "http://localhost:8080", false, "DNS name" },
	{ "http://gateway", false, "DNS name" },
	{ "http://", false, "no host" },
	{ "http://:8080", false, "no host" },
	/* ports */
	{ "http://192.0.2.10:0", false, "port '0'" },
	{ "http://192.0.2.10:65536", false, "port '65536'" },
	{ "http://192.0.2.10:080", false, "port '080'" },
	{ "http://192.0.2.10:99999999", false, "port" },
	{ "http://192.0.2.10:", false, "empty port" },
	{ "http://192.0.2.10:-1", false, "port '-1'" },
	{ "http://192.0.2.10:+80", false, "port '+80'" },
	{ "http://192.0.2.10:8o", false, "port '8o'" },
	{ "http://192.0.2.10:53", false, "port 53" },
	/* paths */
	{ "http://192.0.2.10/..", false, "'..'" },
	{ "http://192.0.2.10/v1/../admin", false, "'..'" },
	{ "http://192.0.2.10/v1/..", false, "'..'" },
	{ "http://192.0.2.10/a b", false, "whitespace" },
	{ "http://192.0.2.10/a;b", false, "';'" },
	{ "http://192.0.2.10/a:b", false, "':'" },
	{ "http://192.0.2.10/a+b", false, "'+'" },
	{ "http://192.0.2.10/a=b", false, "'='" },
	{ "", false, "empty" },
	/* interactive: DNS names allowed, still strict */
	{ "https://api.anthropic.com", true, "api.anthropic.com:443:", true },
	{ "https://API.Example.COM:8443/v1", true, "api.example.com:8443:/v1", true },
	{ "http://192.0.2.10:8080", true, "192.0.2.10:8080:", true },
	{ "https://-bad.example.com", false, "not a valid DNS name", true },
	{ "https://bad-.example.com", false, "not a valid DNS name", true },
	{ "https://a..b", false, "not a valid DNS name", true },
	{ "https://under_score.example", false, "not a valid DNS name", true },
	{ "https://169.254.169.254", false, "link-local", true },
	{ "https://0x7f000001", false, "dotted-quad", true },
	{ "https://user@api.example.com", false, "userinfo", true },
};

int main(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < n; i++) {
		const struct url_case *c = &cases[i];
		struct model_url u;
		struct cs_error err = { 0 };
		int rc = model_url_parse(c->url, c->dns, &u, &err);

		if (c->ok) {
			char got[MODEL_HOST_MAX + MODEL_URL_MAX + 16];

			snprintf(got, sizeof(got), "%s:%u:%s", u.host, u.port, u.path);
			CHECK(rc == 0, "case %zu '%s' rejected: %s", i, c->url, err.msg);
			if (rc == 0) {
				CHECK(strcmp(got, c->expect) == 0, "case %zu '%s': got %s want %s", i, c->url, got, c->expect);
				CHECK(u.port_explicit == (strchr(c->url + 8, ':') != NULL), "case %zu port_explicit", i);
			}
		} else {
			CHECK(rc == -1, "case %zu '%s' accepted", i, c->url);
			CHECK(err.status == CS_EXIT_CONFIG, "case %zu status %d", i, err.status);
			CHECK(strstr(err.msg, c->expect) != NULL, "case %zu '%s': message '%s' lacks '%s'", i, c->url, err.msg, c->expect);
			CHECK(strstr(err.msg, "TASK_AGENT_MODEL_BASE_URL") != NULL, "case %zu message names the variable", i);
			CHECK(strchr(err.msg, '\n') == NULL, "case %zu message is one line", i);
		}
	}
	printf("url cases: %zu\n", n);
	CHECK(n >= 60, "at least 60 URL cases (have %zu)", n);

	/* Values of the parsed URL, not just acceptance. */
	{
		struct model_url u;
		struct cs_error err;

		CHECK(model_url_parse("https://198.51.100.7:8443/v1", false, &u, &err) == 0, "parse");
		CHECK(u.https && u.host_is_ipv4 && u.addr == (198u << 24 | 51u << 16 | 100u << 8 | 7u), "addr");
		CHECK(u.port == 8443 && u.port_explicit, "port");
		CHECK_STR(u.text, "https://198.51.100.7:8443/v1");
	}
	return check_done("test_model_url");
}
