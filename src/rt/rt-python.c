/* SPDX-License-Identifier: MIT */
/* Python frames in the stacks: CPython 3.11's frame chain, read by the allocating thread. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>

#include "rt/py311.h"
#include "rt/rt-internal.h"

/*
 * What is read (CPython 3.11's Include/cpython/pystate.h and internal/pycore_frame.h; the
 * offsets are in rt/py311.h, checked against the headers by tests/unit/test-py311.c):
 * a thread's own PyThreadState (PyGILState_GetThisThreadState: this thread's, whether it
 * holds the GIL or not) points to its innermost _PyCFrame. Each C-level call of the eval
 * loop has one, a local variable of _PyEval_EvalFrameDefault, linked outward by ->previous
 * up to the thread state's root; its ->current_frame is the innermost Python frame that
 * call runs, and Python frames chain outward through ->previous, across calls.
 *
 * Where the Python frames go: a _PyCFrame lies in the native stack frame of its eval call,
 * so its address says which captured native frame the Python frames of that call replace.
 * That is exact whatever the compiler did to the eval loop (cold parts, inlining) and needs
 * no symbol: the native frame whose [sp, caller's sp) holds the cframe.
 *
 * Why the reads are safe: the chain is the calling thread's own, read inside one of its
 * calls, so nothing in it changes meanwhile; a linked frame owns a reference to its code
 * object, and since 3.11.1 a frame is unlinked before it is cleared (GH-99729), so no code
 * object read can have been freed. Any other version is refused, and said.
 *
 * A frame is the ip MT_RT_PY_IP(code id, line) in the stack trie. Code ids come from a
 * registry keyed by the code object and the identity of its name, file and line table;
 * each new id is sent to the recorder once (MT_RT_MSG_PYCODE). Lines are the interpreter's
 * own answer (PyCode_Addr2Line), cached per thread by (code object, instruction).
 *
 * Whole stacks are cached too, per thread: an allocation's merged stack is a function of
 * its native stack (the trie id rt_capture returned) and of the Python frames collected,
 * each a code object, an instruction and the native frame its eval call replaces. Those
 * are compared exactly; the identity of each code object (its name, file and line table,
 * as the line cache keys it) through a 64-bit digest, which matters only when a code
 * object was freed and another allocated at its address. CPython allocates from a few
 * sites per line in turn (a str, then a list, then a dict entry), so most allocations
 * find their stack there and skip the line cache and the merge.
 */

#define PY_DEPTH 256 /* Python frames kept per stack */
#define PY_LCACHE 512 /* per-thread line cache, direct-mapped */
#define PY_TOKENS (RT_MAX_DEPTH + PY_DEPTH)

struct py_code_key {
	uint64_t code, qualname, filename, linetable;
	int32_t first_line;
	uint32_t lasti; /* line cache only */
};

struct py_line_ent {
	struct py_code_key k;
	uint64_t ip; /* MT_RT_PY_IP */
};

#define PY_LEAF 256 /* per-thread cache of the native part inside the innermost eval call */

struct py_leaf_ent {
	uint32_t parent, native, id;
};

#define PY_RC_BITS 7 /* per-thread cache of whole merged stacks, direct-mapped */
#define PY_RC_FRAMES 6 /* Python frames of a stack it keeps; deeper ones are merged each time */

/* A collected frame: its key, and its place (the native frame, a memo index, its eval call
 * replaces; whether it is that call's innermost frame). */
struct py_frame {
	struct py_code_key k;
	uint64_t pos;
};

#define PY_POS(k, start) ((uint64_t)(k) | (uint64_t)(start) << 32)

/* A frame in the whole-stack cache: its code object and place exactly, the code object's
 * identity (name, file, line table, first line) as a digest. */
struct py_rc_frame {
	uint64_t code, at, ident;
};

struct py_rc_ent {
	uint32_t native, id; /* id 0: empty */
	uint32_t np;
	struct py_rc_frame f[PY_RC_FRAMES];
};

