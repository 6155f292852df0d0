/* resolv.conf nameservers and the default gateway of /proc/net/route, from
 * fixtures. */
#include <string.h>

#include "profiles/netinfo.h"
#include "check.h"

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static void test_resolv_conf(void)
{
	uint32_t ns[8];
	struct cs_error err = { 0 };
	int n;

	/* Docker's embedded resolver is a loopback address, and allowed */
	n = resolv_conf_nameservers(FIXTURES "/resolv.conf.docker", ns, 8, &err);
	CHECK(n == 1 && ns[0] == A(127, 0, 0, 11), "docker: n=%d", n);

	/* comments, IPv6, a tab, trailing comments, duplicates, bad forms,
	 * unusable addresses, indented or misspelt keywords: two remain */
	n = resolv_conf_nameservers(FIXTURES "/resolv.conf.mixed", ns, 8, &err);
	CHECK(n == 2 && ns[0] == A(192, 0, 2, 53) && ns[1] == A(198, 51, 100, 53), "mixed: n=%d", n);

	/* more than the limit: the first ones, in file order */
	n = resolv_conf_nameservers(FIXTURES "/resolv.conf.many", ns, 3, &err);
	CHECK(n == 3 && ns[0] == A(192, 0, 2, 1) && ns[2] == A(192, 0, 2, 3), "many/3: n=%d", n);
	n = resolv_conf_nameservers(FIXTURES "/resolv.conf.many", ns, 8, &err);
	CHECK(n == 8 && ns[7] == A(192, 0, 2, 8), "many/8: n=%d", n);

	/* none, or no file: zero nameservers (DNS stays blocked), not an error */
	CHECK(resolv_conf_nameservers(FIXTURES "/resolv.conf.none", ns, 8, &err) == 0, "none");
	CHECK(resolv_conf_nameservers(FIXTURES "/absent", ns, 8, &err) == 0, "absent");
	/* a directory cannot be read as a file */
	n = resolv_conf_nameservers(FIXTURES, ns, 8, &err);
	CHECK(n == -1 && err.status == 78 && strstr(err.msg, "cannot read"), "directory: n=%d", n);
}

static void test_route(void)
{
	uint32_t gw = 0;
	struct cs_error err = { 0 };

	CHECK(route_default_gateway(FIXTURES "/route.docker", &gw, &err) == 0 && gw == A(192, 0, 2, 1),
	      "docker: %08x %s", gw, err.msg);
	/* two default routes: the lower metric wins; a "default" without the
	 * gateway flag is no gateway */
	CHECK(route_default_gateway(FIXTURES "/route.metrics", &gw, &err) == 0 && gw == A(192, 0, 2, 1),
	      "metrics: %08x %s", gw, err.msg);
	memset(&err, 0, sizeof(err));
	CHECK(route_default_gateway(FIXTURES "/route.nodefault", &gw, &err) == -1 && err.status == 78 &&
	      strstr(err.msg, "no default route") && strstr(err.msg, "route.nodefault"), "nodefault: %s", err.msg);
	memset(&err, 0, sizeof(err));
	CHECK(route_default_gateway(FIXTURES "/absent", &gw, &err) == -1 && err.status == 78 &&
	      strstr(err.msg, "CLI_SANDBOX_ALLOW_HOST_NETWORK"), "absent: %s", err.msg);
}

int main(void)
{
	test_resolv_conf();
	test_route();
	return check_done("profiles/netinfo");
}
