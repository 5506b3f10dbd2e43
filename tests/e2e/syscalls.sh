#!/bin/sh
# SPDX-License-Identifier: MIT
# Syscall counts: per syscall, calls and errors equal strace -f -c's on deterministic
# workloads (dd bs=1, find over a generated tree, an mmap/madvise/munmap loop, a shell
# pipeline of several processes). Recorded with --no-alloc (strace injects no library).
. "$(dirname "$0")/lib.sh"
need perf-ring tp-syscalls
command -v strace >/dev/null || skip "strace is not installed"

mkdir -p tree
for d in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	mkdir -p "tree/d$d/e" && for f in 1 2 3 4 5 6 7 8; do : >"tree/d$d/e/f$f"; done
done

# same NAME CMD...: memtap's per-syscall calls and errors against strace -f -c's.
same() {
	name=$1
	shift
	strace -f -c -o st.txt "$@" >/dev/null 2>&1 || true
	"$MEMTAP" record -q -f --no-alloc --access=off --no-faults --no-rss --syscalls -o s.mtap -- \
		"$@" >/dev/null 2>&1 || true
	"$MEMTAP" syscalls s.mtap --format json >s.json || fail "$name: memtap syscalls failed"
	python3 - "$name" <<'PY' || fail "$name: counts differ from strace -f -c"
import json, re, sys
name = sys.argv[1]
st = {}
for line in open("st.txt"):
    f = line.split()
    # "% time seconds usecs/call calls [errors] syscall"
    if len(f) >= 5 and re.match(r"^[0-9.]+$", f[0]) and f[-1] != "total":
        calls = int(f[3])
        errors = int(f[4]) if len(f) == 6 else 0
        st[f[-1]] = (calls, errors)
mt = {s["name"]: (s["calls"], s["errors"]) for s in json.load(open("s.json"))["syscalls"] if s["calls"]}
bad = {k: (mt.get(k), st.get(k)) for k in set(st) | set(mt) if mt.get(k) != st.get(k)}
print("%s: %d syscalls, %d calls in strace's count; differences: %s" % (
    name, len(st), sum(c for c, _ in st.values()), bad or "none"))
sys.exit(1 if bad else 0)
PY
	ok "$name: every syscall's calls and errors equal strace's"
}

same dd dd if=/dev/zero of=/dev/null bs=1 count=20000
same find find tree -type f
same maploop "$WORKLOADS/faults-truth" maploop 2000
# Several processes (fork, exec, wait); files rather than pipes between them, as how many
# reads a pipe takes depends on scheduling and differs from run to run.
same processes sh -c 'seq 1 3000 >a; sort -n a >b; uniq b >c; wc -l <c'

# Classes and names are checked before anything runs.
"$MEMTAP" record -f -o x.mtap --syscalls=bogus -- true 2>x.err
[ $? = 2 ] && grep -q "unknown syscall class 'bogus'" x.err || fail "--syscalls=bogus"
"$MEMTAP" record -q -f --no-alloc --access=off --syscalls=memory -o m.mtap -- "$WORKLOADS/faults-truth" maploop 100 >/dev/null ||
	fail "--syscalls=memory failed"
"$MEMTAP" syscalls m.mtap --format csv >m.csv
python3 - <<'PY' || fail "--syscalls=memory recorded other classes"
import csv
names = {r["syscall"] for r in csv.DictReader(open("m.csv"))}
assert {"mmap", "madvise", "munmap"} <= names, names
assert not names & {"read", "write", "openat", "close"}, names
PY
ok "classes: --syscalls=memory keeps memory syscalls only"
