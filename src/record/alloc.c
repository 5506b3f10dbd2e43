/* SPDX-License-Identifier: MIT */
/* The allocation collector: finds and loads the runtime, accepts its connections, drains them. */
#include "record/alloc-internal.h"
#include "record/budget.h"

#include "common/array.h"
#include "alloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/strutil.h"
#include "format/block.h"
#include "format/chunk.h"
#include "format/rt-proto.h"
#include "format/writer.h"
#include "record/inject.h"
#include "record/procfs.h"
#include "record/pagewrites.h"
#include "record/session.h"
#include "record/sysinfo.h"

/* ---- the runtime library ---- */

/* Reads the runtime's exported version string with libelf, without loading the library. */
static int rt_lib_version(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -ENOENT;
	Elf *e;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			Elf_Scn *ds;
			GElf_Shdr dsh;
			Elf_Data *dd;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, "memtap_rt_version") || !sym.st_shndx)
				continue;
			ds = elf_getscn(e, sym.st_shndx);
			if (!ds || !gelf_getshdr(ds, &dsh) || !(dd = elf_getdata(ds, NULL)))
				break;
			if (sym.st_value < dsh.sh_addr ||
			    sym.st_value - dsh.sh_addr + sym.st_size > dd->d_size)
				break;
			snprintf(buf, size, "%.*s", (int)sym.st_size,
				 (const char *)dd->d_buf + (sym.st_value - dsh.sh_addr));
			r = 0;
			break;
		}
		break;
	}
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

int mt_find_rt_lib(char *path, size_t size)
{
	const char *env = getenv("MEMTAP_RT_LIB");

	if (env && *env) {
		mt_strlcpy(path, env, size);
		return 0;
	}
	return mt_find_lib("libmemtap-rt.so", path, size);
}

int mt_find_lib(const char *name, char *path, size_t size)
{
	char exe[PATH_MAX - 64], *slash;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	/* Next to the binary (the build tree), then the installed layout. */
	snprintf(path, size, "%s/%s", exe, name);
	if (access(path, R_OK) == 0)
		return 0;
	snprintf(path, size, "%s/../lib/memtap/%s", exe, name);
	if (access(path, R_OK) == 0) {
		char real[PATH_MAX];

		/* PREFIX/lib/memtap/..., not PREFIX/bin/../lib/memtap/... */
		if (realpath(path, real) && strlen(real) < size)
			memcpy(path, real, strlen(real) + 1);
		return 0;
	}
	snprintf(path, size, "%s/%s", exe, name);
	return -ENOENT;
}

static bool tsc_usable(void)
{
	char cs[64], flags[4096];
	FILE *f;
	bool constant = false, nonstop = false;

	if (mt_read_line_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			      cs, sizeof(cs)) < 0 ||
	    strcmp(cs, "tsc"))
		return false;
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(flags, sizeof(flags), f)) {
		if (strncmp(flags, "flags", 5))
			continue;
		constant = strstr(flags, " constant_tsc") != NULL;
		nonstop = strstr(flags, " nonstop_tsc") != NULL;
		break;
	}
	if (f)
		fclose(f);
	return constant && nonstop;
}

