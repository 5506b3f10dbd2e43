/* SPDX-License-Identifier: MIT */
/* Heap block addresses to values (record/addr-table.h). */
#include "record/addr-table.h"

#include <stdlib.h>

size_t mt_addr_find(const struct mt_addr_table *t, uint64_t addr)
{
	size_t mask, i;

	if (!t->v)
		return SIZE_MAX;
	mask = ((size_t)1 << t->bits) - 1;
	for (i = mt_addr_home(t, addr); t->v[i].addr; i = (i + 1) & mask)
		if (t->v[i].addr == addr)
			return i;
	return SIZE_MAX;
}

/* Backward-shift deletion: later members of the probe run move into the hole. */
void mt_addr_del_at(struct mt_addr_table *t, size_t i)
{
	size_t mask = ((size_t)1 << t->bits) - 1;

	for (size_t j = (i + 1) & mask; t->v[j].addr; j = (j + 1) & mask) {
		size_t k = mt_addr_home(t, t->v[j].addr);

		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			t->v[i] = t->v[j];
			i = j;
		}
	}
	t->v[i].addr = 0;
	t->len--;
}

static int grow(struct mt_addr_table *t)
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

uint64_t *mt_addr_put(struct mt_addr_table *t, uint64_t addr, bool *fresh)
{
	size_t mask, i;

	if ((!t->v || (t->len + 1) * 4 > ((size_t)3 << t->bits)) && grow(t) < 0)
		return NULL;
	mask = ((size_t)1 << t->bits) - 1;
	for (i = mt_addr_home(t, addr); t->v[i].addr; i = (i + 1) & mask)
		if (t->v[i].addr == addr) {
			*fresh = false;
			return &t->v[i].val;
		}
	t->v[i] = (struct mt_addr_ent){ addr, 0 };
	t->len++;
	*fresh = true;
	return &t->v[i].val;
}

void mt_addr_release(struct mt_addr_table *t)
{
	free(t->v);
	*t = (struct mt_addr_table){ 0 };
}
