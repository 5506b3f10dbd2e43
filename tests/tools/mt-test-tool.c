/* SPDX-License-Identifier: MIT */
/* Test helper: writes deterministic fixture traces and damages traces in controlled ways. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/crc32c.h"
#include "common/varint.h"
#include "format/chunk.h"
#include "format/schema.h"
#include "export/parquet.h"
#include "format/writer.h"

static const uint8_t run_id[16] = { 0x6d, 0x65, 0x6d, 0x74, 0x61, 0x70, 0x40, 0x00,
				    0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07 };

#define T0 5000000000ull /* CLOCK_MONOTONIC of the fixture's start: 5 s after boot */

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "mt-test-tool: %s\n", what);
	exit(1);
}

static void ev(struct mt_writer *w, unsigned type, const uint64_t *row)
{
	if (mt_writer_event(w, type, row) < 0)
		die("cannot write event");
}

static void kv_chunk(struct mt_writer *w, unsigned type, const char *const *pairs)
{
	struct mt_kv kv;

	mt_kv_init(&kv);
	for (int i = 0; pairs[i]; i += 2)
		mt_kv_add(&kv, pairs[i], pairs[i + 1]);
	if (mt_writer_kv(w, type, &kv) < 0)
		die("cannot write key/value chunk");
	mt_kv_release(&kv);
}

static void mmap_ev(struct mt_writer *w, uint64_t t, uint32_t pid, uint64_t addr, uint64_t len,
		    uint64_t prot, const char *path, const char *bid, uint64_t origin)
{
	uint64_t row[_MT_F_MMAP_MAX] = { t,
					 pid,
					 pid,
					 addr,
					 len,
					 0,
					 prot,
					 MAP_PRIVATE,
					 8,
					 1,
					 path[0] == '/' ? 1234 : 0,
					 mt_writer_str(w, bid),
					 mt_writer_str(w, path),
					 origin };

	ev(w, MT_EV_MMAP, row);
}

/*
 * The "small" fixture: sh (pid 100) runs `sh -c 'ls / | wc -l; exit 3'`; ls (101) and wc
 * (102) are forked and exec'd; wc has a helper thread; one LOST event; mappings from a
 * /proc snapshot and from perf records. Small blocks give several chunks per type.
 */
