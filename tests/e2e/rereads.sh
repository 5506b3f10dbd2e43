#!/bin/sh
# SPDX-License-Identifier: MIT
# Re-reads (memtap syscalls --rereads): a file read twice at the same offsets through
# pread, read after lseek, and mappings shows exactly those ranges, with the path of the
# descriptor from the BPF path capture. See workloads/rereads.c for what it reads.
. "$(dirname "$0")/lib.sh"
need perf-ring tp-syscalls bpf btf

"$MEMTAP" record -q -f --no-alloc --access=off --syscalls -o r.mtap -- \
	"$WORKLOADS/rereads" data.bin >truth.txt || fail "record failed"
"$MEMTAP" syscalls r.mtap --rereads --format json >rr.json || fail "--rereads failed"
"$MEMTAP" dump r.mtap --format jsonl --type mmap,fault >mf.jsonl || fail "dump failed"
python3 - "$PWD/data.bin" <<'PY' || fail "the re-read ranges differ from what the workload read"
import json, sys
path = sys.argv[1]
truth = [tuple(int(x) for x in l.split()) for l in open("truth.txt") if l.strip()]
rr = json.load(open("rr.json"))
f = [x for x in rr["files"] if x["path"] == path]
assert f, "no entry for %s in %s" % (path, [x["path"] for x in rr["files"]])
got = [(r["start"], r["end"], r["times"]) for r in f[0]["reread_ranges"]]
low = [r for r in got if r[1] <= 896 * 1024]
print("re-read ranges of data.bin below 896 KiB: %s; the workload read %s twice" % (low, truth))
assert low == truth, (low, truth)
# [896K, 1M) was mapped whole twice: the pages that faulted in both mappings.
ev = [json.loads(l) for l in open("mf.jsonl")]
maps = [e for e in ev if e["type"] == "mmap" and e["path"] == path and e["len"] == 1 << 20]
assert len(maps) == 2, maps
faulted = []
for k, m in enumerate(maps):
    lo, hi = int(m["addr"], 16), int(m["addr"], 16) + m["len"]
    t0 = m["time_ns"]
    t1 = maps[k + 1]["time_ns"] if k + 1 < len(maps) else 1 << 64
    faulted.append({(int(e["addr"], 16) - lo) & ~4095 for e in ev if e["type"] == "fault"
                    and t0 <= e["time_ns"] < t1 and lo <= int(e["addr"], 16) < hi})
both = sorted(faulted[0] & faulted[1])
high = [r for r in got if r[0] >= 896 * 1024]
pages = sorted(p for s, e, _ in high for p in range(s, e, 4096))
print("pages of [896K, 1M) faulted in both mappings: %s; memtap's ranges there: %s" % (both, high))
assert both and pages == both and all(t == 2 for _, _, t in high), (both, high)
assert f[0]["reads"] == 5, f[0]["reads"]  # 3 preads, 2 reads
PY
ok "re-read ranges: exactly the ranges read twice"

"$MEMTAP" syscalls r.mtap --list >l.txt || fail "--list failed"
fd=$(sed -n 's/.*openat(AT_FDCWD, "data.bin", O_RDWR|O_CREAT|O_TRUNC, 0644) = \([0-9]*\) .*/\1/p' l.txt)
[ -n "$fd" ] && grep -q "pread64($fd<$PWD/data.bin>, 0x[0-9a-f]*, 262144, 0) = 262144" l.txt ||
	fail "--list lacks paths or descriptor names: $(grep data.bin l.txt | head -3)"
ok "--list shows the paths opened and the file behind each descriptor"

# --syscall-stacks: each call's user stack, unwound from a copy taken at entry; the preads
# come from main() at the line of workloads/rereads.c that makes them.
"$MEMTAP" record -q -f --no-alloc --access=off --syscall-stacks -o s.mtap -- \
	"$WORKLOADS/rereads" data2.bin >/dev/null || fail "record --syscall-stacks failed"
"$MEMTAP" syscalls s.mtap --list --name pread64 --format json >s.json || fail "--list json failed"
line=$(grep -n 'pread(fd, buf, 256 \* K, 0) != 256 \* K' "$SRC/tests/e2e/workloads/rereads.c" | cut -d: -f1)
python3 - "$line" <<'PY' || fail "the preads' stacks do not lead to their line in rereads.c"
import json, sys
line = int(sys.argv[1])
calls = [c for c in json.load(open("s.json")) if c.get("path") is None and c["ret"] == 262144]
assert len(calls) == 2, calls
for c in calls:
    own = [f for f in c.get("stack", []) if f.get("file", "").endswith("rereads.c")]
    print("pread64 stack:", [(f.get("function"), f.get("file", "").split("/")[-1], f.get("line")) for f in c.get("stack", [])])
    assert own and own[0]["function"] == "main" and own[0]["line"] == line, (own, line)
PY
"$MEMTAP" syscalls s.mtap --list --name pread64 | grep -q "at main (.*rereads.c:$line)" ||
	fail "--list does not show the caller's line"
ok "--syscall-stacks: each pread64 is attributed to rereads.c:$line in main"

# Default options across processes (issue 14, item 10): several processes load the same
# libraries (the loader reads and maps them in each), and the preload runtime is on. Only
# the workload's data file is a re-read by default; --all-files shows the rest, each with
# its kind (code: loaded objects; memtap: the runtime and its shared memory).
"$MEMTAP" record -q -f --syscalls -o p.mtap -- sh -c "cat $PWD/data.bin >/dev/null; cat $PWD/data.bin >/dev/null; ls / >/dev/null" ||
	fail "record (processes) failed"
"$MEMTAP" syscalls p.mtap --rereads --format json >p.json || fail "--rereads (processes) failed"
"$MEMTAP" syscalls p.mtap --rereads --all-files --format json >pa.json || fail "--rereads --all-files failed"
python3 - "$PWD/data.bin" <<'PY' || fail "re-reads of libraries or memtap's files are listed as the workload's (above)"
import json, sys
path = sys.argv[1]
d, a = json.load(open("p.json")), json.load(open("pa.json"))
listed = [(f["path"], f["kind"]) for f in d["files"] if f["reread_bytes"]]
print("default:", listed, "left out:", d["files_left_out"])
assert listed == [(path, "data")], listed
kinds = {f["path"]: f["kind"] for f in a["files"] if f["reread_bytes"]}
print("--all-files:", sorted(set(kinds.values())))
assert kinds[path] == "data"
assert any(k == "code" and "libc.so" in p for p, k in kinds.items()), kinds
assert any(k == "memtap" for k in kinds.values()), kinds
assert d["files_left_out"] == sum(1 for k in kinds.values() if k != "data")
PY
ok "only the workload's data files are re-reads by default; --all-files shows libraries and memtap's files by kind"
