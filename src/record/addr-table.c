/* SPDX-License-Identifier: MIT */
/* Heap block addresses to values (record/addr-table.h). */
#include "record/addr-table.h"

#include <stdlib.h>

int mt_addr_grow(struct mt_addr_table *t)
{
	struct mt_addr_table n = { .bits = t->bits ? t->bits + 1 : 12, .len = t->len };
	size_t cap = (size_t)1 << t->bits, mask;

	if (!(n.v = calloc((size_t)1 << n.bits, sizeof(*n.v))))
		return -1;
	mask = ((size_t)1 << n.bits) - 1;
	for (size_t i = 0; t->v && i < cap; i++) {
		size_t k;

		if (!t->v[i].addr)
			continue;
		for (k = mt_addr_home(&n, t->v[i].addr); n.v[k].addr; k = (k + 1) & mask)
			;
		n.v[k] = t->v[i];
	}
	free(t->v);
	*t = n;
	return 0;
}

void mt_addr_release(struct mt_addr_table *t)
{
	free(t->v);
	*t = (struct mt_addr_table){ 0 };
}
