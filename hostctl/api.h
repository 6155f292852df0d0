/* The model APIs by the names the endpoints file uses ("speaks=" words:
 * anthropic, chat, responses, ollama, gemini) and the plan prints. */
#ifndef CLI_SANDBOX_HOSTCTL_API_H
#define CLI_SANDBOX_HOSTCTL_API_H

#include <stdbool.h>
#include <stddef.h>

#include "base/cli_names.h"

/* The word of one API bit ("anthropic" for CS_API_MESSAGES), or NULL. */
const char *api_word(unsigned api);

/* "anthropic,chat" -> mask; false on an unknown word or an empty item. */
bool api_parse_list(const char *s, size_t n, unsigned *mask);

/* The mask as a comma list in the file's order; "" for 0.  Returns out. */
char *api_format_list(unsigned mask, char *out, size_t len);

#endif
