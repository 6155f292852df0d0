/* The fast path for the providers' range files.
 *
 * jansson builds an object for every value of a document (some 200
 * instructions a byte); a start needs only the prefix strings.  This scanner
 * checks the whole text as strict JSON in one pass and collects the strings
 * of the lists a loader reads, without building anything.  It accepts only
 * the plain case: ASCII strings without escapes, integers, no duplicate key,
 * the expected shape.  For anything else it answers RANGE_SCAN_FALLBACK and
 * the loader parses the text with jansson, whose result and messages are the
 * reference: the fast path never accepts a document that path would refuse,
 * and yields the same strings in the same order. */
#ifndef CLI_SANDBOX_RANGE_SCAN_H
#define CLI_SANDBOX_RANGE_SCAN_H

#include <stddef.h>

/* A string of the document (bytes in the text, no NUL) and the index of
 * its element in the list it came from, for messages. */
struct scan_str {
	const char *s;
	size_t len;
	size_t index;
};

/* The strings found, per list asked for, in document order. */
struct scan_list {
	struct scan_str *v;
	size_t n, cap;
};

enum range_scan_result { RANGE_SCAN_OK = 0, RANGE_SCAN_FALLBACK = 1, RANGE_SCAN_NOMEM = -1 };

/* GitHub's meta document: out[i] gets the elements of the top-level array
 * lists[i] (all strings, or FALLBACK). */
enum range_scan_result range_scan_github(const char *text, size_t len, const char *const *lists,
					 size_t n_lists, struct scan_list *out);

/* Google's format: out gets, for each element of "prefixes" in order, its
 * "ipv4Prefix" string; an element with only a string "ipv6Prefix" adds
 * nothing (anything else is FALLBACK). */
enum range_scan_result range_scan_google(const char *text, size_t len, struct scan_list *out);

void scan_list_free(struct scan_list *l);

#endif