static void gen_small(const char *out, bool finish, bool raw)
{
	struct mt_writer_opts o = { .run_id = run_id,
				    .realtime_ns = 1795000000000000000ull,
				    .monotonic_ns = T0,
				    .block_events = 4,
				    .zstd_level = raw ? -1 : 0 };
	static const char argv0[] = "sh\0-c\0ls / | wc -l; exit 3";
	static const char argv1[] = "ls\0/";
	static const char argv2[] = "wc\0-l";
	struct mt_writer *w;
	int rc;

	rc = mt_writer_open(out, true, &o, &w);
	if (rc < 0)
		die(strerror(-rc));
	kv_chunk(w, MT_CHUNK_META,
		 (const char *const[]){ "memtap_version",
					"0.1.0",
					"format_version",
					"1.0",
					"command",
					"sh -c 'ls / | wc -l; exit 3'",
					"argc",
					"3",
					"argv.0",
					"sh",
					"argv.1",
					"-c",
					"argv.2",
					"ls / | wc -l; exit 3",
					"cwd",
					"/home/user",
					"recorder_pid",
					"99",
					"start_monotonic_ns",
					"5000000000",
					"clock",
					"CLOCK_MONOTONIC",
					"follow",
					"auto",
					"kernel",
					"6.1.0-test",
					"arch",
					"x86_64",
					"hostname",
					"fixture",
					"cpu_model",
					"Test CPU",
					"cpus_online",
					"2",
					"page_size",
					"4096",
					NULL });
	kv_chunk(w, MT_CHUNK_COLLECTOR,
		 (const char *const[]){ "name", "process", "mechanism", "ptrace", "status",
					"active", "final", "0", "events", "0", "lost", "0", NULL });
	kv_chunk(w, MT_CHUNK_COLLECTOR,
		 (const char *const[]){ "name", "mappings", "mechanism", "perf-mmap2+procfs",
					"status", "active", "final", "0", "events", "0", "lost",
					"0", NULL });
	{
		uint64_t r0[] = { T0 + 10000, 100, 100, 99, 99, MT_TASK_PROCESS };
		uint64_t x0[] = { T0 + 1000000,
				  100,
				  100,
				  mt_writer_str(w, "/usr/bin/dash"),
				  mt_writer_strn(w, argv0, sizeof(argv0)),
				  mt_writer_str(w, "sh"),
				  100 };
		uint64_t r1[] = { T0 + 2000000, 101, 101, 100, 100, MT_TASK_PROCESS };
		uint64_t r2[] = { T0 + 2100000, 102, 102, 100, 100, MT_TASK_PROCESS };
		uint64_t x1[] = { T0 + 2500000,
				  101,
				  101,
				  mt_writer_str(w, "/usr/bin/ls"),
				  mt_writer_strn(w, argv1, sizeof(argv1)),
				  mt_writer_str(w, "ls"),
				  101 };
		uint64_t x2[] = { T0 + 2600000,
				  102,
				  102,
				  mt_writer_str(w, "/usr/bin/wc"),
				  mt_writer_strn(w, argv2, sizeof(argv2)),
				  mt_writer_str(w, "wc"),
				  102 };
		uint64_t t2[] = { T0 + 2700000, 102, 103, 102, 102, MT_TASK_THREAD };
		uint64_t c2[] = { T0 + 2710000, 102, 103, mt_writer_str(w, "wc-helper") };
		uint64_t e3[] = { T0 + 3000000, 102, 103, MT_TASK_THREAD, 0, 0, 0, 1 };
		uint64_t e1[] = { T0 + 3500000, 101, 101, MT_TASK_PROCESS, 0, 0, 0, 1 };
		uint64_t e2[] = { T0 + 3600000, 102, 102, MT_TASK_PROCESS, (uint64_t)-1, 13, 0, 1 };
		uint64_t e0[] = { T0 + 4000000, 100, 100, MT_TASK_PROCESS, 3, 0, 0, 1 };
		uint64_t lost[] = { T0 + 2800000,
				    0,
				    0,
				    mt_writer_str(w, "mappings"),
				    2,
				    mt_writer_str(w,
						  "perf ring buffer full (raise --ring-pages)") };

		ev(w, MT_EV_TASK_NEW, r0);
		ev(w, MT_EV_TASK_EXEC, x0);
		mmap_ev(w, T0 + 1000000, 100, 0x555555554000, 0x21000, PROT_READ | PROT_EXEC,
			"/usr/bin/dash", "be6397ddffc3e384c505d7deab3bed190c884df9",
			MT_MMAP_PROCFS);
		mmap_ev(w, T0 + 1000000, 100, 0x7ffffffde000, 0x21000, PROT_READ | PROT_WRITE,
			"[stack]", "", MT_MMAP_PROCFS);
		mmap_ev(w, T0 + 1200000, 100, 0x7ffff7dc3000, 0x28000, PROT_READ,
			"/usr/lib/x86_64-linux-gnu/libc.so.6", "8f3b1c5e", MT_MMAP_PERF);
		mmap_ev(w, T0 + 1300000, 100, 0x7ffff7fb0000, 0x3000, PROT_READ | PROT_WRITE, "",
			"", MT_MMAP_PERF);
		ev(w, MT_EV_TASK_NEW, r1);
		ev(w, MT_EV_TASK_NEW, r2);
		ev(w, MT_EV_TASK_EXEC, x1);
		ev(w, MT_EV_TASK_EXEC, x2);
		mmap_ev(w, T0 + 2500000, 101, 0x555555560000, 0x5000, PROT_READ | PROT_EXEC,
			"/usr/bin/ls", "", MT_MMAP_PROCFS);
		ev(w, MT_EV_TASK_NEW, t2);
		ev(w, MT_EV_TASK_COMM, c2);
		ev(w, MT_EV_LOST, lost);
		ev(w, MT_EV_TASK_EXIT, e3);
		ev(w, MT_EV_TASK_EXIT, e1);
		ev(w, MT_EV_TASK_EXIT, e2);
		ev(w, MT_EV_TASK_EXIT, e0);
	}
	if (mt_writer_flush(w) < 0)
		die("flush");
	kv_chunk(w, MT_CHUNK_COLLECTOR,
		 (const char *const[]){ "name", "process", "mechanism", "ptrace", "status",
					"active", "final", "1", "events", "12", "lost", "0",
					"processes", "3", "threads", "1", NULL });
	kv_chunk(w, MT_CHUNK_COLLECTOR,
		 (const char *const[]){ "name", "mappings", "mechanism", "perf-mmap2+procfs",
					"status", "active", "final", "1", "events", "5", "lost",
					"2", NULL });
	if (finish) {
		struct mt_kv end;

		mt_kv_init(&end);
		mt_kv_add_u64(&end, "end_monotonic_ns", T0 + 4100000);
		mt_kv_add_u64(&end, "duration_ns", 4100000);
		mt_kv_add(&end, "exit_status", "3");
		mt_kv_add(&end, "root_pid", "100");
		if (mt_writer_finish(w, &end) < 0)
			die("finish");
		mt_kv_release(&end);
	}
	mt_writer_free(w);
}

