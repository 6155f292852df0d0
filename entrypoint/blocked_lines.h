/* The block log's lines: one per refused flow, deduplicated and
 * rate-limited, in fixed memory.  Pure: time comes in as arguments, so the
 * tests can drive it.
 *
 * A flow is (protocol, destination address, port or ICMP type, uid).  Its
 * first packet gives a line; its repeats within BLOCKED_REPEAT_MS are
 * counted, not shown, and the next line for it says how many there were.
 * The table has BLOCKED_SLOTS entries; when they are all taken the oldest
 * one is forgotten (that flow may then get a line again early).  On top,
 * at most BLOCKED_LINES_PER_S lines per second after a burst of
 * BLOCKED_LINES_BURST; a line refused by that limit is counted and the
 * next line says how many were not shown. */
#ifndef CLI_SANDBOX_BLOCKED_LINES_H
#define CLI_SANDBOX_BLOCKED_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "netfilter/nflog.h"

#define BLOCKED_SLOTS 256
#define BLOCKED_REPEAT_MS 60000
#define BLOCKED_LINES_PER_S 5
#define BLOCKED_LINES_BURST 20
#define BLOCKED_LINE_MAX 256

struct blocked_slot {
	struct nflog_event ev;
	int64_t shown_ms;    /* when its last line was written */
	uint32_t repeats;    /* packets since that line */
	bool used;
};

struct blocked_lines {
	struct blocked_slot slot[BLOCKED_SLOTS];
	int64_t tokens_ms;   /* the line bucket, in milliseconds of credit */
	int64_t last_ms;
	bool started;
	uint64_t not_shown;  /* lines refused by the rate limit since the last line */
};

void blocked_lines_init(struct blocked_lines *b);

/* Decides about one refused packet at monotonic time now_ms.  When it
 * deserves a line, writes it (without newline) into line, using wall as
 * its time stamp, and returns true. */
bool blocked_lines_add(struct blocked_lines *b, const struct nflog_event *ev, int64_t now_ms,
		       time_t wall, char line[BLOCKED_LINE_MAX]);

#endif
