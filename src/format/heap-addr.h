/* SPDX-License-Identifier: MIT */
/* The HEAP_ADDR column encoding: an ALLOC block's addresses through a model of allocators. */
#ifndef MEMTAP_FORMAT_HEAP_ADDR_H
#define MEMTAP_FORMAT_HEAP_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "format/block.h"

/* Writes the addr column of ALLOC block b as HEAP_ADDR varints at out (room for
 * MT_VARINT_MAX per row); returns the bytes written, 0 when b cannot be (not an ALLOC
 * block, or an address outside user space): the caller then picks another encoding. */
size_t mt_heap_addr_encode(const struct mt_block *b, uint8_t *out);

/* Turns the codes in b's addr column (decoded as plain varints) into addresses, given its
 * kind and usable columns; -MT_ERR_CORRUPT for a code the model cannot have made. */
int mt_heap_addr_decode(struct mt_block *b);

#endif
