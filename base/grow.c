#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>

int grow_array(void **items, size_t *cap, size_t used, size_t size, size_t first_cap)
{
	size_t ncap;
	void *p;

	if (used < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : (first_cap ? first_cap : 8);
	if (ncap < *cap || size == 0 || ncap > SIZE_MAX / size)
		return -1;
	p = realloc(*items, ncap * size);
	if (!p)
		return -1;
	*items = p;
	*cap = ncap;
	return 0;
}