/* A trace of n mmap events from one process, for benchmarks and corpus seeds. */
static void gen_big(const char *out, long n)
{
	struct mt_writer_opts o = { .run_id = run_id,
				    .realtime_ns = 1795000000000000000ull,
				    .monotonic_ns = T0 };
	struct mt_writer *w;
	int rc = mt_writer_open(out, true, &o, &w);

	if (rc < 0)
		die(strerror(-rc));
	for (long i = 0; i < n; i++)
		mmap_ev(w, T0 + (uint64_t)i * 1000, 100, 0x10000000 + (uint64_t)i * 4096, 4096,
			PROT_READ | PROT_WRITE, i % 2 ? "/tmp/data.bin" : "", "", MT_MMAP_PERF);
	if (mt_writer_finish(w, NULL) < 0)
		die("finish");
	mt_writer_free(w);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long size;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0)
		die("cannot read input");
	rewind(f);
	p = malloc((size_t)size + 1);
	if (!p || fread(p, 1, (size_t)size, f) != (size_t)size)
		die("cannot read input");
	fclose(f);
	*n = (size_t)size;
	return p;
}

static void spit(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		die("cannot write output");
}

/* Offset of the k-th (1-based) chunk of the given type, or 0. */
static size_t find_chunk(const uint8_t *p, size_t n, unsigned type, int k, struct mt_chunk_hdr *h)
{
	size_t off = MT_FILE_HEADER_SIZE;

	while (off + MT_CHUNK_HEADER_SIZE <= n) {
		if (mt_chunk_hdr_unpack(p + off, h) < 0)
			return 0;
		if (h->type == type && --k == 0)
			return off;
		off += MT_CHUNK_HEADER_SIZE + h->payload_size;
	}
	return 0;
}

/*
 * gen-text: a trace from a hand-written description, for tests with hand-computed answers.
 * One event per line, "TYPE field=value ...", fields by their schema names (memtap dump's);
 * t= is the time: nanoseconds, or with a unit (30s, 1.5s, 250ms, 10us). Strings are given
 * as they are (no spaces), enums by name. "meta key=value ..." adds META keys. "#" starts a
 * comment. Events are sorted by time before they are written.
 */
struct text_row {
	unsigned type;
	uint64_t v[MT_MAX_FIELDS];
	size_t line;
};

