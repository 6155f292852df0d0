/* The key broker's directory (hostctl/broker_dir.h): the config text for
 * each API and URL form (what host/lib/broker.sh wrote, byte for byte
 * after its first comment line), every value a config could be broken
 * with refused, and the key and tokens on a tmpfs directory: the key's
 * file alone holds it, a token's file is its SHA-256, revoke removes it. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/sha256.h"
#include "check.h"
#include "hostctl/broker_dir.h"

static const char *after_comment(const char *t)
{
	const char *nl = strchr(t, '\n');
	return nl ? nl + 1 : t;
}

int main(void)
{
	char text[4096], dir[4200], path[4400], token[BROKER_TOKEN_LEN + 1], hex[65];
	struct cs_error err;
	struct stat st;
	struct statfs fs;

	CHECK(broker_config_text("openai", "https://api.openai.com/v1", "m1,m2", "rewrite", "", text, sizeof(text), &err) == 0 &&
		      strcmp(after_comment(text),
			     "js_var $broker_api \"openai\";\n"
			     "js_var $broker_models \"m1,m2\";\n"
			     "js_var $broker_model_policy \"rewrite\";\n"
			     "js_var $broker_key_header \"bearer\";\n"
			     "js_var $broker_scheme \"https\";\n"
			     "js_var $broker_host \"api.openai.com\";\n"
			     "js_var $broker_host_header \"api.openai.com\";\n"
			     "js_var $broker_prefix \"/v1\";\n"
			     "upstream broker_upstream {\n    server api.openai.com:443;\n    keepalive 8;\n}\n") == 0,
	      "openai over https: Bearer, port 443, the prefix /v1");
	CHECK(broker_config_text("gemini", "http://[2001:db8::1]:8080", "", "refuse", "", text, sizeof(text), &err) == 0 &&
		      strstr(text, "$broker_host \"2001:db8::1\";") && strstr(text, "server [2001:db8::1]:8080;") &&
		      strstr(text, "$broker_key_header \"x-goog-api-key\";") &&
		      strstr(text, "$broker_host_header \"[2001:db8::1]:8080\";"),
	      "an IPv6 upstream: the name for SNI without brackets, the server with them");
	CHECK(broker_config_text("anthropic", "http://h:80", "", "rewrite", "bearer", text, sizeof(text), &err) == 0 &&
		      strstr(text, "$broker_host_header \"h\";") && strstr(text, "$broker_key_header \"bearer\";"),
	      "the default port left out of Host; the form given wins");
	const char *bad[][5] = {
		{ "openai", "http://user:pw@h", "", "refuse", "" },  { "openai", "ftp://h", "", "refuse", "" },
		{ "openai", "http://h/a b", "", "refuse", "" },       { "openai", "http://h\";x", "", "refuse", "" },
		{ "openai", "http://h:99999", "", "refuse", "" },     { "openai", "http://h", "m;x", "refuse", "" },
		{ "openai", "http://h", "a,", "refuse", "" },         { "openai", "http://h", "", "drop", "" },
		{ "vertex", "http://h", "", "refuse", "" },           { "openai", "http://h", "", "refuse", "basic" },
		{ "openai", "http://h/$x", "", "refuse", "" },        { "openai", "http://-h", "", "refuse", "" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(broker_config_text(bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], text, sizeof(text), &err) != 0 &&
			      !strstr(err.msg, "pw@"),
		      "refused: %s %s %s %s %s", bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4]);

	if (statfs("/dev/shm", &fs) != 0 || fs.f_type != 0x01021994) {
		check_skip("the broker directory's files", "no tmpfs at /dev/shm");
		return check_done("test_hostctl_broker");
	}
	CHECK(broker_dir_new("/", dir, sizeof(dir), &err) != 0, "a parent not on tmpfs is refused");
	CHECK(broker_dir_new("/dev/shm", dir, sizeof(dir), &err) == 0 && stat(dir, &st) == 0 && (st.st_mode & 07777) == 0711,
	      "DIR on tmpfs, mode 0711");
	int p[2];
	CHECK(pipe(p) == 0 && write(p[1], "sk-broker-unit-test\n", 20) == 20 && close(p[1]) == 0 && broker_key_write(dir, p[0], &err) == 0,
	      "the key from a pipe");
	close(p[0]);
	snprintf(path, sizeof(path), "%s/key", dir);
	int fd = open(path, O_RDONLY);
	char key[64] = "";
	CHECK(fd >= 0 && read(fd, key, sizeof(key)) == 19 && strncmp(key, "sk-broker-unit-test", 19) == 0, "the key file holds the key alone");
	if (fd >= 0)
		close(fd);
	CHECK(stat(path, &st) == 0 && (geteuid() != 0 || ((st.st_mode & 07777) == 0400 && st.st_uid == BROKER_UID)),
	      "as root: mode 0400, the broker's uid");
	CHECK(broker_token_add(dir, token, &err) == 0 && strlen(token) == BROKER_TOKEN_LEN && strncmp(token, "csbt_", 5) == 0,
	      "a token: csbt_ and 64 hex digits");
	sha256_hex(token, strlen(token), hex);
	snprintf(path, sizeof(path), "%s/tokens/%s", dir, hex);
	CHECK(access(path, F_OK) == 0, "its file is its SHA-256");
	CHECK(broker_token_revoke(dir, token, &err) == 0 && access(path, F_OK) != 0, "revoked: its file gone");
	broker_dir_remove(dir);
	CHECK(access(dir, F_OK) != 0, "the directory removed");
	return check_done("test_hostctl_broker");
}