int mt_alloc_open(struct mt_session *s)
{
	struct mt_alloc_state *a = calloc(1, sizeof(*a));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char ver[128] = "", key[2 * MT_RT_KEY_BYTES + 1];
	uint8_t rnd[8] = { 0 };
	const char *orig;
	int r;

	if (!a)
		return -ENOMEM;
	a->lsock = -1;
	a->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->alloc = a;
	r = mt_find_rt_lib(a->lib, sizeof(a->lib));
	if (r < 0 || access(a->lib, R_OK) < 0) {
		mt_err("cannot find the allocation runtime '%s' (hint: set MEMTAP_RT_LIB, or record "
		       "with --no-alloc)",
		       a->lib);
		return -ENOENT;
	}
	if (rt_lib_version(a->lib, ver, sizeof(ver)) < 0 || strcmp(ver, RT_VERSION)) {
		mt_err("the allocation runtime '%s' is %s, not '%s' (hint: use the runtime built with "
		       "this memtap, or record with --no-alloc)",
		       a->lib, ver[0] ? ver : "not a memtap runtime", RT_VERSION);
		return -EINVAL;
	}
	a->sites = s->o->alloc_sites;
	a->budget = s->o->max_size && !a->sites;
	a->keep_min = mt_budget_keep_min(s->o);
	a->tsc = tsc_usable();
	if (getrandom(a->key, sizeof(a->key), 0) != (ssize_t)sizeof(a->key))
		return mt_err_code(-EIO, "cannot draw the recording's key (getrandom)");
	for (size_t i = 0; i < sizeof(a->key); i++)
		snprintf(key + 2 * i, 3, "%02x", a->key[i]);
	{
		struct rlimit rl;

		a->fd_limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (unsigned)rl.rlim_cur : 0;
	}
	(void)!getrandom(rnd, sizeof(rnd), GRND_NONBLOCK);
	snprintf(a->sockname, sizeof(a->sockname), "memtap-%d-%02x%02x%02x%02x%02x%02x",
		 (int)getpid(), rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
	a->lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->lsock < 0)
		return mt_err_code(-errno, "cannot create the runtime socket");
	memcpy(sa.sun_path + 1, a->sockname, strlen(a->sockname));
	if (bind(a->lsock, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a->sockname))) <
		    0 ||
	    listen(a->lsock, 512) < 0)
		return mt_err_code(-errno, "cannot listen for the runtime");
	orig = getenv("LD_PRELOAD");
	/* Ours first, so that a user-preloaded allocator is reached through memtap's hooks. */
	if (orig && *orig)
		snprintf(a->env_preload, sizeof(a->env_preload), "%s:%s", a->lib, orig);
	else
		mt_strlcpy(a->env_preload, a->lib, sizeof(a->env_preload));
	/* With ptrace the runtime hides its variables from the program, and the recorder puts
	 * them back into every exec'd image; without it they must stay visible to be inherited. */
	snprintf(a->env_conf, sizeof(a->env_conf),
		 "v=%d;sock=%s;key=%s;depth=%u;time=%s;tevery=%u;slots=%u;hide=%d;pw=%d;py=%d;"
		 "pwmin=%llu;thp=%s",
		 MT_RT_PROTO_VERSION, a->sockname, key, s->o->stack_depth, a->tsc ? "tsc" : "clock",
		 s->o->time_every, s->o->rt_slots, s->follow == MT_FOLLOW_PTRACE,
		 s->pagewrites != NULL, s->o->python_frames,
		 (unsigned long long)s->o->page_writes_min,
		 mt_sys_thp_always() ? "always" : "other");
	/* Tests shrink the runtime's tables to exercise their full paths (tbits=N;nodes=N). */
	if (getenv("MEMTAP_RT_TEST")) {
		size_t len = strlen(a->env_conf);

		snprintf(a->env_conf + len, sizeof(a->env_conf) - len, ";%s",
			 getenv("MEMTAP_RT_TEST"));
	}
	a->next_stream = 1;
	mt_alloc_calibrate(s);
	return 0;
}

const char *mt_alloc_rt_path(const struct mt_session *s)
{
	return s->alloc ? s->alloc->lib : NULL;
}

const char *mt_alloc_conf(const struct mt_session *s)
{
	return s->alloc ? s->alloc->env_conf : NULL;
}

void mt_alloc_child_env(struct mt_session *s)
{
	setenv("LD_PRELOAD", s->alloc->env_preload, 1);
	setenv(MT_RT_ENV, s->alloc->env_conf, 1);
}

int mt_alloc_npollfds(struct mt_session *s)
{
	return s->alloc ? 1 + (int)s->alloc->nconns : 0;
}

int mt_alloc_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	struct mt_alloc_state *a = s->alloc;
	int n = 0;

	if (!a || max < 1)
		return 0;
	a->lsock_polled = a->accept_after <= mt_now_ns();
	if (a->lsock_polled)
		fds[n++] = (struct pollfd){ .fd = a->lsock, .events = POLLIN };
	for (size_t i = 0; i < a->nconns && n < max; i++)
		fds[n++] = (struct pollfd){ .fd = a->conns[i].fd, .events = POLLIN };
	return n;
}

