#include "hostctl/images.h"

#include <stdio.h>
#include <string.h>

#include "base/cli_names.h"

/* The tag's ':' (after the last '/': a registry's port is not a tag), or NULL. */
static const char *tag_colon(const char *image)
{
	const char *last = strrchr(image, '/');

	return strchr(last ? last : image, ':');
}

bool image_own(const char *image, const char *cli, char *out, size_t len)
{
	const char *last = strrchr(image, '/'), *colon = tag_colon(image);

	out[0] = '\0';
	if (strchr(last ? last : image, '@'))
		return false;
	if (!colon)
		snprintf(out, len, "%s:%s", image, cli);
	else if (strcmp(colon, ":latest") == 0)
		snprintf(out, len, "%.*s:%s", (int)(colon - image), image, cli);
	return out[0] != '\0';
}

void image_gateway(const char *image, const char *chosen, char *out, size_t len)
{
	const char *colon = tag_colon(image);

	if (chosen && *chosen)
		snprintf(out, len, "%s", chosen);
	else if (colon)
		snprintf(out, len, "%.*s-gateway%s", (int)(colon - image), image, colon);
	else
		snprintf(out, len, "%s-gateway:latest", image);
}

void image_broker(const char *image, const char *chosen, char *out, size_t len)
{
	const char *colon = tag_colon(image);

	if (chosen && *chosen)
		snprintf(out, len, "%s", chosen);
	else if (colon && !cs_cli_by_name(colon + 1))
		snprintf(out, len, "%.*s-broker%s", (int)(colon - image), image, colon);
	else
		snprintf(out, len, "%.*s-broker:latest", (int)(colon ? (size_t)(colon - image) : strlen(image)), image);
}
