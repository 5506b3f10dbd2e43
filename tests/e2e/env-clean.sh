#!/bin/sh
# SPDX-License-Identifier: MIT
# Programs the runtime cannot enter (static, setuid to another user, an executable with its
# own malloc) see exactly the user's environment: no LD_PRELOAD or MEMTAP_RT of memtap's,
# whether they are the command itself or exec'd below it; and each is counted untraced with
# its reason, never shown as traced with an empty heap.
. "$(dirname "$0")/lib.sh"
need ptrace
command -v gcc >/dev/null || skip "gcc is not installed"

cat >envp.c <<'C'
#include <stdio.h>
#include <string.h>
extern char **environ;
int main(void)
{
	int n = 0;

	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11) || !strncmp(*e, "MEMTAP_RT=", 10))
			n++;
	printf("leaks=%d\n", n);
	return 0;
}
C
cat >own.c <<'C'
#include <stddef.h>
#include <string.h>
static char pool[1 << 20];
static size_t used;
void *malloc(size_t n) { void *p = pool + used; used += (n + 15) & ~(size_t)15; return p; }
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b) { void *p = malloc(a * b); memset(p, 0, a * b); return p; }
void *realloc(void *p, size_t n) { void *q = malloc(n); if (p) memcpy(q, p, n); return q; }
C
gcc -O1 -o envp envp.c || fail "gcc failed"
gcc -O1 -o own envp.c own.c || fail "gcc failed (own malloc)"
if gcc -static -O1 -o envp-static envp.c 2>/dev/null; then S=./envp-static; else S=; fi
cp envp envp-suid
chown 65534:65534 envp-suid && chmod 4755 envp-suid
chmod 755 "$T"

unset LD_PRELOAD
check() { # check NAME FOLLOW CMD...: the program prints leaks=0
	name=$1 follow=$2
	shift 2
	"$MEMTAP" record -q -o "$name.mtap" --follow="$follow" -- "$@" >"$name.out" 2>"$name.err" ||
		fail "$name: record failed: $(cat "$name.err")"
	grep -q '^leaks=0$' "$name.out" || fail "$name ($follow): memtap's variables leaked: $(cat "$name.out")"
}
[ -n "$S" ] && check static ptrace "$S"
[ -n "$S" ] && check static-child ptrace sh -c "$S"
check suid ptrace sh -c ./envp-suid
check own ptrace ./own
check dynamic ptrace ./envp
[ -n "$S" ] && check static-perf perf "$S"
# perf's follower keeps the variables in the environment for children to inherit: the
# runtime's exec hooks take them out for programs it cannot enter
[ -n "$S" ] && check static-child-perf perf sh -c "$S"
check suid-perf perf sh -c ./envp-suid
[ -n "$S" ] && check static-python-perf perf python3 -c "import subprocess, sys; sys.exit(subprocess.run(['$S']).returncode)"
ok "static${S:+ (command and child)}, setuid-nobody and own-malloc programs see the user's environment (ptrace and perf followers)"

"$MEMTAP" info own.mtap --format json >own.json || fail "info failed"
check_json own.json '(lambda a: a["status"] == "unavailable" and "defines malloc" in a["details"]["untraced"] and a["details"]["processes_traced"] == "0")([c for c in j["collectors"] if c["name"] == "alloc"][0])' \
	"an own-malloc program is not counted untraced with its reason"
if [ -n "$S" ]; then
	"$MEMTAP" info static-child.mtap --format json >sc.json || fail "info failed"
	check_json sc.json '"static binary" in [c for c in j["collectors"] if c["name"] == "alloc"][0]["details"]["untraced"]' \
		"the static child is not counted untraced with its reason"
fi
ok "programs the runtime cannot enter are counted untraced, with the reason"

# Under perf's follower too: a child whose environment was cleared (env -i) is counted
# untraced with a reason, never silently absent.
"$MEMTAP" record -q -o pf.mtap --follow=perf -- sh -c 'env -i ./envp' >/dev/null 2>pf.err || fail "perf: record failed: $(cat pf.err)"
"$MEMTAP" info pf.mtap --format json >pf.json || fail "info failed"
check_json pf.json '(lambda d: int(d["processes_untraced"]) == 1 and "did not start" in d["untraced"])([c for c in j["collectors"] if c["name"] == "alloc"][0]["details"])' \
	"perf follower: the child with a cleared environment is not counted untraced"
ok "perf follower: a child with a cleared environment counted untraced, with the reason"