/* Whether the last poll set holds the listening socket (not while accept() has no
 * descriptor to give: it would be readable, and the loop would spin). */
static bool lsock_polled(const struct mt_alloc_state *a)
{
	return a && a->lsock_polled;
}

void mt_alloc_handle(struct mt_session *s, const struct pollfd *fds, int n)
{
	struct mt_alloc_state *a = s->alloc;
	int first = lsock_polled(a) ? 1 : 0;
	size_t nconns;

	if (!a || n < first)
		return;
	nconns = a->nconns;
	for (int k = first; k < n && (size_t)(k - first) < nconns; k++) {
		struct conn *c = &a->conns[k - first];

		if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)) || c->closed)
			continue;
		if (c->pidfd) /* the process has exited: its region holds all it will */
			c->closed = true;
		else if (!c->region)
			mt_ac_on_hello(s, c);
		else
			mt_ac_read_conn(s, c);
	}
	if (first && (fds[0].revents & POLLIN))
		mt_ac_conn_accept(s);
	mt_alloc_drain(s);
}

/*
 * The socket of a process with a region reached EOF. If the process still runs, its program
 * closed the runtime's descriptor (a daemon closing everything): the region is still
 * written and is drained until the process exits, which its pidfd tells. If it has exited
 * (or the pidfd cannot be had), the connection closes now.
 */
static void keep_draining(struct conn *c)
{
	int pfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	struct pollfd p;

	if (pfd < 0)
		return;
	/* Readable once the process has exited (a zombie too): nothing writes its region now. */
	p = (struct pollfd){ .fd = pfd, .events = POLLIN };
	if (poll(&p, 1, 0) != 0) {
		close(pfd);
		return;
	}
	close(c->fd);
	c->fd = pfd;
	c->pidfd = true;
	c->closed = false;
	mt_debug("runtime socket of %d closed while it runs: draining until it exits", (int)c->pid);
}

#define CONN_HELLO_NS 10000000000ull /* a connection must greet within 10 s */

void mt_alloc_drain(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;
	unsigned drained = 0;
	uint64_t now = mt_now_ns();
	size_t j = 0;

	if (!a)
		return;
	for (size_t i = 0; i < a->nconns; i++) {
		struct conn *c = &a->conns[i];

		if (c->closed && c->region && !c->pidfd)
			keep_draining(c);
		if (!c->region && !c->closed && now - c->accepted_ns > CONN_HELLO_NS) {
			a->refused[REF_SILENT]++; /* connected, never greeted */
			c->closed = true;
		}
		if (c->closed) {
			mt_ac_conn_close(s, c);
			continue;
		}
		drained += mt_ac_conn_drain(s, c, false, 0);
		a->conns[j++] = *c;
	}
	a->nconns = j;
	/* Collect often while slots fill, back off while the processes are quiet. */
	if (drained)
		a->interval_ms = 1;
	else if (a->interval_ms < 64)
		a->interval_ms = a->interval_ms ? a->interval_ms * 2 : 1;
}

int mt_alloc_timeout_ms(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	return a && a->nconns ? (int)a->interval_ms : -1;
}

void mt_alloc_flush(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	for (size_t i = 0; a && i < a->nconns; i++)
		mt_ac_conn_flush(s, &a->conns[i]);
}

/* ---- lifecycle ---- */

