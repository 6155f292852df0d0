/* libFuzzer harness for the block log's NFLOG parser and line writer: the
 * packet headers in those messages are the command's choice, and PID 1
 * parses them.  No input may crash it or read outside the buffer, and every
 * event it passes on is well formed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netfilter/nflog.h"

static void invariant(int ok)
{
	if (!ok)
		abort();
}

static void check_event(const struct nflog_event *ev, void *ctx)
{
	(void)ctx;
	invariant(ev->family == 4 || ev->family == 6);
	invariant(!(ev->has_port && ev->has_icmp));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);  /* libFuzzer calls it */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nflog_event ev;
	uint8_t *copy;

	/* Whole datagrams, in an exactly sized heap copy so ASan sees any
	 * read past the end; and the payload parser on its own. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	(void)nflog_parse(copy, size, check_event, NULL);
	if (nflog_parse_packet(copy, size, &ev))
		check_event(&ev, NULL);
	free(copy);
	return 0;
}
