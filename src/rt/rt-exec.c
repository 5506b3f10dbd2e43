/* SPDX-License-Identifier: MIT */
/*
 * The exec family, when memtap's variables must stay in the environment (a follower other
 * than ptrace: children inherit them to carry the runtime). A program the runtime cannot
 * enter (static, setuid or setgid to someone else) gets the environment without them:
 * LD_PRELOAD loses the runtime (or goes), MEMTAP_RT goes. Every other exec is passed on
 * untouched. Under ptrace (hide=1) the recorder adds the variables at each exec itself and
 * these hooks change nothing. glibc's system() and popen() spawn without the public entry
 * points and are not seen here (docs/security.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/rt-internal.h"

extern char **environ;

/* Can the runtime enter the program at path? false only when it surely cannot. */
static bool enterable(const char *path)
{
	union {
		Elf64_Ehdr eh;
		char b[4096];
	} u;
	struct stat st;
	long fd = rt_sys3(SYS_open, path, O_RDONLY | O_CLOEXEC, 0), n;
	bool interp = false, ok = true;

	if (rt_sys_failed(fd))
		return true; /* the exec fails or finds it elsewhere: nothing to decide */
	if (!rt_sys_failed(rt_sys2(SYS_fstat, fd, &st)) &&
	    (((st.st_mode & S_ISUID) && st.st_uid != (uid_t)rt_sys0(SYS_geteuid)) ||
	     ((st.st_mode & S_ISGID) && st.st_gid != (gid_t)rt_sys0(SYS_getegid))))
		ok = false; /* the loader ignores LD_PRELOAD there */
	n = rt_sys3(SYS_read, fd, u.b, sizeof(u.b));
	if (ok && n >= (long)sizeof(Elf64_Ehdr) && !memcmp(u.eh.e_ident, ELFMAG, SELFMAG)) {
		uint64_t end = u.eh.e_phoff + (uint64_t)u.eh.e_phnum * sizeof(Elf64_Phdr);

		if (u.eh.e_ident[EI_CLASS] != ELFCLASS64) {
			ok = false;
		} else if (u.eh.e_phentsize == sizeof(Elf64_Phdr) && end <= (uint64_t)n) {
			for (unsigned i = 0; i < u.eh.e_phnum; i++) {
				Elf64_Phdr ph;

				memcpy(&ph, u.b + u.eh.e_phoff + i * sizeof(ph), sizeof(ph));
				interp |= ph.p_type == PT_INTERP;
			}
			ok = interp; /* static: nothing is preloaded */
		}
	}
	(void)rt_sys1(SYS_close, fd);
	return ok;
}

/* The file execvp would run for file (PATH searched), into buf. */
static const char *resolve_path(const char *file, char *buf, size_t size)
{
	const char *dirs = getenv("PATH");

	if (strchr(file, '/') || !dirs)
		return file;
	for (const char *d = dirs; d;) {
		const char *end = strchr(d, ':');
		size_t len = end ? (size_t)(end - d) : strlen(d);

		if (len + 1 + strlen(file) + 1 <= size) {
			size_t dl = len ? len : 1;

			memcpy(buf, len ? d : ".", dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, file, strlen(file) + 1);
			if (!rt_sys_failed(rt_sys2(SYS_access, buf, X_OK)))
				return buf;
		}
		d = end ? end + 1 : NULL;
	}
	return file;
}

/*
 * envp without memtap's variables, in memory from mmap (the exec replaces the image; on a
 * failed exec it is a few pages the process keeps). NULL when nothing had to change.
 */