/* Why an exec'd image cannot carry the runtime, from its ELF headers and file mode. */
/* The collector's account of Python frames (rt-python.c), over every process. */
static void python_keys(struct mt_kv *kv, const struct mt_alloc_state *a, bool wanted)
{
	const uint64_t *n = a->py_procs;
	char buf[256], v[16];

	if (n[MT_RT_PY_ON]) {
		mt_rt_py_version_str(a->py_version[MT_RT_PY_ON], v);
		snprintf(buf, sizeof(buf), "on: %llu processes of CPython %s",
			 (unsigned long long)n[MT_RT_PY_ON], v);
	} else if (n[MT_RT_PY_UNSUPPORTED]) {
		if (a->py_version[MT_RT_PY_UNSUPPORTED])
			mt_rt_py_version_str(a->py_version[MT_RT_PY_UNSUPPORTED], v);
		else
			snprintf(v, sizeof(v), "before 3.11");
		snprintf(buf, sizeof(buf),
			 "unsupported: CPython %s (frames are read from 3.11.1 to 3.11.x)", v);
	} else if (n[MT_RT_PY_OFF] || !wanted) {
		snprintf(buf, sizeof(buf), "off (--no-python-frames)");
	} else {
		snprintf(buf, sizeof(buf), "no CPython process");
	}
	mt_kv_add(kv, "python_frames", buf);
	if (n[MT_RT_PY_ON] && n[MT_RT_PY_UNSUPPORTED]) {
		mt_rt_py_version_str(a->py_version[MT_RT_PY_UNSUPPORTED], v);
		snprintf(buf, sizeof(buf), "%llu processes of CPython %s",
			 (unsigned long long)n[MT_RT_PY_UNSUPPORTED], v);
		mt_kv_add(kv, "python_frames_unsupported", buf);
	}
	mt_kv_add_u64(kv, "python_functions", a->py_funcs);
	mt_kv_add_u64(kv, "python_functions_lost", a->py_funcs_lost + a->py_bad);
	mt_kv_add_u64(kv, "python_stacks", a->py_stacks);
	mt_kv_add_u64(kv, "python_stacks_unplaced", a->py_unplaced);
}

/* Why the executable open at fd cannot carry the runtime ("" when it can). */
static void untraceable_fd(int fd, char *buf, size_t size)
{
	struct stat st;
	Elf *e;
	size_t n;
	bool interp = false;

	if (fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) &&
	    (st.st_uid != getuid() || st.st_gid != getgid())) {
		mt_strlcpy(buf, "setuid/setgid program: the loader ignores LD_PRELOAD", size);
		return;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		mt_strlcpy(buf, "not an ELF executable", size);
	} else if (gelf_getclass(e) != ELFCLASS64) {
		mt_strlcpy(buf, "32-bit program: the 64-bit runtime cannot be loaded into it",
			   size);
	} else if (elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
				interp = true;
		}
		mt_strlcpy(buf, interp ? "" : "static binary: nothing can be preloaded", size);
	} else {
		mt_strlcpy(buf, "not an ELF executable", size);
	}
	if (e)
		elf_end(e);
}

static void untraceable_reason(pid_t pid, char *buf, size_t size)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf[0] = 0;
	if (fd < 0)
		return;
	untraceable_fd(fd, buf, size);
	close(fd);
}

bool mt_alloc_can_enter(const char *cmd)
{
	char path[PATH_MAX], why[128] = "";
	const char *dirs = strchr(cmd, '/') ? "" : getenv("PATH");
	int fd = -1;

	if (!dirs || !*dirs) {
		fd = open(cmd, O_RDONLY | O_CLOEXEC);
	} else {
		/* execvp's search: the first executable file on PATH */
		for (const char *d = dirs; fd < 0 && d;) {
			const char *end = strchr(d, ':');
			size_t len = end ? (size_t)(end - d) : strlen(d);

			snprintf(path, sizeof(path), "%.*s/%s", (int)len, len ? d : ".", cmd);
			if (access(path, X_OK) == 0)
				fd = open(path, O_RDONLY | O_CLOEXEC);
			d = end ? end + 1 : NULL;
		}
	}
	if (fd < 0)
		return true; /* exec will say why; the environment does not matter then */
	untraceable_fd(fd, why, sizeof(why));
	close(fd);
	/* A script (#!) is "not an ELF executable": its interpreter is what runs. */
	return !why[0] || !strncmp(why, "not an ELF", 10);
}

void mt_alloc_on_exec(struct mt_session *s, pid_t pid)
{
	mt_alloc_on_exec_at(s, pid, mt_now_ns());
}

/* Why a process whose image the runtime should have entered has no greeting. */
static void missing_reason(const struct mt_alloc_state *a, const struct proc_rt *p, char *why,
			   size_t size)
{
	if (p->reason[0])
		mt_strlcpy(why, p->reason, size);
	else if (a->fd_exhausted)
		snprintf(
			why, size,
			"the runtime did not connect (the recorder ran out of descriptors, limit %u)",
			a->fd_limit);
	else
		mt_strlcpy(why,
			   "the runtime did not start in it (a static or setuid program, or an "
			   "environment without LD_PRELOAD and MEMTAP_RT)",
			   size);
}

