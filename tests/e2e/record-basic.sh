#!/bin/sh
# SPDX-License-Identifier: MIT
# The issue's example: output unchanged, exit status passed through, tree and timestamps right.
. "$(dirname "$0")/lib.sh"
need ptrace perf mmap2

bare=$(sh -c 'ls / | wc -l; exit 3')
before=$(mono_ns)
out=$("$MEMTAP" record -o t.mtap -- sh -c 'ls / | wc -l; exit 3' 2>rec.err)
rc=$?
after=$(mono_ns)
[ "$rc" = 3 ] || fail "record exited $rc, not 3"
[ "$out" = "$bare" ] || fail "workload output changed: '$out' vs '$bare'"
grep -q "wrote .* to 't.mtap'" rec.err || fail "no summary on stderr"
# The summary's table: every collector row's columns line up with the header's, the longest
# mechanism (pagewrites') included.
python3 - rec.err <<'PY' || fail "the record summary's columns do not line up (above)"
import sys
lines = open(sys.argv[1]).read().splitlines()
head = next(l for l in lines if l.lstrip().startswith("collector"))
rows = [l for l in lines[lines.index(head) + 1:] if l.startswith("  ") and not l.startswith("  " + " ")
        and len(l.split()) >= 5 and l.split()[-1].isdigit()]
end = head.index("events") + len("events")
bad = [r for r in rows if len(r) < end or r[end - 1] == " "]
for r in bad:
    print("misaligned:", r)
sys.exit(1 if bad or len(rows) < 7 else 0)
PY
ok "output unchanged, exit status 3"

"$MEMTAP" info t.mtap --format json >info.json || fail "info failed"
check_json info.json 'j["schema_version"] == "1.5" and j["integrity"]["complete"] and j["integrity"]["verified"]' \
	"info: schema version or integrity"
check_json info.json 'j["run"]["exit_status"] == 3 and j["run"]["argv"] == ["sh", "-c", "ls / | wc -l; exit 3"]' \
	"info: run"
check_json info.json '
len(j["processes"]) == 3 and
[p["comm"] for p in j["processes"]] == ["sh", "ls", "wc"] and
[p["exit_status"] for p in j["processes"]] == [3, 0, 0] and
all(p["ppid"] == j["processes"][0]["pid"] for p in j["processes"][1:]) and
sorted(j["processes"][0]["children"]) == sorted(p["pid"] for p in j["processes"][1:]) and
j["processes"][1]["argv"] == ["ls", "/"] and j["processes"][2]["exe"] == "/usr/bin/wc"' \
	"info: process tree"
check_json info.json '[c["mechanism"] for c in j["collectors"]][:3] == ["ptrace", "perf-mmap2+procfs", "preload+eh_frame-stacks"] and j["collectors"][3]["name"] == "access" and j["lost_events"] == 0' \
	"info: collectors"
ok "info shows the tree with exit statuses"

"$MEMTAP" dump t.mtap --format jsonl --type task >dump.jsonl || fail "dump failed"
python3 - dump.jsonl "$before" "$after" <<'PY' || fail "dump: lifecycle timestamps"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
lo, hi = int(sys.argv[2]), int(sys.argv[3])
types = [e["type"] for e in ev]
assert types.count("task_new") == 3 and types.count("task_exec") == 3 and types.count("task_exit") == 3, types
assert all(lo <= e["time_ns"] <= hi for e in ev), (lo, hi, [e["time_ns"] for e in ev])
assert [e["time_ns"] for e in ev] == sorted(e["time_ns"] for e in ev)
for pid in {e["pid"] for e in ev}:
    mine = [e["type"] for e in ev if e["pid"] == pid]
    assert mine == ["task_new", "task_exec", "task_exit"], (pid, mine)
PY
ok "dump: lifecycle events in order, inside [$before, $after]"

"$MEMTAP" dump t.mtap --format csv --type mmap >mmap.csv || fail "dump csv failed"
head -1 mmap.csv | grep -q '^time_ns,type,pid,tid,addr,len,pgoff,prot,flags' || fail "mmap csv header"
grep -q ',/usr/bin/ls,' mmap.csv || fail "no mapping of /usr/bin/ls"
grep -q 'libc.so.6' mmap.csv || fail "no mapping of libc"
ok "mappings of every process recorded"

# The build that wrote the trace: memtap --version's commit, in every trace's metadata.
commit=$("$MEMTAP" --version | sed -n 's/^commit *//p')
[ -n "$commit" ] || fail "memtap --version names no commit"
if git -C "$(dirname "$0")" rev-parse --short=12 HEAD >/dev/null 2>&1; then
	case "$commit" in
	"$(git -C "$(dirname "$0")" rev-parse --short=12 HEAD)"*) ;;
	*) fail "memtap --version says commit '$commit', the checkout is at $(git -C "$(dirname "$0")" rev-parse --short=12 HEAD)" ;;
	esac
fi
check_json info.json "j['machine']['memtap_commit'] == '$commit' and 'bpf-syscalls=' in j['machine']['memtap_features']" \
	"the trace does not name the commit and features of the memtap that wrote it"
ok "memtap --version and the trace name the build (commit $commit)"
