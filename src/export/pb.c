/* SPDX-License-Identifier: MIT */
/* Protocol Buffers' wire format, written (export/pb.h). */
#include "export/pb.h"

int mt_pb_packed(struct mt_buf *b, unsigned field, const uint64_t *v, size_t n,
		 struct mt_buf *scratch)
{
	int rc = 0;

	if (!n)
		return 0;
	mt_buf_reset(scratch);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = mt_buf_put_varint(scratch, v[i]);
	return rc < 0 ? rc : mt_pb_bytes(b, field, scratch->data, scratch->len);
}
