/* libcurl, loaded when a command first sends a request (dlopen), so that the
 * commands that send none (endpoints list, use, rm, models catalog, status,
 * version --short, init) do not pay for mapping and relocating libcurl and
 * its 33 libraries: about 20 ms of every start here, most of the host
 * side's own time.  The program calls libcurl's own API (curl.h); these
 * definitions stand in for it and forward each call to the loaded library.
 *
 * curl_easy_setopt and curl_easy_getinfo are variadic: the argument is read
 * by the type curl.h's option number says it has (a long below
 * CURLOPTTYPE_OBJECTPOINT, an object pointer below
 * CURLOPTTYPE_FUNCTIONPOINT, as libcurl itself reads them), and an option
 * this program does not use is refused (CURLE_UNKNOWN_OPTION), never passed
 * on with a guessed type. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/status.h"

static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *curl);
	void (*easy_cleanup)(CURL *curl);
	void (*easy_reset)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
} lc;

/* Loads libcurl once; a host without it cannot send a request, so the
 * command stops with the one error line (71: a failure of this host). */
static void load(void)
{
	void *h;

	if (lc.easy_init)
		return;
	h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		*(void **)&lc.global_init = dlsym(h, "curl_global_init");
		*(void **)&lc.easy_init = dlsym(h, "curl_easy_init");
		*(void **)&lc.easy_setopt = dlsym(h, "curl_easy_setopt");
		*(void **)&lc.easy_getinfo = dlsym(h, "curl_easy_getinfo");
		*(void **)&lc.easy_perform = dlsym(h, "curl_easy_perform");
		*(void **)&lc.easy_cleanup = dlsym(h, "curl_easy_cleanup");
		*(void **)&lc.easy_reset = dlsym(h, "curl_easy_reset");
		*(void **)&lc.easy_strerror = dlsym(h, "curl_easy_strerror");
		*(void **)&lc.slist_append = dlsym(h, "curl_slist_append");
		*(void **)&lc.slist_free_all = dlsym(h, "curl_slist_free_all");
	}
	if (!h || !lc.global_init || !lc.easy_init || !lc.easy_setopt || !lc.easy_getinfo || !lc.easy_perform || !lc.easy_cleanup ||
	    !lc.easy_reset || !lc.easy_strerror || !lc.slist_append || !lc.slist_free_all || lc.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "cli-sandbox-ctl: error: libcurl (libcurl.so.4) does not load: %s; install it (apt-get install libcurl4)\n",
			h ? "a function is missing or it does not start" : dlerror());
		exit(CS_EXIT_OSERR);
	}
}

CURL *(curl_easy_init)(void)
{
	load();
	return lc.easy_init();
}

CURLcode (curl_easy_setopt)(CURL *curl, CURLoption option, ...)
{
	CURLcode rc = CURLE_UNKNOWN_OPTION;
	va_list ap;

	load();
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = lc.easy_setopt(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = lc.easy_setopt(curl, option, va_arg(ap, void *));
	else if (option == CURLOPT_WRITEFUNCTION)
		rc = lc.easy_setopt(curl, option, va_arg(ap, curl_write_callback));
	va_end(ap);
	return rc;
}

CURLcode (curl_easy_getinfo)(CURL *curl, CURLINFO info, ...)
{
	CURLcode rc = CURLE_UNKNOWN_OPTION;
	va_list ap;

	load();
	va_start(ap, info);
	if ((info & CURLINFO_TYPEMASK) == CURLINFO_LONG)
		rc = lc.easy_getinfo(curl, info, va_arg(ap, long *));
	va_end(ap);
	return rc;
}

CURLcode (curl_easy_perform)(CURL *curl)
{
	load();
	return lc.easy_perform(curl);
}

void (curl_easy_cleanup)(CURL *curl)
{
	load();
	lc.easy_cleanup(curl);
}

void (curl_easy_reset)(CURL *curl)
{
	load();
	lc.easy_reset(curl);
}

const char *(curl_easy_strerror)(CURLcode code)
{
	load();
	return lc.easy_strerror(code);
}

struct curl_slist *(curl_slist_append)(struct curl_slist *list, const char *s)
{
	load();
	return lc.slist_append(list, s);
}

void (curl_slist_free_all)(struct curl_slist *list)
{
	load();
	lc.slist_free_all(list);
}