static int cmp_row(const void *a, const void *b)
{
	const struct text_row *x = a, *y = b;

	if (x->v[0] != y->v[0])
		return x->v[0] < y->v[0] ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint64_t parse_time(const char *s)
{
	char *end;
	double d = strtod(s, &end);

	if (!strcmp(end, "s"))
		return (uint64_t)(d * 1e9 + 0.5);
	if (!strcmp(end, "ms"))
		return (uint64_t)(d * 1e6 + 0.5);
	if (!strcmp(end, "us"))
		return (uint64_t)(d * 1e3 + 0.5);
	return strtoull(s, NULL, 0);
}

/* seed: the run id's last byte (tests that need several distinct runs of one description) */
static void gen_text(const char *in, const char *out, unsigned seed)
{
	uint8_t id[16];
	struct mt_writer_opts o = { .run_id = id,
				    .realtime_ns = 1795000000000000000ull,
				    .monotonic_ns = T0 };
	FILE *f = (memcpy(id, run_id, 16), id[15] = (uint8_t)(id[15] + seed), fopen(in, "r"));
	struct text_row *rows = NULL;
	size_t nrows = 0, cap = 0, line = 0;
	struct mt_writer *w;
	struct mt_kv meta;
	char buf[4096];
	int rc;

	if (!f)
		die("cannot open the description");
	rc = mt_writer_open(out, true, &o, &w);
	if (rc < 0)
		die(strerror(-rc));
	mt_kv_init(&meta);
	mt_kv_add(&meta, "memtap_version", "0.1.0");
	mt_kv_add(&meta, "format_version", "1.0");
	mt_kv_add(&meta, "start_monotonic_ns", "5000000000");
	mt_kv_add(&meta, "clock", "CLOCK_MONOTONIC");
	while (fgets(buf, sizeof(buf), f)) {
		char *save = NULL, *tok = strtok_r(buf, " \t\n", &save);
		const struct mt_type_desc *d;
		struct text_row *r;
		int type;

		line++;
		if (!tok || tok[0] == '#')
			continue;
		if (!strcmp(tok, "meta")) {
			while ((tok = strtok_r(NULL, " \t\n", &save))) {
				char *eq = strchr(tok, '=');

				if (!eq)
					die("meta wants key=value");
				*eq = 0;
				mt_kv_add(&meta, tok, eq + 1);
			}
			continue;
		}
		type = mt_type_by_name(tok);
		if (type < 0 || !(d = mt_type_desc((unsigned)type))) {
			fprintf(stderr, "mt-test-tool: %s:%zu: unknown event type '%s'\n", in, line,
				tok);
			exit(1);
		}
		if (nrows == cap) {
			cap = cap ? cap * 2 : 256;
			rows = realloc(rows, cap * sizeof(*rows));
			if (!rows)
				die("out of memory");
		}
		r = &rows[nrows++];
		memset(r, 0, sizeof(*r));
		r->type = (unsigned)type;
		r->line = line;
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			char *eq = strchr(tok, '=');
			unsigned k;

			if (tok[0] == '#')
				break;
			if (!eq)
				die("fields are key=value");
			*eq++ = 0;
			for (k = 0; k < d->nfields; k++)
				if (!strcmp(d->fields[k].name, tok) ||
				    (k == MT_F_TIME && !strcmp(tok, "t")))
					break;
			if (k == d->nfields) {
				fprintf(stderr, "mt-test-tool: %s:%zu: %s has no field '%s'\n", in,
					line, d->name, tok);
				exit(1);
			}
			if (k == MT_F_TIME) {
				r->v[k] = T0 + parse_time(eq);
			} else if (d->fields[k].kind == MT_FK_STR) {
				r->v[k] = mt_writer_str(w, eq);
			} else if (d->fields[k].kind == MT_FK_ENUM) {
				unsigned e;

				for (e = 0; e < d->fields[k].n_enum; e++)
					if (!strcmp(d->fields[k].enum_names[e], eq))
						break;
				r->v[k] = e < d->fields[k].n_enum ? e : strtoull(eq, NULL, 0);
			} else {
				r->v[k] = strtoull(eq, NULL, 0);
			}
		}
		if (!r->v[MT_F_TID])
			r->v[MT_F_TID] = r->v[MT_F_PID];
	}
	fclose(f);
	if (mt_writer_kv(w, MT_CHUNK_META, &meta) < 0)
		die("cannot write META");
	mt_kv_release(&meta);
	qsort(rows, nrows, sizeof(*rows), cmp_row);
	for (size_t i = 0; i < nrows; i++)
		ev(w, rows[i].type, rows[i].v);
	free(rows);
	rc = mt_writer_finish(w, NULL);
	if (rc < 0)
		die(strerror(-rc));
	mt_writer_free(w);
}

