/* SPDX-License-Identifier: MIT */
/* Folded-stack export of the allocation sites. */
#include "common/array.h"
#include "folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/alloc.h"
#include "analysis/procs.h"
#include "analysis/symbols.h"
#include "common/buf.h"
#include "analysis/pass.h"
#include "format/reader.h"

#define MAX_FRAMES 512

/* Lines are collected, sorted and merged: sites whose stacks symbolize alike (return
 * addresses in the same function and line) become one line, and the output is stable. */
struct line {
	char *text;
	uint64_t weight;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

static uint64_t weight_of(const struct mt_alloc_site *s, enum mt_folded_weight w)
{
	switch (w) {
	case MT_FOLD_CALLS:
		return s->calls;
	case MT_FOLD_PEAK:
		return s->peak_bytes;
	case MT_FOLD_LEAKED:
		return s->leaked_bytes;
	case MT_FOLD_TEMPORARY:
		return s->temporary;
	default:
		return s->bytes;
	}
}

/* A frame name with the characters the folded format reserves (';', newlines) replaced. */
static int put_name(struct mt_buf *b, const char *s)
{
	int rc = 0;

	for (; *s && rc >= 0; s++)
		rc = mt_buf_putc(b, *s == ';' || *s == '\n' || *s == '\r' ? '_' : (uint8_t)*s);
	return rc;
}

static int put_frame(struct mt_buf *b, const struct mt_frame *f, struct mt_folded_stats *st)
{
	char tmp[64];
	const char *mod = f->module ? strrchr(f->module, '/') : NULL;

	int rc;

	mod = mod ? mod + 1 : f->module;
	if (f->function && mt_frame_is_python(f) && f->file) {
		/* a Python frame: "function (file:line)", as py-spy names them */
		char name[512];

		rc = put_name(b, mt_frame_py_name(f, name, sizeof(name)));
	} else if (f->function) {
		rc = put_name(b, f->function);
	} else {
		st->unresolved_frames++;
		rc = 0;
		if (mod) {
			rc = put_name(b, mod);
			snprintf(tmp, sizeof(tmp), "+0x%" PRIx64, f->offset);
		} else {
			snprintf(tmp, sizeof(tmp), "0x%" PRIx64, f->ip);
		}
		if (rc >= 0)
			rc = mt_buf_append(b, tmp, strlen(tmp));
	}
	if (rc >= 0 && f->inlined)
		rc = mt_buf_append(b, "_[i]", 4);
	return rc;
}

int mt_export_folded(struct mt_reader *r, enum mt_folded_weight w, FILE *out,
		     struct mt_folded_stats *stats)
{
	struct mt_alloc_stats st;
	struct mt_procs procs = { 0 };
	struct mt_symbolizer *sym = NULL;
	struct mt_buf line, frames;
	uint64_t *ips = malloc(MAX_FRAMES * sizeof(*ips));
	size_t *starts = malloc((MAX_FRAMES * 8 + 1) * sizeof(*starts));
	struct line *lines = NULL;
	size_t nlines = 0, lines_cap = 0;
	struct mt_passes ps;
	struct mt_pass p;
	int rc;

	memset(stats, 0, sizeof(*stats));
	mt_buf_init(&line, 64u << 20);
	mt_buf_init(&frames, 64u << 20);
	if (!ips || !starts) {
		rc = -ENOMEM;
		goto out_free;
	}
	if (!mt_reader_event_count(r, MT_EV_ALLOC)) {
		rc = -ENODATA;
		goto out_free;
	}
	/* one read: the allocations, the process tree and the symbolizer's index */
	mt_passes_init(&ps);
	mt_passes_add(&ps, mt_alloc_pass(r, &st, &p), &p);
	mt_passes_add(&ps, mt_procs_pass(r, &procs, &p), &p);
	mt_passes_add(&ps, mt_sym_pass(r, &sym, &p), &p);
	rc = mt_passes_run(r, &ps);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < st.nsites; i++) {
		const struct mt_alloc_site *s = &st.sites[i];
		uint64_t wt = weight_of(s, w);
		int depth = 0;
		size_t nf = 0;
		char root[96];

		if (!wt)
			continue;
		if (s->stack)
			depth = mt_reader_stack(r, s->stream, s->stack, ips, MAX_FRAMES);
		/* Frames innermost first into `frames`, each one's start kept, then reversed. */
		mt_buf_reset(&frames);
		for (int d = 0; d < depth; d++) {
			const struct mt_frame *fr;
			int n = mt_sym_resolve(sym, s->pid, s->first_ns, ips[d], true, &fr);

			if (n < 0) {
				rc = n;
				goto out;
			}
			for (int q = 0; q < n && nf < MAX_FRAMES * 8; q++) {
				starts[nf++] = frames.len;
				rc = put_frame(&frames, &fr[q], stats);
				if (rc < 0)
					goto out;
			}
		}
		starts[nf] = frames.len;
		mt_buf_reset(&line);
		snprintf(root, sizeof(root), "%s %u", mt_procs_comm_at(&procs, s->pid, s->first_ns),
			 s->pid);
		put_name(&line, root);
		if (!nf) {
			const char *what = depth < 0 ? ";[stack lost]" : ";[no stack]";

			rc = mt_buf_append(&line, what, strlen(what));
		}
		for (size_t q = nf; q-- > 0 && rc >= 0;) {
			rc = mt_buf_putc(&line, ';');
			if (rc >= 0)
				rc = mt_buf_append(&line, frames.data + starts[q],
						   starts[q + 1] - starts[q]);
		}
		if (rc < 0)
			goto out;
		if (mt_grow_array(&lines, &lines_cap, nlines + 1, sizeof(*lines)) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		lines[nlines].text = strndup((const char *)line.data, line.len);
		lines[nlines].weight = wt;
		if (!lines[nlines++].text) {
			rc = -ENOMEM;
			goto out;
		}
	}
	mt_qsort(lines, nlines, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nlines;) {
		uint64_t wt = 0;
		size_t k = i;

		for (; k < nlines && !strcmp(lines[k].text, lines[i].text); k++)
			wt += lines[k].weight;
		fprintf(out, "%s %" PRIu64 "\n", lines[i].text, wt);
		stats->lines++;
		stats->total += wt;
		i = k;
	}
	if (fflush(out) != 0 || ferror(out))
		rc = -EIO;
out:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	mt_sym_close(sym);
	mt_procs_release(&procs);
	mt_alloc_release(&st);
out_free:
	mt_buf_release(&line);
	mt_buf_release(&frames);
	free(ips);
	free(starts);
	return rc;
}
