/* IPv4 range arithmetic and the providers' range files.
 *
 * A range list is a growable array of inclusive host-order ranges
 * (struct ipv4_range).  "Normalised" means sorted, non-overlapping and
 * non-adjacent: the form the kernel's interval sets accept.  The file loaders
 * read the providers' own formats (GitHub's meta document, Google's
 * goog.json/cloud.json) and return normalised IPv4 lists; IPv6 entries are
 * skipped, since IPv6 stays dropped. */
#ifndef CLI_SANDBOX_RANGES_H
#define CLI_SANDBOX_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipv4.h"
#include "base/status.h"

/* The widest prefix any source may allow: a /7 or wider (0.0.0.0/0 above
 * all) is refused in provider files and in CLI_SANDBOX_ALLOW alike. */
#define RANGES_MIN_PREFIX_LEN CS_MIN_PREFIX_LEN

/* Range files larger than this are refused rather than read. */
#define RANGES_MAX_FILE_BYTES (64u << 20)

struct range_list {
	struct ipv4_range *r;
	size_t n, cap;
};

void range_list_free(struct range_list *l);
/* Appends [first, last] (first <= last); 0, or -1 when memory runs out. */
int range_list_add(struct range_list *l, uint32_t first, uint32_t last);
/* Sorts and merges overlapping and adjacent ranges in place. */
void range_list_normalise(struct range_list *l);
/* out = a minus b.  a and b must be normalised; out is normalised and may
 * not alias either.  0, or -1 when memory runs out. */
int range_list_subtract(const struct range_list *a, const struct range_list *b,
			struct range_list *out);
/* Removes the destinations no profile may allow (see
 * ipv4_forbidden_destination) from a normalised list.  *removed tells
 * whether anything was cut.  0 or -1 (memory). */
int range_list_remove_forbidden(struct range_list *l, bool *removed);

/* Loaders.  path is the file to read, shown in every message.  They return
 * 0 with *out filled (normalised; host bits masked; forbidden blocks still
 * in, the caller removes them and warns), 1 when the file does not exist
 * (nothing is filled; the caller warns), or -1 with err set (status 78) when
 * the file is unreadable or malformed: the message names the file and the
 * line (JSON syntax) or the entry (e.g. git[3]) that is wrong. */
int ranges_load_github_meta(const char *path, const char *const *lists, size_t n_lists,
			    struct range_list *out, struct cs_error *err);
/* goog.json and cloud.json share one format: {"prefixes":[{"ipv4Prefix":..}]}. */
int ranges_load_google(const char *path, struct range_list *out, struct cs_error *err);

#endif
