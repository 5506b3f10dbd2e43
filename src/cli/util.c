/* SPDX-License-Identifier: MIT */
/* Opening traces, damage warnings, progress, formatting. */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "analysis/access.h"
#include "analysis/procs.h"
#include "analysis/profiles.h"
#include "analysis/rules.h"
#include "cli/options.h"
#include "common/termsafe.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/log.h"
#include "common/strutil.h"
#include "common/varint.h"
#include "format/reader.h"
#include "format/schema.h"

static const char *progress_what;
static uint64_t progress_last, progress_start, progress_prev;
static unsigned progress_pass;
static bool progress_shown;

/*
 * On a terminal, every 200 ms: the pass over the trace (an analysis may read it more than
 * once), how much of it is read, the rate and the time left for this pass.
 */
static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	uint64_t now = mt_now_ns();
	char b1[32], b2[32], b3[32], eta[48] = "";
	double rate;

	(void)ctx;
	if (done < progress_prev) { /* a new pass began */
		progress_pass++;
		progress_start = now;
	}
	progress_prev = done;
	if (now - progress_last < 200000000ull || !total || now <= progress_start)
		return;
	progress_last = now;
	progress_shown = true;
	rate = (double)done / ((double)(now - progress_start) / 1e9);
	if (rate > 0 && done < total)
		snprintf(eta, sizeof(eta), ", %s left",
			 mt_fmt_duration((uint64_t)((double)(total - done) / rate * 1e9), b3,
					 sizeof(b3)));
	/* the raw stream: the line moves the cursor on purpose (its text is memtap's own) */
	fprintf(mt_stderr_raw(), "\rmemtap: %s, pass %u: %3d%% (%s of %s, %s/s%s)\033[K",
		progress_what, progress_pass, (int)(done * 100 / total),
		mt_fmt_bytes(done, b1, sizeof(b1)), mt_fmt_bytes(total, b2, sizeof(b2)),
		mt_fmt_bytes((uint64_t)rate, b3, sizeof(b3)), eta);
}

void mt_cli_progress(struct mt_reader *r, const char *what)
{
	if (!isatty(STDERR_FILENO))
		return; /* silent when not a terminal */
	progress_what = what;
	progress_last = progress_start = mt_now_ns();
	progress_prev = 0;
	progress_pass = 1;
	mt_reader_set_progress(r, progress_cb, NULL);
}

void mt_cli_progress_done(void)
{
	if (progress_shown)
		fputs("\r\033[K", mt_stderr_raw());
	progress_shown = false;
}

FILE *mt_cli_out(bool human)
{
	FILE *f = human ? mt_ctl_stream(stdout) : NULL;

	return f ? f : stdout;
}

void mt_cli_out_done(FILE *f)
{
	if (f != stdout)
		fclose(f);
	fflush(stdout);
}

struct mt_reader *mt_cli_open_trace(const char *path)
{
	struct mt_reader *r = NULL;
	struct stat st;
	int rc;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
		mt_err("'%s': empty file, not a memtap trace", path);
		return NULL;
	}
	rc = mt_reader_open(path, &r);
	if (rc == -MT_ERR_VERSION) {
		uint8_t h[16] = { 0 };
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			(void)!read(fd, h, sizeof(h));
			close(fd);
		}
		mt_err("'%s': trace format version %u.%u is not supported (this memtap reads %d.x; "
		       "use a matching memtap)",
		       path, mt_get_le16(h + MT_FILE_HDR_OFF_MAJOR),
		       mt_get_le16(h + MT_FILE_HDR_OFF_MINOR), MT_FORMAT_MAJOR);
		return NULL;
	}
	if (rc < 0) {
		mt_err("'%s': %s", path, mt_reader_errmsg(rc));
		return NULL;
	}
	return r;
}