/* A thread's state, mapped when it first allocates with a Python frame chain. */
struct rt_py {
	struct py_rc_ent rc[1u << PY_RC_BITS];
	struct py_line_ent lc[PY_LCACHE];
	struct py_leaf_ent leaf[PY_LEAF];
	struct py_frame fr[PY_DEPTH]; /* this stack's Python frames, innermost first */
	uint64_t pip[PY_DEPTH]; /* their trie ips */
	uint32_t gstart[PY_DEPTH + 1]; /* group g (one eval call): pip[gstart[g] .. gstart[g+1]) */
	uint32_t gk[PY_DEPTH]; /* the native frame (memo index) group g replaces */
	/* The previous stack built, as tokens outermost first from native frame base_k on: a
	 * native frame (key: its trie id, which names its whole outer stack) or a Python frame
	 * (key: its ip); mid[i] is the merged trie id after token i. */
	unsigned ntok;
	int base_k;
	uint32_t base_id;
	uint64_t key[PY_TOKENS], ip[PY_TOKENS];
	uint32_t mid[PY_TOKENS];
};

/* The interpreter's entry points, found at start-up. */
static void *(*py_tstate)(void);
static int (*py_addr2line)(void *code, int addrq);
static uint64_t py_code_type;
bool rt_py_on;
uint32_t rt_py_state, rt_py_version; /* for the region header (enum mt_rt_py_state) */

/* ---- the code registry: (code object, its identity) -> id; under a lock, rarely used ---- */

struct py_code_ent {
	struct py_code_key k;
	uint64_t id;
};

struct py_reg {
	uint32_t bits, used;
	struct py_code_ent e[];
};

#define REG_BITS_MIN 10
#define REG_BITS_MAX 16
static struct py_reg *reg;
static int reg_lock;
static uint64_t reg_next = 1;

static inline uint64_t load64(uint64_t a)
{
	uint64_t v;

	memcpy(&v, (const void *)a, 8);
	return v;
}

static inline uint32_t load32(uint64_t a)
{
	uint32_t v;

	memcpy(&v, (const void *)a, 4);
	return v;
}

static inline bool key_eq(const struct py_code_key *a, const struct py_code_key *b)
{
	return a->code == b->code && a->qualname == b->qualname && a->filename == b->filename &&
	       a->linetable == b->linetable && a->first_line == b->first_line;
}

static struct py_reg *reg_new(uint32_t bits)
{
	struct py_reg *r = rt_mmap_anon(sizeof(*r) + (sizeof(struct py_code_ent) << bits));

	if (r)
		r->bits = bits;
	return r;
}

/* The slot of k in r, or the empty one where it would go (r is never more than half full). */
static struct py_code_ent *reg_slot(struct py_reg *r, const struct py_code_key *k)
{
	uint32_t mask = (1u << r->bits) - 1, i = (uint32_t)rt_hash64(k->code) & mask;

	for (;; i = (i + 1) & mask)
		if (!r->e[i].id || key_eq(&r->e[i].k, k))
			return &r->e[i];
}

/* Under the lock: a table with room for one more, grown, or emptied at the largest size
 * (ids are never reused, so frames already interned keep their meaning). */
static struct py_reg *reg_room(void)
{
	struct py_reg *r = reg, *n;

	if (r && (r->used + 1) * 2 <= (1u << r->bits))
		return r;
	if (r && r->bits >= REG_BITS_MAX) {
		memset(r->e, 0, sizeof(struct py_code_ent) << r->bits);
		r->used = 0;
		return r;
	}
	n = reg_new(r ? r->bits + 1 : REG_BITS_MIN);
	if (!n)
		return NULL;
	for (uint32_t i = 0; r && i < (1u << r->bits); i++)
		if (r->e[i].id)
			*reg_slot(n, &r->e[i].k) = r->e[i];
	if (r)
		rt_arena_drop(r, sizeof(*r) + (sizeof(struct py_code_ent) << r->bits));
	n->used = r ? r->used : 0;
	reg = n;
	return n;
}

