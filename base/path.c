#include "base/path.h"

#include <string.h>

const char *cs_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
