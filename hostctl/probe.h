/* The probe: asks an endpoint every path of classify.h over HTTP (libcurl)
 * and hands the answers to the pure classifier.  Redirects are not
 * followed and no proxy is used, so a key goes to that endpoint alone; the
 * key (NULL: none) is sent in every form a server of the family reads
 * (x-api-key and Authorization: Bearer; x-goog-api-key on the Gemini path)
 * and is never printed. */
#ifndef CLI_SANDBOX_HOSTCTL_PROBE_H
#define CLI_SANDBOX_HOSTCTL_PROBE_H

#include "base/status.h"
#include "hostctl/classify.h"

/* The server's root: the URL without a trailing '/' and '/v1', into out. */
void probe_root(const char *url, char *out, size_t len);

/* Probes url; fills *speaks and returns the verdict (VERDICT_SILENT when
 * nothing answered within the timeouts).  -1 with err on a local failure. */
int probe_endpoint(const char *url, const char *key, unsigned *speaks, enum verdict *verdict, struct cs_error *err);

#endif