/*
 * gen-synth N OUT: an LLM-like trace of N events for the analysis benchmark (bench/): one
 * process with a read-only weights mapping (64 MiB, labelled), a KV pool (16 MiB) whose
 * 16 KiB blocks are labelled and unlabelled in turn, 4 activation buffers; sampled accesses
 * every 1 us (70% weight loads, 15% KV, 15% activation loads and stores), page-write epochs
 * every 100 ms. Deterministic (a fixed xorshift seed).
 */
static void gen_synth(uint64_t n, const char *out)
{
	struct mt_writer_opts o = { .run_id = run_id,
				    .realtime_ns = 1795000000000000000ull,
				    .monotonic_ns = T0 };
	const uint64_t W = 0x100000000ull, KV = 0x200000000ull, ACT = 0x300000000ull;
	uint64_t row[MT_MAX_FIELDS] = { 0 }, x = 88172645463325252ull, t = T0, written = 0;
	uint64_t last_epoch = T0, block = 0;
	uint32_t s_weight, s_kv, s_act, s_timer = 0, s_name;
	struct mt_writer *w;
	char name[32];
	int rc;

	rc = mt_writer_open(out, true, &o, &w);
	if (rc < 0)
		die(strerror(-rc));
	kv_chunk(w, MT_CHUNK_META,
		 (const char *const[]){ "memtap_version", "0.1.0", "format_version", "1.0",
					"command", "synthetic", "start_monotonic_ns", "5000000000",
					NULL });
	s_weight = mt_writer_str(w, "weight");
	s_kv = mt_writer_str(w, "kv_cache");
	s_act = mt_writer_str(w, "activation");
	(void)s_timer;
#define EMIT(type)                                   \
	do {                                         \
		row[MT_F_TIME] = t;                  \
		row[MT_F_PID] = row[MT_F_TID] = 100; \
		ev(w, (type), row);                  \
		written++;                           \
		memset(row, 0, sizeof(row));         \
	} while (0)
	row[MT_F_MMAP_ADDR] = W;
	row[MT_F_MMAP_LEN] = 64 << 20;
	row[MT_F_MMAP_PROT] = 1;
	row[MT_F_MMAP_PATH] = mt_writer_str(w, "/models/synthetic.gguf");
	EMIT(MT_EV_MMAP);
	row[MT_F_MMAP_ADDR] = KV;
	row[MT_F_MMAP_LEN] = 16 << 20;
	row[MT_F_MMAP_PROT] = 3;
	EMIT(MT_EV_MMAP);
	row[MT_F_MMAP_ADDR] = ACT;
	row[MT_F_MMAP_LEN] = 4 * 65536;
	row[MT_F_MMAP_PROT] = 3;
	EMIT(MT_EV_MMAP);
	row[MT_F_LABEL_ADDR] = W;
	row[MT_F_LABEL_LEN] = 64 << 20;
	row[MT_F_LABEL_TYPE] = s_weight;
	row[MT_F_LABEL_NAME] = mt_writer_str(w, "synthetic.gguf");
	EMIT(MT_EV_LABEL);
	for (int a = 0; a < 4; a++) {
		snprintf(name, sizeof(name), "layer%d.act", a);
		row[MT_F_LABEL_ADDR] = ACT + (uint64_t)a * 65536;
		row[MT_F_LABEL_LEN] = 65536;
		row[MT_F_LABEL_TYPE] = s_act;
		row[MT_F_LABEL_NAME] = mt_writer_str(w, name);
		row[MT_F_LABEL_WP] = MT_LABEL_WP_TRACKED;
		EMIT(MT_EV_LABEL);
	}
	while (written < n) {
		uint64_t r, kind, addr;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x % 100;
		t += 1000;
		if (t - last_epoch >= 100000000ull) { /* an epoch: a new KV block, pages written */
			uint64_t b = KV + (block % 1024) * 16384;

			if (block >= 8) { /* the oldest of 8 live blocks goes */
				row[MT_F_LABEL_OP] = MT_LABEL_UNSET;
				row[MT_F_LABEL_ADDR] = KV + ((block - 8) % 1024) * 16384;
				EMIT(MT_EV_LABEL);
			}
			snprintf(name, sizeof(name), "kv.block%" PRIu64, block);
			s_name = mt_writer_str(w, name);
			row[MT_F_LABEL_ADDR] = b;
			row[MT_F_LABEL_LEN] = 16384;
			row[MT_F_LABEL_TYPE] = s_kv;
			row[MT_F_LABEL_NAME] = s_name;
			row[MT_F_LABEL_WP] = MT_LABEL_WP_TRACKED;
			EMIT(MT_EV_LABEL);
			row[MT_F_PW_ADDR] = b;
			row[MT_F_PW_LEN] = 16384;
			row[MT_F_PW_SINCE] = last_epoch;
			EMIT(MT_EV_PAGE_WRITE);
			row[MT_F_PW_ADDR] = ACT;
			row[MT_F_PW_LEN] = 4 * 65536;
			row[MT_F_PW_SINCE] = last_epoch;
			EMIT(MT_EV_PAGE_WRITE);
			last_epoch = t;
			block++;
			continue;
		}
		if (r < 70) {
			addr = W + (x >> 20) % (64 << 20);
			kind = MT_ACCESS_LOAD;
		} else if (r < 85) {
			addr = KV + ((block ? block - 1 : 0) % 1024) * 16384 + (x >> 24) % 16384;
			kind = MT_ACCESS_LOAD;
		} else {
			addr = ACT + (x >> 24) % (4 * 65536);
			kind = r < 92 ? MT_ACCESS_LOAD : MT_ACCESS_STORE;
		}
		row[MT_F_ACCESS_KIND] = kind;
		row[MT_F_ACCESS_IP] = 0x401000 + (x & 0xff0);
		row[MT_F_ACCESS_ADDR] = addr & ~7ull;
		row[MT_F_ACCESS_SIZE] = 8;
		row[MT_F_ACCESS_MECH] = MT_MECH_TIMER;
		row[MT_F_ACCESS_WEIGHT] = 1000;
		EMIT(MT_EV_ACCESS);
	}
#undef EMIT
	rc = mt_writer_finish(w, NULL);
	if (rc < 0)
		die(strerror(-rc));
	mt_writer_free(w);
}

