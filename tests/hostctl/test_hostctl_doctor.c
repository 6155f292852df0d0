/* doctor's pure parts: its report (the text lines and the JSON object the
 * runner's doctor always printed, a fix only on a failure, the exit
 * status), the names of the images beside the chosen one, a URL's port,
 * and which addresses the kernel calls this host's. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hostctl/doctor_report.h"
#include "hostctl/images.h"
#include "hostctl/reach.h"

static void report_text(void)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct doctor_report r;
	int rc;

	doctor_begin(&r, f, false);
	doctor_check(&r, "engine", true, "docker answers (chosen with --engine)", NULL);
	doctor_check(&r, "image", false, "x is not present in docker", "build it: host/cli-sandbox build");
	rc = doctor_end(&r);
	fclose(f);
	CHECK_STR(buf, "ok   engine: docker answers (chosen with --engine)\n"
		       "FAIL image: x is not present in docker\n"
		       "     fix: build it: host/cli-sandbox build\n");
	CHECK(rc == 1, "a failed check: exit 1, not %d", rc);
	free(buf);
}

static void report_json(void)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct doctor_report r;
	json_t *o;
	json_error_t e;
	int rc;

	doctor_begin(&r, f, true);
	doctor_check(&r, "workspace", true, "/tmp/a \"b\" \\c\n is writable", NULL);
	doctor_check(&r, "limits", true, "processes 4096", NULL);
	rc = doctor_end(&r);
	fclose(f);
	CHECK(rc == 0, "every check passed: exit 0, not %d", rc);
	CHECK_STR(buf, "{\"ok\":true,\"checks\":[{\"name\":\"workspace\",\"ok\":true,\"detail\":\"/tmp/a \\\"b\\\" \\\\c\\n is writable\"},"
		       "{\"name\":\"limits\",\"ok\":true,\"detail\":\"processes 4096\"}]}\n");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &n);
	doctor_begin(&r, f, true);
	doctor_check(&r, "endpoint", false, "bad \xff byte", "fix it");
	rc = doctor_end(&r);
	fclose(f);
	o = json_loads(buf, 0, &e);
	CHECK(o && json_is_false(json_object_get(o, "ok")) && rc == 1, "a failure: ok false, exit 1: %s", buf);
	CHECK(o && json_is_string(json_object_get(json_array_get(json_object_get(o, "checks"), 0), "fix")), "a failure has its fix");
	CHECK(o && json_is_string(json_object_get(json_array_get(json_object_get(o, "checks"), 0), "detail")),
	      "a detail that is not UTF-8 is still a string: %s", buf);
	json_decref(o);
	free(buf);
}

static void images(void)
{
	static const struct {
		const char *image, *own, *gateway, *broker;
	} t[] = {
		{ "localhost/cli-sandbox:latest", "localhost/cli-sandbox:codex", "localhost/cli-sandbox-gateway:latest", "localhost/cli-sandbox-broker:latest" },
		{ "localhost/cli-sandbox", "localhost/cli-sandbox:codex", "localhost/cli-sandbox-gateway:latest", "localhost/cli-sandbox-broker:latest" },
		{ "localhost/cli-sandbox:claude", "", "localhost/cli-sandbox-gateway:claude", "localhost/cli-sandbox-broker:latest" },
		{ "reg:5000/cs:v1", "", "reg:5000/cs-gateway:v1", "reg:5000/cs-broker:v1" },
		{ "reg:5000/cs", "reg:5000/cs:codex", "reg:5000/cs-gateway:latest", "reg:5000/cs-broker:latest" },
	};
	char own[256], gw[256], br[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool has = image_own(t[i].image, "codex", own, sizeof(own));

		image_gateway(t[i].image, NULL, gw, sizeof(gw));
		image_broker(t[i].image, "", br, sizeof(br));
		CHECK(has == (t[i].own[0] != '\0') && strcmp(own, t[i].own) == 0, "%s: own image '%s', not '%s'", t[i].image, own, t[i].own);
		CHECK(strcmp(gw, t[i].gateway) == 0, "%s: gateway image '%s', not '%s'", t[i].image, gw, t[i].gateway);
		CHECK(strcmp(br, t[i].broker) == 0, "%s: broker image '%s', not '%s'", t[i].image, br, t[i].broker);
	}
	CHECK(!image_own("reg/cs@sha256:00", "codex", own, sizeof(own)) && own[0] == '\0', "an image by digest has no own image: '%s'", own);
	image_gateway("x", "mine:1", gw, sizeof(gw));
	image_broker("x", "mine:2", br, sizeof(br));
	CHECK(strcmp(gw, "mine:1") == 0 && strcmp(br, "mine:2") == 0, "a chosen image wins: %s %s", gw, br);
}

static void ports_and_addresses(void)
{
	static const struct {
		const char *url, *port;
	} t[] = {
		{ "http://127.0.0.1:11434/v1", "11434" }, { "http://h/v1", "80" },  { "https://h", "443" },
		{ "http://[::1]:8080/x", "8080" },        { "https://[::1]/", "443" }, { "http://h:1", "1" },
	};
	char port[16];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		url_port(t[i].url, port, sizeof(port));
		CHECK(strcmp(port, t[i].port) == 0, "%s: port '%s', not '%s'", t[i].url, port, t[i].port);
	}
	/* loopback is up wherever the tests run (the host tests' own namespace brings it up) */
	CHECK(addr_is_local("127.0.0.1"), "127.0.0.1 is this host's");
	CHECK(addr_is_local("127.0.0.9"), "all of 127/8 is this host's (the kernel's local route)");
	CHECK(!addr_is_local("192.0.2.77"), "a documentation address is not");
	CHECK(!addr_is_local("not-an-address") && !addr_is_local(""), "a name is not an address");
}

int main(void)
{
	report_text();
	report_json();
	images();
	ports_and_addresses();
	return check_done("hostctl doctor");
}