void mt_alloc_on_exec_at(struct mt_session *s, pid_t pid, uint64_t t)
{
	struct mt_alloc_state *a = s->alloc;
	bool ptraced = s->follow == MT_FOLLOW_PTRACE;
	struct proc_rt *p;

	if (!a || !(p = mt_ac_proc_get(a, pid, true)))
		return;
	p->exec_seen = true;
	p->inherited = false; /* the new image decides */
	p->exec_ns = t;
	/* perf's records come after the fact: the new image may have greeted already */
	p->rt_seen = p->hello_ns && p->hello_ns >= t;
	/* The old image's region holds all it will: drained once more and closed. */
	for (size_t i = 0; i < a->nconns; i++)
		if (a->conns[i].pid == pid && a->conns[i].region && a->conns[i].hello_ns < t)
			a->conns[i].closed = true;
	/* Under ptrace the process is stopped at its exec: the image is in place, nothing has
	 * run yet. Otherwise it may have moved on (or be gone): the reason is a best guess. */
	untraceable_reason(pid, p->reason, sizeof(p->reason));
	if (!p->reason[0] && ptraced) {
		int r = mt_inject_env(pid, a->lib, a->env_conf);

		mt_debug("exec of %d: runtime environment %s (%d)", (int)pid,
			 r < 0 ? "not added" : "added", r);

		if (r == -EPERM)
			mt_strlcpy(
				p->reason,
				"secure-execution program (setuid, setgid or file capabilities): "
				"the loader ignores LD_PRELOAD; memtap's variables kept out of its "
				"environment",
				sizeof(p->reason));
		else if (r < 0 && r != -ENOEXEC)
			snprintf(p->reason, sizeof(p->reason),
				 "could not give it the runtime's environment (%s)", strerror(-r));
	}
	if (p->exited && !p->rt_seen) { /* its exit was read first (another CPU's ring) */
		char why[200];

		missing_reason(a, p, why, sizeof(why));
		mt_ac_untraced(a, pid, why);
	}
}

void mt_alloc_on_thread_exit(struct mt_session *s, pid_t pid, pid_t tid)
{
	struct mt_alloc_state *a = s->alloc;

	for (size_t i = 0; a && i < a->nconns; i++)
		if (a->conns[i].pid == pid && a->conns[i].region)
			mt_ac_conn_drain(s, &a->conns[i], false, (uint32_t)tid);
}

/*
 * Greetings that may still wait in the socket: a short-lived process can connect, run and
 * exit before the recorder's loop gets to new connections. Once it has exited, its
 * greeting is there.
 */
static void accept_pending(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	mt_ac_conn_accept(s);
	for (size_t i = 0; i < a->nconns; i++)
		if (!a->conns[i].region && !a->conns[i].closed)
			mt_ac_on_hello(s, &a->conns[i]);
}

void mt_alloc_read_messages(struct mt_session *s, pid_t pid)
{
	struct mt_alloc_state *a = s->alloc;

	if (!a)
		return;
	accept_pending(s);
	for (size_t i = 0; i < a->nconns; i++)
		if (a->conns[i].pid == pid && a->conns[i].region && !a->conns[i].closed)
			mt_ac_read_conn(s, &a->conns[i]);
}

/* A forked child that has not exec'd is untraced when its parent is: an image the runtime
 * cannot enter (its reason known, or final: the recording's end), or such a child itself.
 * Returns whether c is now known untraced. */
static bool inherit_untraced(struct mt_alloc_state *a, struct proc_rt *c, bool final)
{
	const struct proc_rt *pp;
	pid_t parent = c->parent;
	char why[200];

	if (c->inherited || c->exec_seen || c->rt_seen || !parent ||
	    !(pp = mt_ac_proc_get(a, parent, false)))
		return c->inherited;
	if (pp->rt_seen || (!pp->exec_seen && !pp->inherited) || (!final && !pp->reason[0]))
		return false;
	if (!pp->reason[0])
		missing_reason(a, pp, why, sizeof(why));
	if (pp->inherited) /* "a child of untraced ..." already: the first such ancestor's */
		mt_strlcpy(c->reason, pp->reason, sizeof(c->reason));
	else
		snprintf(c->reason, sizeof(c->reason), "a child of untraced %d (%.160s)",
			 (int)parent, pp->reason[0] ? pp->reason : why);
	c->inherited = true;
	return true;
}

