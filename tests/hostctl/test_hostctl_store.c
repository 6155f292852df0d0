/* The endpoint store (hostctl/endpoint_file.h) and the input rules
 * (validate.h, shquote.h): the runner's files keep working, a bad line
 * stops the file with its name and line, and no value is taken loosely. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hostctl/api.h"
#include "hostctl/endpoint_file.h"
#include "hostctl/shquote.h"

static int parse(const char *text, struct endpoints *eps, struct cs_error *err)
{
	return endpoints_parse(text, strlen(text), "/h/endpoints", eps, err);
}

int main(void)
{
	struct endpoints *eps = calloc(1, sizeof(*eps));
	struct cs_error err;
	char line[1024], q[256];

	/* What host/lib/endpoints.sh writes, and the older NAME URL lines. */
	const char *file = "local http://192.168.1.10:11434 type=ollama speaks=ollama,chat model=qwen3:8b key-env=OLLAMA_KEY\n"
			   "old http://10.0.0.2:4000\n"
			   "\n# a comment\n"
			   "v http://10.0.0.5:8000/v1\ttype=openai speaks=anthropic,chat,responses\r\n"
			   "e http://10.0.0.6:1 type=anthropic speaks=\n";
	CHECK(parse(file, eps, &err) == 0 && eps->n == 4, "the runner's file reads (%s)", err.msg);
	CHECK(strcmp(eps->e[0].model, "qwen3:8b") == 0 && strcmp(eps->e[0].key_env, "OLLAMA_KEY") == 0 &&
		      eps->e[0].speaks == (CS_API_OLLAMA | CS_API_CHAT) && strcmp(eps->e[0].type, "ollama") == 0,
	      "every attribute of a full line");
	CHECK(!eps->e[1].has_speaks && eps->e[1].type[0] == '\0', "an older NAME URL line: type and APIs unknown");
	CHECK(eps->e[2].speaks == (CS_API_MESSAGES | CS_API_CHAT | CS_API_RESPONSES), "a tab and a CRLF line");
	CHECK(eps->e[3].has_speaks && eps->e[3].speaks == 0, "an empty speaks= (a failed probe recorded with --type)");
	for (size_t i = 0; i < eps->n; i++) {
		struct endpoints *again = calloc(1, sizeof(*again));
		CHECK(endpoint_format(&eps->e[i], line, sizeof(line)) && parse(line, again, &err) == 0 && again->n == 1 &&
			      memcmp(&again->e[0], &eps->e[i], sizeof(eps->e[i])) == 0,
		      "line %zu formats and reads back the same: %s", i, line);
		free(again);
	}

	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "a http://x\nb http://u:s3cr3tpw@h:1/v1\n", "/h/endpoints line 2: the URL holds a user or password" },
		{ "a http://x model=$(touch${IFS}x)\n", "/h/endpoints line 1: bad model=" },
		{ "a http://x model=a;b\n", "/h/endpoints line 1: bad model=" },
		{ "a http://x key-env=$(id)\n", "/h/endpoints line 1: bad key-env=" },
		{ "a http://x speaks=anthropic,,chat\n", "/h/endpoints line 1: bad speaks=" },
		{ "a http://x type=bogus\n", "/h/endpoints line 1: bad type=" },
		{ "a http://x run=$(id)\n", "/h/endpoints line 1: unknown KEY=" },  /* a later key: only plain values are kept */
		{ "a http://x Run=1\n", "/h/endpoints line 1: unknown KEY=" },
		{ "a http://x run=1 run=2\n", "/h/endpoints line 1: a KEY= word given twice" },
		{ "a http://x type=openai abcd=1 type=ollama\n", "/h/endpoints line 1: a KEY= word given twice" },
		{ "-a http://x\n", "/h/endpoints line 1: bad endpoint name" },
		{ "a\n", "/h/endpoints line 1: a name without a URL" },
		{ "a ftp://x\n", "/h/endpoints line 1: bad URL" },
		{ "a http://x\na http://y\n", "/h/endpoints line 2: a second endpoint" },
		{ "a http://x/`id`\n", "/h/endpoints line 1: bad URL" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].text, eps, &err);
		CHECK(rc != 0 && eps->n == 0 && strncmp(err.msg, bad[i].want, strlen(bad[i].want)) == 0 && !strstr(err.msg, "s3cr3tpw"),
		      "bad file %zu stops with the file and line: %s", i, err.msg);
	}
	CHECK(endpoints_parse("a http://x\0b", 12, "/f", eps, &err) != 0, "a NUL byte is refused");
	CHECK(parse("f http://192.0.2.6:1 type=anthropic vendor-x=1 model=m abcd=a,b\n", eps, &err) == 0 &&
		      strcmp(eps->e[0].extra, "vendor-x=1 abcd=a,b") == 0 && endpoint_format(&eps->e[0], line, sizeof(line)) &&
		      strcmp(line, "f http://192.0.2.6:1 type=anthropic model=m vendor-x=1 abcd=a,b") == 0,
	      "a later version's KEY=VALUE words are kept, after the known ones (%s)", line);

	CHECK(valid_model("qwen3:8b", 8) && valid_model("hf.co/org/model-GGUF:Q4_K_M", 27) && !valid_model("-m", 2) &&
		      !valid_model("a b", 3) && !valid_model("$(x)", 4),
	      "model names: the strict set only");
	CHECK(check_url("http://user@h/", 14, &err) != 0 && strstr(err.msg, "--key-env VAR"), "userinfo is refused with the fix");
	CHECK(check_url("http://h:1/v1", 13, &err) == 0 && check_url("https://[2001:db8::1]:8/v1", 26, &err) == 0, "plain URLs pass");

	CHECK(sh_quote("it's $(x)", q, sizeof(q)) && strcmp(q, "'it'\\''s $(x)'") == 0, "a quote inside is closed and reopened: %s", q);
	CHECK(sh_quote("qwen3:8b", q, sizeof(q)) && strcmp(q, "qwen3:8b") == 0, "a plain word stays bare");
	CHECK(sh_quote("", q, sizeof(q)) && strcmp(q, "''") == 0, "an empty word is ''");
	free(eps);
	return check_done("test_hostctl_store");
}
