/* SPDX-License-Identifier: MIT */
/* Growable arrays: the one realloc-doubling helper every table uses. */
#ifndef MEMTAP_COMMON_ARRAY_H
#define MEMTAP_COMMON_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Makes room for need elements of elem bytes in the array whose pointer is at *pp and
 * whose capacity is *cap, doubling it (from 16). The array is unchanged on failure.
 * Returns 0 or -ENOMEM. pp is the address of any object pointer (struct x **).
 */
static inline int mt_grow_array(void *pp, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *p, *n;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&p, pp, sizeof(p));
	n = realloc(p, ncap * elem);
	if (!n)
		return -ENOMEM;
	memcpy(pp, &n, sizeof(n));
	*cap = ncap;
	return 0;
}

/* qsort, for any count: qsort(NULL, 0, ...) is undefined (its arguments are nonnull). */
static inline void mt_qsort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