void mt_alloc_on_process_exit(struct mt_session *s, pid_t pid)
{
	struct mt_alloc_state *a = s->alloc;
	struct proc_rt *p;

	if (!a)
		return;
	accept_pending(s);
	/* The process is gone: its regions hold all they will. */
	for (size_t i = 0; i < a->nconns; i++)
		if (a->conns[i].pid == pid && a->conns[i].region)
			a->conns[i].closed = true;
	if (!(p = mt_ac_proc_get(a, pid, false)))
		return;
	(void)inherit_untraced(a, p, false);
	if ((p->exec_seen || p->inherited) && !p->rt_seen) {
		char why[200];

		missing_reason(a, p, why, sizeof(why));
		mt_ac_untraced(a, pid, why);
	}
	if (s->follow == MT_FOLLOW_PTRACE) {
		p->pid = -1; /* the pid may be reused */
		p->counted = false;
		p->inherited = false;
		p->parent = 0;
	} else {
		p->exited = true; /* perf: an exec record may still come, from another ring */
	}
}

void mt_alloc_on_fork(struct mt_session *s, pid_t parent, pid_t child)
{
	struct mt_alloc_state *a = s->alloc;
	struct proc_rt *c;

	if (!a || parent == child || !(c = mt_ac_proc_get(a, child, true)))
		return;
	c->parent = parent;
	/* the parent's exec may be read later (perf: another CPU's ring): then decided at the
	 * child's exit, or at the recording's end */
	(void)inherit_untraced(a, c, false);
}

void mt_alloc_untraced(struct mt_session *s, pid_t pid, const char *why)
{
	if (s->alloc)
		mt_ac_untraced(s->alloc, pid, why);
}

