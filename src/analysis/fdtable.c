/* SPDX-License-Identifier: MIT */
/* The descriptor table replay: open, dup, close, fork and exec, per process. */
#include "analysis/fdtable.h"

#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "format/reader.h"

#define O_CLOEXEC_ 02000000
#define F_DUPFD_ 0
#define F_DUPFD_CLOEXEC_ 1030

#define AT_FDCWD_ (-100)

void mt_fdtab_init(struct mt_fdtab *t, const char *cwd)
{
	memset(t, 0, sizeof(*t));
	mt_map64_init(&t->ix);
	t->cwd = cwd && *cwd == '/' ? cwd : NULL;
}

void mt_fdtab_release(struct mt_fdtab *t)
{
	mt_map64_release(&t->ix);
	free(t->v);
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	memset(t, 0, sizeof(*t));
}

static uint64_t key(uint32_t pid, int fd)
{
	return (uint64_t)pid << 32 | (uint32_t)fd;
}

struct mt_fd_ent *mt_fdtab_get(struct mt_fdtab *t, uint32_t pid, int fd)
{
	uint64_t *i = fd >= 0 || fd == AT_FDCWD_ ? mt_map64_get(&t->ix, key(pid, fd)) : NULL;

	return i && *i && t->v[*i - 1].live ? &t->v[*i - 1] : NULL;
}

static void drop(struct mt_fdtab *t, uint32_t pid, int fd)
{
	struct mt_fd_ent *e = mt_fdtab_get(t, pid, fd);

	if (e)
		e->live = false;
}

