/* The interactive profile as data: which names and provider ranges each CLI
 * needs, on which ports.
 *
 * The profile is profiles/interactive.json, built into the binary (so the
 * static init works when copied into another image).  A file of the same
 * name, PROFILE_OVERRIDE_FILE, in CLI_SANDBOX_PROFILE_DIR replaces it as a
 * whole.  Format (every key optional unless noted; unknown keys refused):
 *
 *   { "version": 1,                                        (required)
 *     "comment": "...",
 *     "common": SECTION,                  applies to every command
 *     "clis": { "claude": SECTION, ... }  keyed by the command's basename }
 *   SECTION = { "comment": "...", "domains": [DOMAIN...], "ranges": [RANGES...] }
 *   DOMAIN  = { "name": "api.example.com", "ports": [443], "why": "..." }
 *   RANGES  = { "file": "github-meta.json", "format": "github-meta",
 *               "lists": ["web", "api", "git"], "ports": [443], "why": "..." }
 *           | { "file": "goog.json", "format": "google", "minus": "cloud.json",
 *               "ports": [443], "why": "..." }
 *
 * Range files are plain file names inside CLI_SANDBOX_PROFILE_DIR. */
#ifndef CLI_SANDBOX_PROFILE_H
#define CLI_SANDBOX_PROFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "base/model_url.h"
#include "base/status.h"

#define PROFILE_OVERRIDE_FILE "interactive.json"
#define PROFILE_NAME_MAX 32
#define PROFILE_FILE_MAX 64
#define PROFILE_MAX_PORTS 8
#define PROFILE_MAX_LISTS 8

enum profile_range_format { PROFILE_RANGES_GITHUB_META, PROFILE_RANGES_GOOGLE };

struct profile_domain {
	char name[MODEL_HOST_MAX];
	uint16_t ports[PROFILE_MAX_PORTS];
	size_t n_ports;
};

struct profile_ranges {
	enum profile_range_format format;
	char file[PROFILE_FILE_MAX];
	char minus[PROFILE_FILE_MAX];    /* "" or a file of the same format to subtract */
	char lists[PROFILE_MAX_LISTS][PROFILE_NAME_MAX];  /* github-meta lists */
	size_t n_lists;
	uint16_t ports[PROFILE_MAX_PORTS];
	size_t n_ports;
};

struct profile_section {
	char name[PROFILE_NAME_MAX];     /* "common", or a CLI's basename */
	struct profile_domain *domains;
	size_t n_domains;
	struct profile_ranges *ranges;
	size_t n_ranges;
};

struct profile {
	struct profile_section *sections;  /* sections[0] is "common" */
	size_t n_sections;
	char source[PATH_MAX + 32];        /* "built-in profile" or the override's path */
};

/* Parses and validates a profile document; source names it in messages.
 * 0, or -1 with err (78, naming the key path such as clis.pi.domains[2]). */
int profile_parse(const char *text, size_t len, const char *source, struct profile *out,
		  struct cs_error *err);
/* The override in dir when it exists (announced with cs_info), else the
 * built-in profile.  0 or -1 with err. */
int profile_load(const char *dir, struct profile *out, struct cs_error *err);
void profile_free(struct profile *p);

/* The section for a CLI name, or NULL. */
const struct profile_section *profile_cli(const struct profile *p, const char *name);

/* The built-in profile (generated from profiles/interactive.json). */
extern const char profile_builtin_json[];
extern const size_t profile_builtin_json_len;

#endif