static char **stripped(char *const envp[])
{
	size_t n = 0, k = 0, plen = strlen(rt_cfg.preload);
	char **out;
	bool ours = false;

	for (; envp && envp[n]; n++)
		ours |= !strncmp(envp[n], MT_RT_ENV "=", sizeof(MT_RT_ENV)) ||
			(!strncmp(envp[n], "LD_PRELOAD=", 11) && plen &&
			 !strncmp(envp[n] + 11, rt_cfg.preload, plen));
	if (!ours || !(out = rt_mmap_anon((n + 1) * sizeof(char *) + 4096 + 16)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *v = envp[i];

		if (!strncmp(v, MT_RT_ENV "=", sizeof(MT_RT_ENV)))
			continue;
		if (!strncmp(v, "LD_PRELOAD=", 11) && plen &&
		    !strncmp(v + 11, rt_cfg.preload, plen)) {
			const char *rest = v + 11 + plen;
			char *nv = (char *)(out + n + 1);

			rest += strspn(rest, ": ");
			if (!*rest || strlen(rest) + 12 > 4096)
				continue; /* only ours, or too long to keep: it goes */
			memcpy(nv, "LD_PRELOAD=", 11);
			memcpy(nv + 11, rest, strlen(rest) + 1);
			v = nv;
		}
		out[k++] = (char *)v;
	}
	out[k] = NULL;
	return out;
}

/* The environment to exec path with: envp itself, or a copy without memtap's variables. */
static char *const *env_for(const char *path, char *const envp[])
{
	char **s;

	if (rt_cfg.hide || !rt_cfg.preload[0] || enterable(path))
		return envp;
	s = stripped(envp);
	return s ? s : envp;
}

/* The real functions, resolved at the runtime's start (rt_exec_init): dlsym allocates,
 * which a forked child about to exec must not do through the hooks. */
static void *real_fn[6];
enum { R_EXECVE, R_EXECVPE, R_SPAWN, R_SPAWNP };

void rt_exec_init(void)
{
	real_fn[R_EXECVE] = dlsym(RTLD_NEXT, "execve");
	real_fn[R_EXECVPE] = dlsym(RTLD_NEXT, "execvpe");
	real_fn[R_SPAWN] = dlsym(RTLD_NEXT, "posix_spawn");
	real_fn[R_SPAWNP] = dlsym(RTLD_NEXT, "posix_spawnp");
}

static void *next(int which)
{
	if (!real_fn[which]) /* an exec before the runtime's start */
		rt_exec_init();
	return real_fn[which];
}

RT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int (*real)(const char *, char *const[], char *const[]) = next(R_EXECVE);

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, argv, env_for(path, envp));
}

RT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

RT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int (*real)(const char *, char *const[], char *const[]) = next(R_EXECVPE);
	char buf[4096];

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(file, argv, env_for(resolve_path(file, buf, sizeof(buf)), envp));
}

RT_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: their arguments as an array (at most 4096, as a kernel allows far
 * more only for programs nobody starts with execl). */
#define MAX_LARGS 4096

static char **list_args(const char *arg0, va_list ap, char ***envp)
{
	char **argv = rt_mmap_anon((MAX_LARGS + 1) * sizeof(char *));
	size_t n = 0;

	if (!argv)
		return NULL;
	argv[n++] = (char *)arg0;
	while (arg0 && n < MAX_LARGS && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	if (envp)
		*envp = va_arg(ap, char **);
	return argv;
}

/* execl (E_PATH), execle (E_ENV: envp after the NULL), execlp (E_SEARCH). */
enum { E_PATH, E_ENV, E_SEARCH };

static int exec_list(int how, const char *target, const char *arg, va_list ap)
{
	char **envp = environ, **argv = list_args(arg, ap, how == E_ENV ? &envp : NULL);

	if (!argv) {
		errno = ENOMEM;
		return -1;
	}
	return how == E_SEARCH ? execvpe(target, argv, environ) : execve(target, argv, envp);
}

/* The three variadic entry points, one shape. */
#define EXEC_LIST(name, how)                                         \
	RT_EXPORT int name(const char *target, const char *arg, ...) \
	{                                                            \
		va_list ap;                                          \
		int r;                                               \
                                                                     \
		va_start(ap, arg);                                   \
		r = exec_list(how, target, arg, ap);                 \
		va_end(ap);                                          \
		return r;                                            \
	}

EXEC_LIST(execl, E_PATH)
EXEC_LIST(execle, E_ENV)
EXEC_LIST(execlp, E_SEARCH)

RT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]) = next(R_SPAWN);

	if (!real)
		return ENOSYS;
	return real(pid, path, fa, at, argv, env_for(path, envp));
}

RT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]) = next(R_SPAWNP);
	char buf[4096];

	if (!real)
		return ENOSYS;
	return real(pid, file, fa, at, argv, env_for(resolve_path(file, buf, sizeof(buf)), envp));
}