/*
 * pq-write N OUT: N rows of the trace table's schema straight into memtap's Parquet writer,
 * values made as gen-synth's (LLM-like addresses, ns times): the writer's own throughput,
 * apart from the analysis, for bench/export.sh.
 */
static void pq_write(uint64_t n, const char *out)
{
	static const struct mt_col cols[] = {
		{ "timestamp_ns", MT_COL_I64, false },
		{ "pid", MT_COL_I64, false },
		{ "tid", MT_COL_I64, false },
		{ "op_type", MT_COL_STRING, false },
		{ "address", MT_COL_U64, false },
		{ "address_page", MT_COL_U64, false },
		{ "ip", MT_COL_U64, true },
		{ "weight", MT_COL_I64, false },
		{ "size", MT_COL_I64, true },
		{ "region_id", MT_COL_I64, true },
		{ "region_type", MT_COL_STRING, true },
		{ "site_id", MT_COL_I64, true },
		{ "phase", MT_COL_STRING, true },
	};
	static const char *const types[] = { "weight", "kv_cache", "activation" };
	struct mt_sink *s;
	uint64_t x = 88172645463325252ull, t = T0;
	int rc = mt_pq_open(out, true, cols, 13, NULL, NULL, 0, &s);

	if (rc < 0)
		die(strerror(-rc));
	for (uint64_t i = 0; i < n && rc == 0; i++) {
		uint64_t r, addr;
		unsigned k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x % 100;
		k = r < 70 ? 0 : r < 85 ? 1 : 2;
		addr = (0x100000000ull << k) + (x >> 20) % (64 << 20);
		t += 1000;
		mt_sink_i64(s, 0, (int64_t)t);
		mt_sink_i64(s, 1, 100);
		mt_sink_i64(s, 2, 100);
		mt_sink_str(s, 3, r < 92 ? "load" : "store");
		mt_sink_u64(s, 4, addr);
		mt_sink_u64(s, 5, addr >> 12);
		mt_sink_u64(s, 6, 0x401000 + (x & 0xff0));
		mt_sink_i64(s, 7, 1000);
		mt_sink_i64(s, 9, k);
		mt_sink_str(s, 10, types[k]);
		rc = mt_sink_end_row(s);
	}
	rc = mt_sink_close(s, rc == 0) ? -EIO : rc;
	if (rc < 0)
		die(strerror(-rc));
}

