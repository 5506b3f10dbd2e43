/* SPDX-License-Identifier: MIT */
/* The reading side memtap needs of Parquet: a file's footer key/value metadata. */
#include "export/parquet-read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FOOTER (64u << 20)
#define MAX_DEPTH 32

/* Thrift compact protocol, read-only and bounds-checked. */
struct tr {
	const uint8_t *p, *end;
	int depth;
	bool bad;
};

static uint64_t r_varint(struct tr *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static const uint8_t *r_bytes(struct tr *r, size_t *n)
{
	uint64_t len = r_varint(r);
	const uint8_t *s = r->p;

	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		return NULL;
	}
	r->p += len;
	*n = (size_t)len;
	return s;
}

static void skip(struct tr *r, unsigned type);

static void skip_struct(struct tr *r)
{
	if (++r->depth > MAX_DEPTH) {
		r->bad = true;
		return;
	}
	while (!r->bad) {
		uint8_t h;

		if (r->p >= r->end) {
			r->bad = true;
			break;
		}
		h = *r->p++;
		if (!h)
			break;
		if (!(h >> 4))
			(void)r_varint(r); /* a long-form field id */
		skip(r, h & 0x0f);
	}
	r->depth--;
}

static void skip_list(struct tr *r)
{
	uint8_t h;
	uint64_t n;

	if (r->p >= r->end) {
		r->bad = true;
		return;
	}
	h = *r->p++;
	n = h >> 4;
	if (n == 15)
		n = r_varint(r);
	if (n > (uint64_t)(r->end - r->p) * 8 + 8) { /* no element takes less than a bit */
		r->bad = true;
		return;
	}
	if (++r->depth > MAX_DEPTH) {
		r->bad = true;
		return;
	}
	if ((h & 0x0f) == 1 || (h & 0x0f) == 2) { /* bool elements: a byte each */
		if (n > (uint64_t)(r->end - r->p))
			r->bad = true;
		else
			r->p += n;
	} else {
		for (uint64_t i = 0; i < n && !r->bad; i++)
			skip(r, h & 0x0f);
	}
	r->depth--;
}

static void skip(struct tr *r, unsigned type)
{
	size_t n;

	switch (type) {
	case 1: /* TRUE */
	case 2: /* FALSE, as a field; list elements of bool take a byte */
		break;
	case 3: /* BYTE */
		if (r->p >= r->end)
			r->bad = true;
		else
			r->p++;
		break;
	case 4: /* I16 */
	case 5: /* I32 */
	case 6: /* I64 */
		(void)r_varint(r);
		break;
	case 7: /* DOUBLE */
		if (r->end - r->p < 8)
			r->bad = true;
		else
			r->p += 8;
		break;
	case 8: /* BINARY */
		(void)r_bytes(r, &n);
		break;
	case 9: /* LIST */
	case 10: /* SET */
		skip_list(r);
		break;
	case 11: { /* MAP */
		uint64_t cnt = r_varint(r);
		uint8_t kv;

		if (!cnt || r->bad)
			break;
		if (r->p >= r->end || cnt > (uint64_t)(r->end - r->p)) {
			r->bad = true;
			break;
		}
		kv = *r->p++;
		if (++r->depth > MAX_DEPTH) {
			r->bad = true;
			break;
		}
		for (uint64_t i = 0; i < cnt && !r->bad; i++) {
			skip(r, kv >> 4);
			skip(r, kv & 0x0f);
		}
		r->depth--;
		break;
	}
	case 12: /* STRUCT */
		skip_struct(r);
		break;
	default:
		r->bad = true;
		break;
	}
}

int mt_pq_parse_footer(const uint8_t *data, size_t n, mt_pq_kv_fn fn, void *ctx)
{
	struct tr r = { .p = data, .end = data + n };
	int16_t last = 0;

	while (!r.bad) {
		uint8_t h;
		int16_t id;

		if (r.p >= r.end)
			return -EINVAL;
		h = *r.p++;
		if (!h)
			return 0;
		id = (h >> 4) ? (int16_t)(last + (h >> 4)) : (int16_t)(r_varint(&r) >> 1);
		last = id;
		if (id == 5 && (h & 0x0f) == 9) { /* key_value_metadata: list<KeyValue> */
			uint8_t lh;
			uint64_t cnt;

			if (r.p >= r.end)
				return -EINVAL;
			lh = *r.p++;
			cnt = lh >> 4;
			if (cnt == 15)
				cnt = r_varint(&r);
			if ((lh & 0x0f) != 12 || cnt > (uint64_t)(r.end - r.p))
				return -EINVAL;
			for (uint64_t i = 0; i < cnt && !r.bad; i++) {
				const uint8_t *k = NULL, *v = NULL;
				size_t kn = 0, vn = 0;
				int16_t fl = 0;

				for (;;) {
					uint8_t fh;
					int16_t fid;

					if (r.p >= r.end) {
						r.bad = true;
						break;
					}
					fh = *r.p++;
					if (!fh)
						break;
					fid = (fh >> 4) ? (int16_t)(fl + (fh >> 4))
							: (int16_t)(r_varint(&r) >> 1);
					fl = fid;
					if ((fh & 0x0f) == 8 && fid == 1)
						k = r_bytes(&r, &kn);
					else if ((fh & 0x0f) == 8 && fid == 2)
						v = r_bytes(&r, &vn);
					else
						skip(&r, fh & 0x0f);
					if (r.bad)
						break;
				}
				if (!r.bad && k &&
				    fn(ctx, (const char *)k, kn, (const char *)v, v ? vn : 0))
					return 0;
			}
			continue;
		}
		skip(&r, h & 0x0f);
	}
	return -EINVAL;
}

int mt_pq_read_footer(const char *path, uint8_t **footer, size_t *n)
{
	uint8_t tail[8];
	struct stat st;
	uint32_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = 0;

	*footer = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (st.st_size < 12 || pread(fd, tail, 8, st.st_size - 8) != 8 ||
	    memcmp(tail + 4, "PAR1", 4)) {
		rc = -EPROTO; /* not Parquet, or cut short */
		goto out;
	}
	len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
	      (uint32_t)tail[3] << 24;
	if (len > MAX_FOOTER || (off_t)len > st.st_size - 12) {
		rc = -EPROTO;
		goto out;
	}
	*footer = malloc(len ? len : 1);
	if (!*footer) {
		rc = -ENOMEM;
		goto out;
	}
	if (pread(fd, *footer, len, st.st_size - 8 - (off_t)len) != (ssize_t)len) {
		free(*footer);
		*footer = NULL;
		rc = -EIO;
		goto out;
	}
	*n = len;
out:
	close(fd);
	return rc;
}
