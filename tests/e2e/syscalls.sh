#!/bin/sh
# SPDX-License-Identifier: MIT
# Syscall counts: per syscall, calls and errors equal strace -f -c's on deterministic
# workloads (dd bs=1, find over a generated tree, an mmap/madvise/munmap loop, CPython, a
# shell pipeline of several processes). Recorded with --no-alloc, and with default options (the
# preload runtime on) against strace -f -c of the bare command: the runtime's own calls and
# the dynamic loader's work loading it (open, read, stat, mmaps of its file, close, its
# RELRO mprotect) are marked and shown apart, and what is left equals strace's count
# (issue 14, item 7). One thing no record can tell apart: ld.so keeps its bookkeeping of
# every loaded object in anonymous pages it maps as it goes, and one more object can cost
# one more such mmap per process image; mmap may exceed strace's count by that, no more.
. "$(dirname "$0")/lib.sh"
need perf-ring tp-syscalls
command -v strace >/dev/null || skip "strace is not installed"

mkdir -p tree
for d in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	mkdir -p "tree/d$d/e" && for f in 1 2 3 4 5 6 7 8; do : >"tree/d$d/e/f$f"; done
done

# same NAME CMD...: memtap's per-syscall calls and errors against strace -f -c's, with every
# call recorded (--syscalls) and with the in-kernel summary (--syscalls=summary).
same() {
	name=$1
	shift
	strace -f -c -o st.txt "$@" >/dev/null 2>&1 || true
	# all: BPF records where BPF loads; perf: the tracepoint path (BPF turned off)
	for mode in all perf summary; do
		compare "$name ($mode)" "$mode" --no-alloc "$@"
	done
	# Default options: the runtime on, compared with the bare command.
	for mode in all summary; do
		compare "$name (runtime on, $mode)" "$mode" --alloc "$@"
		check_json s.json '{"memfd_create", "connect", "sendmsg"} <= {s["name"] for s in j["runtime_syscalls"]}' \
			"$name: the runtime's own calls are not shown apart"
	done
}

compare() {
	cname=$1
	mode=$2
	alloc=$3
	shift 3
	if [ "$mode" = perf ]; then
		MEMTAP_DISABLE_FEAT=bpf "$MEMTAP" record -q -f "$alloc" --access=off --no-faults \
			--no-rss --syscalls=all -o s.mtap -- "$@" >/dev/null 2>&1 || true
	else
		"$MEMTAP" record -q -f "$alloc" --access=off --no-faults --no-rss --syscalls="$mode" \
			-o s.mtap -- "$@" >/dev/null 2>&1 || true
	fi
	"$MEMTAP" syscalls s.mtap --format json >s.json || fail "$cname: memtap syscalls failed"
	"$MEMTAP" info s.mtap --format json >i.json || fail "$cname: memtap info failed"
	python3 - "$cname" <<'PY' || fail "$cname: counts differ from strace -f -c"
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
# ld.so's bookkeeping for one more object: at most one more anonymous mmap per exec'd image
if "runtime on" in name and "mmap" in bad and mt.get("execve"):
    (m, me), (s_, se) = bad["mmap"]
    if me == se and 0 < m - s_ <= mt["execve"][0]:
        print("mmap: %d, strace %d (ld.so's bookkeeping of the runtime's object)" % (m, s_))
        del bad["mmap"]
lost = [c["lost"] for c in json.load(open("i.json"))["collectors"] if c["name"] == "syscalls"][0]
own = sum(s["calls"] for s in json.load(open("s.json"))["runtime_syscalls"])
print("%s: %d syscalls, %d calls in strace's count; %d runtime calls apart; %d records lost; differences: %s" % (
    name, len(st), sum(c for c, _ in st.values()), own, lost, bad or "none"))
sys.exit(1 if bad else 0)
PY
	if [ "$mode" = perf ]; then
		check_json i.json '[c for c in j["collectors"] if c["name"] == "syscalls"][0]["mechanism"] == "tracepoint-raw_syscalls"' \
			"$cname: BPF turned off, yet not the tracepoint path"
	fi
	ok "$cname: every syscall's calls and errors equal strace's"
}

same dd dd if=/dev/zero of=/dev/null bs=1 count=20000
same find find tree -type f
same maploop "$WORKLOADS/faults-truth" maploop 2000
# A Python program: its imports open, stat and read dozens of files, a directory is listed,
# small objects come and go; the runtime's Python frames read the interpreter's own memory,
# never a file. glibc's mmap threshold is fixed for it (GLIBC_TUNABLES): a CI run with the
# runtime on once served one block of 128 KiB by mmap (+1 mmap) where 20 bare runs and 12
# --no-alloc runs here never did; whether a growing block reaches the threshold in place
# follows the heap's layout, which the address-space layout and the allocations before it
# move. (An open question: issue 35's closing note.)
PYTHONHASHSEED=0 GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 same python /usr/bin/python3 -c 'import json, os; print(sum(len(json.dumps({"k": i, "v": [i] * 8})) for i in range(20000)), len(os.listdir("/usr/lib/python3.11")))'
# Several processes (fork, exec, wait); files rather than pipes between them, as how many
# reads a pipe takes depends on scheduling and differs from run to run.
same processes sh -c 'seq 1 3000 >a; sort -n a >b; uniq b >c; wc -l <c'

# Where BPF loads, the summary is counted in the kernel.
"$MEMTAP" probe --format json >p.json
if python3 -c 'import json; f={x["id"]: x["available"] for x in json.load(open("p.json"))["features"]}; exit(0 if f["bpf"] and f["btf"] else 1)'; then
	"$MEMTAP" record -q -f --no-alloc --syscalls=summary -o b.mtap -- true || fail "summary record failed"
	"$MEMTAP" info b.mtap --format json >b.json
	check_json b.json '[c for c in j["collectors"] if c["name"] == "syscalls"][0]["mechanism"] == "bpf-summary"' \
		"--syscalls=summary did not use BPF where it loads"
	ok "--syscalls=summary counts in the kernel (bpf-summary)"
fi

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
"$MEMTAP" syscalls s.mtap --name opnat 2>x.err
[ $? = 2 ] && [ "$(wc -l <x.err)" = 1 ] && grep -q "unknown syscall 'opnat' (closest: openat" x.err ||
	fail "--name opnat: $(cat x.err)"
ok "unknown syscall names: exit 2 with the closest names"
