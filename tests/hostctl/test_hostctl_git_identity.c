/* git's user for the sandbox's commits (hostctl/git_identity.h): the last
 * of each key wins, as 'git config KEY' reads it; a value with a control
 * byte is none (the runner's lines carry one value a line); UTF-8 stays. */
#include <string.h>

#include "check.h"
#include "hostctl/git_identity.h"

int main(void)
{
	char name[64], email[64];

	git_identity_parse("user.name Global\nuser.email g@example.invalid\nuser.name Jo Sé\n", name, email, sizeof(name));
	CHECK(strcmp(name, "Jo Sé") == 0, "the last user.name wins, UTF-8 kept: %s", name);
	CHECK(strcmp(email, "g@example.invalid") == 0, "user.email: %s", email);
	git_identity_parse("", name, email, sizeof(name));
	CHECK(!name[0] && !email[0], "none set: none");
	git_identity_parse("user.name a\tb\nuser.email e\x1b[31m\n", name, email, sizeof(name));
	CHECK(!name[0] && !email[0], "a control byte (a tab, an escape): none");
	git_identity_parse("user.namex y\nuser.emails z\nuser.name\n", name, email, sizeof(name));
	CHECK(!name[0] && !email[0], "other keys, a key without a value: none");
	git_identity_parse("user.name 0123456789012345678901234567890123456789012345678901234567890123456789\n", name, email,
			   sizeof(name));
	CHECK(!name[0], "a value longer than the room: none, never cut");
	return check_done("test_hostctl_git_identity");
}