static int usage(void)
{
	fprintf(stderr,
		"usage: mt-test-tool gen-small OUT | gen-small-raw OUT | gen-noend OUT | gen-big N OUT\n"
		"       mt-test-tool flip-payload IN K OUT   (flip a byte in the K-th event chunk)\n"
		"       mt-test-tool cut-events IN K OUT     (cut inside the K-th event chunk)\n"
		"       mt-test-tool set-major IN MAJOR OUT\n"
		"       mt-test-tool gen-text DESCRIPTION OUT [SEED] (events written by hand; SEED "
		"varies the run id)\n"
		"       mt-test-tool gen-synth N OUT          (an LLM-like trace of N events)\n"
		"       mt-test-tool pq-write N OUT           (N trace-table rows into the Parquet writer)\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct mt_chunk_hdr h;
	uint8_t *p;
	size_t n, off;

	if (argc == 4 && !strcmp(argv[1], "pq-write"))
		pq_write(strtoull(argv[2], NULL, 10), argv[3]);
	else if (argc == 4 && !strcmp(argv[1], "gen-synth"))
		gen_synth(strtoull(argv[2], NULL, 10), argv[3]);
	else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "gen-text"))
		gen_text(argv[2], argv[3], argc == 5 ? (unsigned)atoi(argv[4]) : 0);
	else if (argc == 3 && !strcmp(argv[1], "gen-small"))
		gen_small(argv[2], true, false);
	else if (argc == 3 && !strcmp(argv[1], "gen-small-raw"))
		gen_small(argv[2], true, true);
	else if (argc == 3 && !strcmp(argv[1], "gen-noend"))
		gen_small(argv[2], false, false);
	else if (argc == 4 && !strcmp(argv[1], "gen-big"))
		gen_big(argv[3], atol(argv[2]));
	else if (argc == 5 &&
		 (!strcmp(argv[1], "flip-payload") || !strcmp(argv[1], "cut-events"))) {
		p = slurp(argv[2], &n);
		off = find_chunk(p, n, MT_CHUNK_EVENTS, atoi(argv[3]), &h);
		if (!off)
			die("no such chunk");
		if (argv[1][0] == 'f') {
			p[off + MT_CHUNK_HEADER_SIZE + h.payload_size / 2] ^= 0x40;
			spit(argv[4], p, n);
		} else {
			spit(argv[4], p, off + MT_CHUNK_HEADER_SIZE + h.payload_size / 2);
		}
		free(p);
	} else if (argc == 5 && !strcmp(argv[1], "set-major")) {
		p = slurp(argv[2], &n);
		if (n < MT_FILE_HEADER_SIZE)
			die("too short");
		mt_put_le16(p + MT_FILE_HDR_OFF_MAJOR, (uint16_t)atoi(argv[3]));
		mt_put_le32(p + MT_FILE_HEADER_SIZE - 4, mt_crc32c(0, p, MT_FILE_HEADER_SIZE - 4));
		spit(argv[4], p, n);
		free(p);
	} else {
		return usage();
	}
	return 0;
}
