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

static void line_add(struct mt_folded_line *l, const struct mt_alloc_site *s)
{
	l->w[MT_FOLD_BYTES] += s->bytes;
	l->w[MT_FOLD_CALLS] += s->calls;
	l->w[MT_FOLD_PEAK] += s->peak_bytes;
	l->w[MT_FOLD_LEAKED] += s->leaked_bytes;
	l->w[MT_FOLD_TEMPORARY] += s->temporary;
}

static int cmp_fline(const void *a, const void *b)
{
	return strcmp(((const struct mt_folded_line *)a)->text,
		      ((const struct mt_folded_line *)b)->text);
}

/* One site's line text into `line`: the root, then its frames outermost first. */
static int site_text(struct mt_reader *r, const struct mt_alloc_site *s,
		     const struct mt_procs *procs, struct mt_symbolizer *sym, bool with_pid,
		     struct mt_buf *line, struct mt_buf *frames, uint64_t *ips, size_t *starts,
		     struct mt_folded_stats *stats)
{
	int depth = 0, rc = 0;
	size_t nf = 0;
	char root[96];

	if (s->stack)
		depth = mt_reader_stack(r, s->stream, s->stack, ips, MAX_FRAMES);
	/* Frames innermost first into `frames`, each one's start kept, then reversed. */
	mt_buf_reset(frames);
	for (int d = 0; d < depth; d++) {
		const struct mt_frame *fr;
		int n = mt_sym_resolve(sym, s->pid, s->first_ns, ips[d], true, &fr);

		if (n < 0)
			return n;
		for (int q = 0; q < n && nf < MAX_FRAMES * 8; q++) {
			starts[nf++] = frames->len;
			if ((rc = put_frame(frames, &fr[q], stats)) < 0)
				return rc;
		}
	}
	starts[nf] = frames->len;
	mt_buf_reset(line);
	if (with_pid)
		snprintf(root, sizeof(root), "%s %u", mt_procs_comm_at(procs, s->pid, s->first_ns),
			 s->pid);
	else
		snprintf(root, sizeof(root), "%s", mt_procs_comm_at(procs, s->pid, s->first_ns));
	put_name(line, root);
	if (!nf) {
		const char *what = depth < 0 ? ";[stack lost]" : ";[no stack]";

		rc = mt_buf_append(line, what, strlen(what));
	}
	for (size_t q = nf; q-- > 0 && rc >= 0;) {
		rc = mt_buf_putc(line, ';');
		if (rc >= 0)
			rc = mt_buf_append(line, frames->data + starts[q],
					   starts[q + 1] - starts[q]);
	}
	return rc;
}

int mt_folded_lines(struct mt_reader *r, const struct mt_alloc_stats *st,
		    const struct mt_procs *procs, struct mt_symbolizer *sym, bool with_pid,
		    struct mt_folded_lines *out, struct mt_folded_stats *stats)
{
	struct mt_buf line, frames;
	uint64_t *ips = malloc(MAX_FRAMES * sizeof(*ips));
	size_t *starts = malloc((MAX_FRAMES * 8 + 1) * sizeof(*starts)), n = 0;
	int rc = ips && starts ? 0 : -ENOMEM;

	memset(out, 0, sizeof(*out));
	mt_buf_init(&line, 64u << 20);
	mt_buf_init(&frames, 64u << 20);
	for (size_t i = 0; rc == 0 && i < st->nsites; i++) {
		const struct mt_alloc_site *s = &st->sites[i];

		if (!s->calls && !s->bytes)
			continue;
		rc = site_text(r, s, procs, sym, with_pid, &line, &frames, ips, starts, stats);
		if (rc == 0 && mt_grow_array(&out->v, &out->cap, out->n + 1, sizeof(*out->v)) < 0)
			rc = -ENOMEM;
		if (rc < 0)
			break;
		memset(&out->v[out->n], 0, sizeof(*out->v));
		out->v[out->n].text = strndup((const char *)line.data, line.len);
		if (!out->v[out->n].text) {
			rc = -ENOMEM;
			break;
		}
		line_add(&out->v[out->n++], s);
	}
	/* sites whose stacks symbolize alike become one line; the output is stable */
	mt_qsort(out->v, out->n, sizeof(*out->v), cmp_fline);
	for (size_t i = 0; rc == 0 && i < out->n; i++) {
		if (n && !strcmp(out->v[n - 1].text, out->v[i].text)) {
			for (int k = 0; k < MT_FOLD_NWEIGHTS; k++)
				out->v[n - 1].w[k] += out->v[i].w[k];
			free(out->v[i].text);
			continue;
		}
		out->v[n++] = out->v[i];
	}
	if (rc == 0)
		out->n = n;
	else
		mt_folded_lines_release(out);
	mt_buf_release(&line);
	mt_buf_release(&frames);
	free(ips);
	free(starts);
	return rc;
}

void mt_folded_lines_release(struct mt_folded_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int mt_export_folded(struct mt_reader *r, enum mt_folded_weight w, FILE *out,
		     struct mt_folded_stats *stats)
{
	struct mt_alloc_stats st;
	struct mt_procs procs = { 0 };
	struct mt_symbolizer *sym = NULL;
	struct mt_folded_lines lines = { 0 };
	struct mt_passes ps;
	struct mt_pass p;
	bool sites;
	int rc;

	memset(stats, 0, sizeof(*stats));
	sites = mt_reader_event_count(r, MT_EV_HEAP_WINDOW) > 0;
	if (!mt_reader_event_count(r, MT_EV_ALLOC) && !sites)
		return -ENODATA;
	if (sites && (w == MT_FOLD_PEAK || w == MT_FOLD_TEMPORARY))
		return -EOPNOTSUPP; /* --alloc=sites keeps no blocks: unknown, not 0 */
	/* one read: the allocations, the process tree and the symbolizer's index */
	mt_passes_init(&ps);
	mt_passes_add(&ps, mt_alloc_pass(r, &st, &p), &p);
	mt_passes_add(&ps, mt_procs_pass(r, &procs, &p), &p);
	mt_passes_add(&ps, mt_sym_pass(r, &sym, &p), &p);
	rc = mt_passes_run(r, &ps);
	if (rc == 0)
		rc = mt_folded_lines(r, &st, &procs, sym, true, &lines, stats);
	for (size_t i = 0; rc == 0 && i < lines.n; i++) {
		if (!lines.v[i].w[w])
			continue;
		fprintf(out, "%s %" PRIu64 "\n", lines.v[i].text, lines.v[i].w[w]);
		stats->lines++;
		stats->total += lines.v[i].w[w];
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = -EIO;
	mt_folded_lines_release(&lines);
	mt_sym_close(sym);
	mt_procs_release(&procs);
	mt_alloc_release(&st);
	return rc;
}