static void set(struct mt_fdtab *t, uint32_t pid, int fd, const char *path, size_t len,
		bool cloexec, uint64_t pos)
{
	uint64_t *i;
	struct mt_fd_ent *e;

	if ((fd < 0 && fd != AT_FDCWD_) || mt_map64_put(&t->ix, key(pid, fd), &i) < 0)
		return;
	if (!*i) {
		if (mt_grow_array(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0) {
			mt_map64_del(&t->ix, key(pid, fd));
			return;
		}
		*i = ++t->n;
	}
	e = &t->v[*i - 1];
	*e = (struct mt_fd_ent){ .pid = pid,
				 .fd = fd,
				 .live = true,
				 .cloexec = cloexec,
				 .path = path,
				 .len = len,
				 .pos = pos };
}

static void copy(struct mt_fdtab *t, uint32_t pid, int from, int to, bool cloexec)
{
	struct mt_fd_ent *e = mt_fdtab_get(t, pid, from);

	if (from == to)
		return;
	if (!e) {
		drop(t, pid, to); /* a descriptor memtap does not know (inherited, a pipe...) */
		return;
	}
	/* dup'd descriptors share one file offset; replaying them apart is close enough for
	 * read offsets, which interleaved use of both would break anyway */
	set(t, pid, to, e->path, e->len, cloexec, e->pos);
}

/* dir + "/" + rel with "." and ".." folded, kept in t->owned; NULL without memory. */
static const char *join(struct mt_fdtab *t, const char *dir, size_t dl, const char *rel, size_t rl,
			size_t *len)
{
	char *out = malloc(dl + rl + 3);
	size_t o = 0;

	if (!out)
		return NULL;
	if (mt_grow_array(&t->owned, &t->owned_cap, t->nowned + 1, sizeof(*t->owned)) < 0) {
		free(out);
		return NULL;
	}
	memcpy(out, dir, dl);
	out[dl] = '/';
	memcpy(out + dl + 1, rel, rl);
	out[dl + 1 + rl] = 0;
	/* fold: components one by one into out itself */
	{
		char *src = out;
		size_t n = dl + 1 + rl;

		for (size_t i = 0; i < n;) {
			size_t j = i;

			while (j < n && src[j] != '/')
				j++;
			if (j == i || (j - i == 1 && src[i] == '.')) {
				/* empty or "." */
			} else if (j - i == 2 && src[i] == '.' && src[i + 1] == '.') {
				while (o > 0 && out[o - 1] != '/')
					o--;
				if (o > 0)
					o--;
			} else {
				out[o++] = '/';
				memmove(out + o, src + i, j - i);
				o += j - i;
			}
			i = j + 1;
		}
	}
	if (!o)
		out[o++] = '/';
	out[o] = 0;
	t->owned[t->nowned++] = out;
	*len = o;
	return out;
}

/* The absolute form of path as pid opened it relative to dirfd (AT_FDCWD: its cwd). */
static const char *absolute(struct mt_fdtab *t, uint32_t pid, int dirfd, const char *p, size_t *len)
{
	struct mt_fd_ent *d;
	const char *j;

	if (*len && p[0] == '/')
		return p;
	d = mt_fdtab_get(t, pid, dirfd);
	if (d)
		j = join(t, d->path, d->len, p, *len, len);
	else if (dirfd == AT_FDCWD_ && t->cwd)
		j = join(t, t->cwd, strlen(t->cwd), p, *len, len);
	else
		return p;
	return j ? j : p;
}

void mt_fdtab_apply(struct mt_fdtab *t, struct mt_reader *r, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	int64_t ret;
	const uint64_t *a;

	if (ev->type == MT_EV_TASK_NEW) {
		uint32_t parent = (uint32_t)ev->v[MT_F_NEW_PPID];
		size_t n = t->n;

		if (ev->v[MT_F_NEW_KIND] == MT_TASK_THREAD || parent == pid)
			return;
		for (size_t i = 0; i < n; i++) {
			struct mt_fd_ent e = t->v[i];

			if (e.live && e.pid == parent)
				set(t, pid, e.fd, e.path, e.len, e.cloexec, e.pos);
		}
		return;
	}
	if (ev->type != MT_EV_SYSCALL || (ev->v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_NO_EXIT))
		return;
	ret = (int64_t)ev->v[MT_F_SYSCALL_RET];
	a = &ev->v[MT_F_SYSCALL_A0];
	if (ret < 0 && ret >= -4095)
		return; /* failed calls change nothing */
	switch (ev->v[MT_F_SYSCALL_NR]) {
	case 2: /* open */
	case 85: /* creat */
	case 257: /* openat */
	case 437: { /* openat2: its flags are in a struct, not known here */
		size_t len = 0;
		const char *p =
			ev->v[MT_F_SYSCALL_PATH]
				? mt_reader_str(r, ev->stream, ev->v[MT_F_SYSCALL_PATH], &len)
				: NULL;
		bool at = ev->v[MT_F_SYSCALL_NR] >= 257;
		uint64_t fl = ev->v[MT_F_SYSCALL_NR] == 2     ? a[1]
			      : ev->v[MT_F_SYSCALL_NR] == 257 ? a[2]
							      : 0;

		if (p)
			p = absolute(t, pid, at ? (int)a[0] : AT_FDCWD_, p, &len);
		if (p)
			set(t, pid, (int)ret, p, len, fl & O_CLOEXEC_, 0);
		else
			drop(t, pid, (int)ret);
		break;
	}
	case 80: { /* chdir */
		size_t len = 0;
		const char *p =
			ev->v[MT_F_SYSCALL_PATH]
				? mt_reader_str(r, ev->stream, ev->v[MT_F_SYSCALL_PATH], &len)
				: NULL;

		if (p && (p = absolute(t, pid, AT_FDCWD_, p, &len)) != NULL)
			set(t, pid, AT_FDCWD_, p, len, false, 0);
		else
			drop(t, pid, AT_FDCWD_);
		break;
	}
	case 81: /* fchdir */
		copy(t, pid, (int)a[0], AT_FDCWD_, false);
		break;
	case 3: /* close */
		drop(t, pid, (int)a[0]);
		break;
	case 32: /* dup */
		copy(t, pid, (int)a[0], (int)ret, false);
		break;
	case 33: /* dup2 */
		copy(t, pid, (int)a[0], (int)a[1], false);
		break;
	case 292: /* dup3 */
		copy(t, pid, (int)a[0], (int)a[1], a[2] & O_CLOEXEC_);
		break;
	case 72: /* fcntl */
		if (a[1] == F_DUPFD_ || a[1] == F_DUPFD_CLOEXEC_)
			copy(t, pid, (int)a[0], (int)ret, a[1] == F_DUPFD_CLOEXEC_);
		break;
	case 59: /* execve */
	case 322: /* execveat */
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].live && t->v[i].pid == pid && t->v[i].cloexec)
				t->v[i].live = false;
		break;
	case 8: { /* lseek */
		struct mt_fd_ent *e = mt_fdtab_get(t, pid, (int)a[0]);

		if (e)
			e->pos = (uint64_t)ret;
		break;
	}
	case 0: /* read */
	case 1: { /* write */
		struct mt_fd_ent *e = mt_fdtab_get(t, pid, (int)a[0]);

		if (e)
			e->pos += (uint64_t)ret;
		break;
	}
	default:
		break;
	}
}