bool mt_cli_warn_damage(const char *path, struct mt_reader *r, const char *extra)
{
	const struct mt_integrity *in = mt_reader_integrity(r);
	char line[1024], a[32], b[32], c[32];
	size_t n = 0;
	uint64_t events = 0;

	if (in->complete && !in->truncated && !in->corrupt_chunks && !in->damaged_regions) {
		if (!extra)
			return false;
		mt_warn("'%s': %s", path, extra);
		return true;
	}
	for (unsigned t = 0; t < _MT_EV_MAX; t++)
		events += mt_reader_event_count(r, t);
	events += mt_reader_unknown_events(r);
#define ADD(...) \
	n += (size_t)snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0, __VA_ARGS__)
	if (in->truncated) {
		ADD("'%s' is truncated at byte %s: recovered %s complete chunks (%s events)", path,
		    mt_fmt_count(in->truncated_offset + in->truncated_bytes, a, sizeof(a)),
		    mt_fmt_count(in->chunks, b, sizeof(b)), mt_fmt_count(events, c, sizeof(c)));
		if (in->truncated_hdr_known) {
			const struct mt_chunk_hdr *h = &in->truncated_hdr;
			const struct mt_type_desc *d = mt_type_desc(h->subtype);

			if (h->type == MT_CHUNK_EVENTS)
				ADD("; lost a partial chunk of %s events (%s)",
				    mt_fmt_count(h->count, a, sizeof(a)),
				    d ? d->name : "unknown type");
			else
				ADD("; lost a partial %s chunk", h->type == MT_CHUNK_END ? "end"
								 : h->type == MT_CHUNK_STRINGS
									 ? "string"
									 : "metadata");
			ADD(" (%s of %s bytes)", mt_fmt_count(in->truncated_bytes, a, sizeof(a)),
			    mt_fmt_count(MT_CHUNK_HEADER_SIZE + (uint64_t)h->payload_size, b,
					 sizeof(b)));
		} else {
			ADD("; lost %s bytes of a chunk header",
			    mt_fmt_count(in->truncated_bytes, a, sizeof(a)));
		}
		if (!in->complete)
			ADD(" and the end record");
	} else if (!in->complete) {
		ADD("'%s' has no end record: the recording was cut short after %s complete chunks (%s "
		    "events)",
		    path, mt_fmt_count(in->chunks, a, sizeof(a)),
		    mt_fmt_count(events, b, sizeof(b)));
	} else {
		ADD("'%s' is damaged", path);
	}
	if (in->corrupt_chunks)
		ADD("; skipped %s corrupted chunk%s (%s events)",
		    mt_fmt_count(in->corrupt_chunks, a, sizeof(a)),
		    in->corrupt_chunks == 1 ? "" : "s",
		    mt_fmt_count(in->corrupt_events, b, sizeof(b)));
	if (in->damaged_regions)
		ADD("; skipped %s unreadable byte%s in %s place%s",
		    mt_fmt_count(in->skipped_bytes, a, sizeof(a)),
		    in->skipped_bytes == 1 ? "" : "s",
		    mt_fmt_count(in->damaged_regions, b, sizeof(b)),
		    in->damaged_regions == 1 ? "" : "s");
	if (in->corrupt_chunks || in->damaged_regions)
		ADD(", the first at byte %s", mt_fmt_count(in->first_damage_offset, a, sizeof(a)));
	if (extra)
		ADD("; %s", extra);
#undef ADD
	mt_warn("%s", line);
	return true;
}

int mt_cli_load_rules(const char *path, struct mt_rules *rules)
{
	char err[512];
	int rc = mt_rules_load(path, rules, err, sizeof(err));

	if (rc == -1)
		mt_err("%s", err);
	else if (rc < 0)
		mt_err_code(rc, "cannot read the rules file '%s'", path);
	return rc < 0 ? 2 : 0;
}

int mt_cli_load_tiers(const char *path, struct mt_tiers *t, struct mt_access_opts *ao)
{
	char err[512];
	int rc;

	if (!path)
		return 0;
	rc = mt_tiers_load(path, t, err, sizeof(err));
	if (rc == -1)
		mt_err("%s", err);
	else if (rc < 0)
		mt_err_code(rc, "cannot read the tier model '%s'", path);
	if (rc < 0)
		return 2;
	ao->tiers = t;
	return 0;
}

int mt_cli_analysis_opts(const struct mt_command_spec *spec, uint64_t window_ms, const char *mrm,
			 const char *rules_path, const char *profiles, struct mt_access_opts *ao,
			 struct mt_rules *rules)
{
	if (!window_ms || window_ms > 3600000)
		return mt_usage_error(spec, "--window-ms must be between 1 and 3600000");
	ao->window_ns = window_ms * 1000000ull;
	if (mrm) {
		struct mt_mrm_rule *m = &ao->mrm;
		char end;

		if (sscanf(mrm, "%lf,%lf,%lf,%lf%c", &m->high_write_once, &m->high_retention_p99_s,
			   &m->medium_write_once, &m->medium_retention_p50_s, &end) != 4 ||
		    !isfinite(m->high_retention_p99_s) || !isfinite(m->medium_retention_p50_s) ||
		    isnan(m->high_write_once) || isnan(m->medium_write_once) ||
		    m->high_write_once < 0 || m->high_write_once > 1 || m->medium_write_once < 0 ||
		    m->medium_write_once > 1 || m->high_retention_p99_s < 0 ||
		    m->medium_retention_p50_s < 0)
			return mt_usage_error(spec,
					      "--mrm wants four numbers W1,R99,W2,R50 "
					      "(write-once ratios 0..1, retentions in seconds "
					      ">= 0)");
		ao->mrm_set = true;
	}
	if (rules_path && mt_cli_load_rules(rules_path, rules) != 0)
		return 2;
	{
		char err[512];

		if (mt_profiles_add(rules, profiles ? profiles : "all", err, sizeof(err)) < 0) {
			mt_rules_release(rules);
			return mt_usage_error(spec, "%s", err);
		}
	}
	if (rules->n || rules->nph)
		ao->rules = rules;
	return 0;
}