/* UTF-8 of a compact str object (a code object's name or file), at most max bytes. */
static size_t py_str(uint64_t obj, char *out, size_t max)
{
	uint32_t state, kind;
	uint64_t len, data;
	size_t n = 0;

	if (!obj)
		return 0;
	state = load32(obj + PY311_STR_STATE);
	kind = (state >> 2) & 7;
	if (!((state >> 5) & 1) || (kind != 1 && kind != 2 && kind != 4))
		return 0; /* not compact: never a code object's name */
	len = load64(obj + PY311_STR_LENGTH);
	data = obj + (((state >> 6) & 1) ? PY311_STR_ASCII_DATA : PY311_STR_COMPACT_DATA);
	for (uint64_t i = 0; i < len; i++) {
		uint32_t c = kind == 1	 ? *(const uint8_t *)(data + i)
			     : kind == 2 ? *(const uint16_t *)(data + 2 * i)
					 : *(const uint32_t *)(data + 4 * i);
		char b[4];
		size_t k;

		if (c < 0x80) {
			b[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			b[0] = (char)(0xc0 | c >> 6);
			b[1] = (char)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			b[0] = (char)(0xe0 | c >> 12);
			b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			b[2] = (char)(0x80 | (c & 0x3f));
			k = 3;
		} else {
			b[0] = (char)(0xf0 | ((c >> 18) & 7));
			b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			b[3] = (char)(0x80 | (c & 0x3f));
			k = 4;
		}
		if (n + k > max)
			break;
		memcpy(out + n, b, k);
		n += k;
	}
	return n;
}

/* Tells the recorder what code id means; a full socket is retried for up to 10 ms. */
static void py_announce(const struct py_code_key *k, uint64_t id)
{
	struct {
		struct mt_rt_pycode h;
		char s[MT_RT_PY_NAME_MAX + MT_RT_PY_FILE_MAX];
	} m;
	size_t nl, fl;
	long r = -1;

	memset(&m.h, 0, sizeof(m.h));
	nl = py_str(k->qualname, m.s, MT_RT_PY_NAME_MAX);
	fl = py_str(k->filename, m.s + nl, MT_RT_PY_FILE_MAX);
	m.h.type = MT_RT_MSG_PYCODE;
	m.h.tid = rt_self.tid;
	m.h.time_ns = rt_mono_ns();
	m.h.id = id;
	m.h.first_line = (uint32_t)k->first_line;
	m.h.name_len = (uint16_t)nl;
	m.h.file_len = (uint16_t)fl;
	r = rt_send(&m, sizeof(m.h) + nl + fl, 10000);
	__atomic_add_fetch(r < 0 ? &rt_region->py_codes_lost : &rt_region->py_codes, 1,
			   __ATOMIC_RELAXED);
}

/* The id of a code object, registered (and announced) if new; 0 when out of memory. */
static uint64_t py_code_id(const struct py_code_key *k)
{
	struct py_code_ent *e;
	struct py_reg *r;
	uint64_t id;

	rt_lock(&reg_lock);
	r = reg_room();
	if (!r) {
		rt_unlock(&reg_lock);
		return 0;
	}
	e = reg_slot(r, k);
	if (e->id) {
		id = e->id;
		rt_unlock(&reg_lock);
		return id;
	}
	if (reg_next > MT_RT_PY_ID_MAX) {
		rt_unlock(&reg_lock);
		return 0;
	}
	id = reg_next++;
	e->k = *k;
	e->k.lasti = 0;
	e->id = id;
	r->used++;
	rt_unlock(&reg_lock);
	py_announce(k, id);
	return id;
}

/* ---- frames ---- */

/* A Python frame's key: false to leave it out (not yet started, or not a frame). */
static inline bool py_frame_key(uint64_t fr, struct py_code_key *k)
{
	uint64_t code = load64(fr + PY311_FR_CODE), instr = load64(fr + PY311_FR_PREV_INSTR);
	int64_t lasti;

	if (!code || load64(code + PY311_OB_TYPE) != py_code_type)
		return false;
	lasti = ((int64_t)instr - (int64_t)(code + PY311_CO_CODE)) / 2;
	if (lasti >= (int64_t)load64(code + PY311_OB_SIZE))
		return false;
	/* An incomplete frame (its prologue still running) is not shown, as CPython's own
	 * tracebacks do not; a generator's frame always is. */
	if (*(const uint8_t *)(fr + PY311_FR_OWNER) != PY311_OWNED_BY_GENERATOR &&
	    lasti < (int32_t)load32(code + PY311_CO_FIRSTTRACEABLE))
		return false;
	if (lasti < 0)
		lasti = -1;
	k->code = code;
	k->qualname = load64(code + PY311_CO_QUALNAME);
	k->filename = load64(code + PY311_CO_FILENAME);
	k->linetable = load64(code + PY311_CO_LINETABLE);
	k->first_line = (int32_t)load32(code + PY311_CO_FIRSTLINENO);
	k->lasti = (uint32_t)lasti;
	return true;
}

/* The trie ip of a frame by its key: from the line cache, or the interpreter's answer and
 * the code registry's id; 0 when out of memory. */
static inline uint64_t py_key_ip(struct rt_py *p, const struct py_code_key *k)
{
	struct py_line_ent *e =
		&p->lc[rt_hash64(k->code ^ (uint64_t)k->lasti * 0x9e3779b97f4a7c15ull) >> 40 &
		       (PY_LCACHE - 1)];
	int32_t lasti = (int32_t)k->lasti;
	uint64_t id;
	int line;

	if (RT_LIKELY(key_eq(&e->k, k) && e->k.lasti == k->lasti && e->ip))
		return e->ip;
	line = py_addr2line((void *)k->code, lasti < 0 ? -1 : lasti * 2);
	id = py_code_id(k);
	if (!id)
		return 0;
	e->k = *k;
	e->ip = MT_RT_PY_IP(id, line > 0 ? (unsigned)line : 0u);
	return e->ip;
}

/* A frame as the whole-stack cache keeps it. The digest's four products are independent,
 * so that it adds little latency: this is on every allocation's path, and a program waits
 * for what its hook does. */
static inline struct py_rc_frame py_rc_frame(const struct py_frame *f)
{
	const struct py_code_key *k = &f->k;

	return (struct py_rc_frame){
		.code = k->code,
		.at = (uint64_t)k->lasti | f->pos << 32,
		.ident = k->qualname * 0x9e3779b97f4a7c15ull + k->filename * 0xff51afd7ed558ccdull +
			 k->linetable * 0xc4ceb9fe1a85ec53ull +
			 (uint64_t)(uint32_t)k->first_line * 0xd6e8feb86659fd93ull,
	};
}

/* The whole-stack cache's entry for a stack under native whose innermost Python frame is
 * f (one multiply). */
static inline struct py_rc_ent *py_rc_slot(struct rt_py *p, uint32_t native,
					   const struct py_frame *f)
{
	uint64_t x = ((uint64_t)native << 32 ^ f->k.code ^ (uint64_t)f->k.lasti << 20) *
		     0x9e3779b97f4a7c15ull;

	return &p->rc[x >> (64 - PY_RC_BITS)];
}

/* The entry holds this very stack: the same native stack and frames. */
static inline bool py_rc_hit(const struct py_rc_ent *e, const struct rt_py *p, unsigned np,
			     uint32_t native)
{
	if (e->native != native || e->np != np || !e->id)
		return false;
	for (unsigned i = 0; i < np; i++) {
		struct py_rc_frame f = py_rc_frame(&p->fr[i]);

		if (((e->f[i].code ^ f.code) | (e->f[i].at ^ f.at) | (e->f[i].ident ^ f.ident)) !=
		    0)
			return false;
	}
	return true;
}

/*
 * Collects the thread's Python frames by eval call into fr[], each placed at the captured
 * native frame its cframe lies in. Returns the number of groups; *npp the frames; *slot
 * the whole-stack cache's entry for them (when there is a group); *unplaced: outer Python
 * frames were left out (beyond the captured native frames, --stack-depth, or past PY_DEPTH).
 */
static unsigned py_collect(struct rt_thread *t, struct rt_py *p, uint64_t ts, uint32_t native,
			   unsigned *npp, struct py_rc_ent **slot, bool *unplaced)
{
	const struct rt_memo *m = t->memo;
	uint64_t cf = load64(ts + PY311_TS_CFRAME), lo = m->f[m->n - 1].sp;
	bool complete = m->end == RT_END_ZERO || m->end == RT_END_RULE;
	unsigned np = 0, ng = 0, k = m->n - 1;

	while (cf && ng < PY_DEPTH && np < PY_DEPTH) {
		uint64_t prev = load64(cf + PY311_CF_PREVIOUS), stop, fr;
		unsigned start = np;

		if (!prev)
			break; /* the thread state's root cframe: no eval call */
		if (cf < lo || cf >= t->stack_hi) {
			*unplaced = true; /* not on this stack: a chain we cannot place */
			break;
		}
		while (k > 0 && m->f[k - 1].sp <= cf)
			k--;
		if (k == 0 && !complete) {
			*unplaced = true; /* beyond the outermost frame captured */
			break;
		}
		stop = load64(prev + PY311_CF_CURRENT);
		for (fr = load64(cf + PY311_CF_CURRENT); fr && fr != stop && np < PY_DEPTH;
		     fr = load64(fr + PY311_FR_PREVIOUS)) {
			if (py_frame_key(fr, &p->fr[np].k)) {
				p->fr[np].pos = PY_POS(k, np == start);
				/* the whole-stack cache's entry, on its way while the walk goes on */
				if (!np) {
					*slot = py_rc_slot(p, native, &p->fr[0]);
					__builtin_prefetch(*slot);
				}
				np++;
			}
			if (*(const uint8_t *)(fr + PY311_FR_IS_ENTRY))
				break;
		}
		if (np >= PY_DEPTH && fr && fr != stop)
			*unplaced = true; /* past PY_DEPTH Python frames: the outer ones left out */
		if (np > start) {
			p->gstart[ng] = start;
			p->gk[ng++] = k;
		}
		cf = prev;
	}
	p->gstart[ng] = np;
	*npp = np;
	return ng;
}

/* Token i of the new stack: the previous stack's up to the first difference, then interned
 * on from there. False when the trie had no room. */
static inline bool py_token(struct rt_memo *m, struct rt_py *p, unsigned i, uint64_t key,
			    uint64_t ip, bool *same, uint32_t *parent)
{
	if (*same && i < p->ntok && p->key[i] == key) {
		*parent = p->mid[i];
		return true;
	}
	*same = false;
	p->key[i] = key;
	p->ip[i] = ip;
	*parent = rt_intern_cached(m, *parent, ip);
	p->mid[i] = *parent;
	return *parent != 0;
}

/* The merged id of the native frames inside the innermost eval call: the native leaf id
 * names them all (its whole path), so (merged id of the Python part, native leaf id) is
 * the key; interned on a miss as one node that refers to them (MT_STACK_REF). 0 when the
 * trie had no room. */
static uint32_t py_leaf(struct rt_memo *m, struct rt_py *p, unsigned from, uint32_t parent,
			uint32_t native)
{
	struct py_leaf_ent *e =
		&p->leaf[rt_hash64((uint64_t)parent << 32 | native) & (PY_LEAF - 1)];

	uint32_t id;

	if (e->id && e->parent == parent && e->native == native)
		return e->id;
	/* One node for them all: the native stack's innermost frames, by reference (the reader
	 * expands it), not a copy of each under every Python stack that makes them. */
	id = rt_intern_cached(m, parent, MT_STACK_REF(native, m->n - from));
	if (id)
		*e = (struct py_leaf_ent){ .parent = parent, .native = native, .id = id };
	return id;
}

/* The trie ips of the np frames collected, into pip[]; a frame without one (the code
 * registry out of memory) is left out, and a group left empty with it. Returns the
 * number of groups. */
static unsigned py_ips(struct rt_py *p, unsigned ng)
{
	unsigned n = 0, g2 = 0;

	for (unsigned g = 0; g < ng; g++) {
		unsigned start = n;

		for (uint32_t i = p->gstart[g]; i < p->gstart[g + 1]; i++) {
			uint64_t ip = py_key_ip(p, &p->fr[i].k);

			if (RT_LIKELY(ip))
				p->pip[n++] = ip;
		}
		if (n > start) {
			p->gstart[g2] = start;
			p->gk[g2++] = p->gk[g];
		}
	}
	p->gstart[g2] = n;
	return g2;
}

/* Merges the groups' Python frames (pip[], gstart[], gk[]) into the native stack. */
static uint32_t py_merge(struct rt_memo *m, struct rt_py *p, unsigned ng, uint32_t native)
{
	unsigned nt = 0, j;
	int g = (int)ng - 1, kmin = (int)p->gk[g]; /* the outermost group */
	uint32_t base = kmin ? m->f[kmin - 1].id : 0, parent = base;
	bool same = p->ntok && p->base_k == kmin && p->base_id == base;

	/* Outermost first, up to the innermost eval call: against the previous stack's tokens. */
	for (j = (unsigned)kmin; g >= 0; j++) {
		if (p->gk[g] != j) {
			if (!py_token(m, p, nt++, m->f[j].id, m->f[j].ip, &same, &parent))
				goto full;
			continue;
		}
		/* the eval call's Python frames, outermost first, in place of its native frame */
		for (; g >= 0 && p->gk[g] == j; g--)
			for (uint32_t i = p->gstart[g + 1]; i-- > p->gstart[g];)
				if (!py_token(m, p, nt++, p->pip[i], p->pip[i], &same, &parent))
					goto full;
	}
	p->ntok = nt;
	p->base_k = kmin;
	p->base_id = base;
	/* the native frames the innermost eval call made, down to the hook */
	if (j < m->n && !(parent = py_leaf(m, p, j, parent, native)))
		return 0;
	return parent;
full:
	p->ntok = 0;
	return 0;
}

uint32_t rt_py_merge(struct rt_thread *t, uint32_t native)
{
	struct rt_memo *m = t->memo;
	struct rt_py *p = t->py;
	struct py_rc_ent *e = NULL;
	unsigned ng, np;
	bool unplaced = false;
	uint32_t id;
	uint64_t ts;

	if (!native || !m || !m->n || !(ts = (uint64_t)py_tstate()))
		return native;
	if (RT_UNLIKELY(!p)) {
		p = t->py = rt_mmap_anon(sizeof(*p));
		if (!p)
			return native;
	}
	ng = py_collect(t, p, ts, native, &np, &e, &unplaced);
	if (RT_UNLIKELY(unplaced))
		t->c_py_unplaced++;
	if (!ng)
		return native;
	if (py_rc_hit(e, p, np, native)) {
		t->c_py_stacks++;
		return e->id;
	}
	if (!(ng = py_ips(p, ng)) || !(id = py_merge(m, p, ng, native)))
		return native;
	if (np <= PY_RC_FRAMES) {
		e->native = native;
		e->id = id;
		e->np = np;
		for (unsigned i = 0; i < np; i++)
			e->f[i] = py_rc_frame(&p->fr[i]);
	}
	t->c_py_stacks++;
	return id;
}

/* ---- set-up ---- */

void rt_py_init(bool wanted)
{
	const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
	void *runtime = dlsym(RTLD_DEFAULT, "_PyRuntime");

	if (!version && !runtime)
		return; /* no CPython in this process (MT_RT_PY_NONE) */
	rt_py_version = version ? (uint32_t)*version : 0;
	rt_py_state = MT_RT_PY_UNSUPPORTED;
	/* 3.11.1 or a later 3.11: the layout of rt/py311.h, and frames unlinked before they
	 * are cleared (GH-99729) */
	if (!version || (*version >> 16) != 0x030b || ((*version >> 8) & 0xff) < 1)
		return;
	if (!wanted) {
		rt_py_state = MT_RT_PY_OFF;
		return;
	}
	py_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	py_addr2line = (int (*)(void *, int))dlsym(RTLD_DEFAULT, "PyCode_Addr2Line");
	py_code_type = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
	if (!py_tstate || !py_addr2line || !py_code_type)
		return;
	rt_py_state = MT_RT_PY_ON;
	rt_py_on = rt_cfg.depth > 1;
}

void rt_py_fork_child(void)
{
	reg_lock = 0; /* a thread that died in fork may have held it; ids stay the parent's */
	if (rt_self.py) {
		/* the child has a new trie: ids of the parent's mean nothing in it */
		rt_self.py->ntok = 0;
		memset(rt_self.py->leaf, 0, sizeof(rt_self.py->leaf));
		memset(rt_self.py->rc, 0, sizeof(rt_self.py->rc));
	}
}

void rt_py_thread_exit(struct rt_thread *t)
{
	if (t->py) {
		rt_munmap(t->py, sizeof(struct rt_py));
		t->py = NULL;
	}
}