void mt_alloc_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_alloc_state *a = s->alloc;
	char buf[64];
	uint64_t bound;

	if (!a)
		return;
	accept_pending(s);
	/* memtap.h messages still queued when the workload ended are the workload's too. */
	for (size_t i = 0; i < a->nconns; i++)
		if (a->conns[i].region && !a->conns[i].closed)
			mt_ac_read_conn(s, &a->conns[i]);
	mt_alloc_drain(s);
	for (size_t i = 0; i < a->nconns; i++)
		mt_ac_conn_close(s, &a->conns[i]);
	a->nconns = 0;
	/* Images still without a greeting at the end (the command's own under perf, whose exit
	 * comes from waitpid; processes left running): untraced too. */
	for (size_t i = 0; i < a->nprocs; i++) {
		struct proc_rt *p = &a->procs[i];
		char why[200];

		if (p->pid <= 0 || !p->exec_seen || p->rt_seen || p->counted)
			continue;
		missing_reason(a, p, why, sizeof(why));
		mt_ac_untraced(a, p->pid, why);
	}
	/* Children forked by untraced processes, read before their parents' execs (or their
	 * exits before their forks: another CPU's ring): their parents' state is final now (a
	 * chain of them takes a pass per generation). */
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < a->nprocs; i++) {
			struct proc_rt *p = &a->procs[i];

			/* inherited but not counted: its exit was read before its fork */
			if (p->pid <= 0 || p->counted || p->rt_seen ||
			    !inherit_untraced(a, p, true))
				continue;
			mt_ac_untraced(a, p->pid, p->reason);
			more = true;
		}
	}
	if (a->refused[REF_KEY] || a->refused[REF_MEMFD])
		mt_warn("refused %llu connections to the runtime's socket: %llu without this "
			"recording's key, %llu with an unsealed region (not the workload's runtime)",
			(unsigned long long)(a->refused[REF_KEY] + a->refused[REF_MEMFD]),
			(unsigned long long)a->refused[REF_KEY],
			(unsigned long long)a->refused[REF_MEMFD]);
	if (a->fd_exhausted)
		mt_warn("the recorder ran out of descriptors (limit %u): processes waited to be "
			"recorded until descriptors freed (hint: raise the hard limit, ulimit -Hn)",
			a->fd_limit);
	if (!a->processes && a->nuntraced) {
		/* Nothing could take the runtime (a static binary, setuid): say so, never
		 * "active" with no events. */
		mt_strlcpy(s->alloc_coll.status, "unavailable", sizeof(s->alloc_coll.status));
		size_t n = mt_strlcpy(s->alloc_coll.reason,
				      "no process could be traced: ", sizeof(s->alloc_coll.reason));

		if (n < sizeof(s->alloc_coll.reason))
			mt_strlcpy(s->alloc_coll.reason + n, a->untraced,
				   sizeof(s->alloc_coll.reason) - n);
	}
	if (kv) {
		mt_kv_add(kv, "runtime", a->lib);
		/* events: every call a row; sites: rows folded into per-site windows */
		mt_kv_add(kv, "mode", a->sites ? "sites" : "events");
		if (a->sites || a->fold_first) {
			mt_kv_add_u64(kv, "sites_window_ns", MT_SITES_WINDOW_NS);
			mt_kv_add_u64(kv, "sites_rows_lost", a->sites_lost);
			/* folded after later rows: more than the reorder wait behind them */
			mt_kv_add_u64(kv, "sites_rows_late", a->sites_late);
		}
		if (a->budget) { /* --max-size: blocks below keep_min folded from fold_from on */
			mt_kv_add_u64(kv, "fold_from_ns", a->fold_first); /* 0: none */
			mt_kv_add_u64(kv, "fold_keep_bytes", a->keep_min);
			mt_kv_add_u64(kv, "fold_failed_processes", a->fold_off);
		}
		mt_kv_add(kv, "time",
			  a->tsc ? "tsc (converted to CLOCK_MONOTONIC by the recorder)"
				 : "CLOCK_MONOTONIC");
		mt_kv_add_u64(kv, "stack_depth", s->o->stack_depth);
		mt_kv_add_u64(kv, "processes_traced", a->processes);
		mt_kv_add_u64(kv, "processes_untraced", a->nuntraced);
		if (a->untraced[0])
			mt_kv_add(kv, "untraced", a->untraced);
		mt_kv_add_u64(kv, "stack_nodes", a->nodes);
		mt_kv_add_u64(kv, "labels", a->labels); /* memtap.h labels and phases */
		mt_kv_add_u64(kv, "labels_dropped", a->labels_dropped);
		mt_kv_add_u64(kv, "labels_malformed", a->bad_labels);
		mt_ac_appev_keys(kv, a);
		mt_ac_unwind_keys(kv, a);
		mt_kv_add_u64(kv, "time_every", s->o->time_every);
		if (a->tsc && (bound = mt_ac_cal_bound_ns(a)))
			mt_kv_add_u64(kv, "time_conversion_bound_ns", bound);
		mt_kv_add_u64(kv, "events_time_interpolated", a->time_est);
		mt_kv_add_u64(kv, "runtime_stalls", a->stalls);
		mt_kv_add_u64(kv, "runtime_wakeups", a->notifies);
		snprintf(buf, sizeof(buf), "%.3f", (double)a->stall_ns / 1e6);
		mt_kv_add(kv, "runtime_stall_ms", buf);
		mt_kv_add_u64(kv, "malformed_rows", a->bad_rows);
		mt_kv_add_u64(kv, "runtime_regions_overwritten", a->regions_overwritten);
		mt_kv_add_u64(kv, "slot_rescans", a->slot_rescans);
		mt_kv_add_u64(kv, "event_times_raised", a->times_raised);
		mt_ac_channel_keys(kv, a);
		python_keys(kv, a, s->o->python_frames);
	}
	if (a->lsock >= 0)
		close(a->lsock);
	if (a->spare >= 0)
		close(a->spare);
	a->lsock = -1;
	free(a->conns);
	free(a->cal);
	free(a->procs);
	free(a);
	s->alloc = NULL;
}
