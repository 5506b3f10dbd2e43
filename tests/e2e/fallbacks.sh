#!/bin/sh
# SPDX-License-Identifier: MIT
# Without ptrace memtap follows the tree with perf records; without anything, the root only.
# Both say so, and the exit status still passes through.
. "$(dirname "$0")/lib.sh"
need perf mmap2 perf-ring

MEMTAP_DISABLE_FEAT=ptrace "$MEMTAP" record -o a.mtap -- sh -c 'ls / | wc -l; exit 3' >/dev/null 2>a.err
[ $? = 3 ] || fail "perf fallback: exit status"
grep -q "cannot follow the process tree with ptrace" a.err || fail "perf fallback: no warning"
"$MEMTAP" info a.mtap --format json >a.json
check_json a.json '[c["mechanism"] for c in j["collectors"]][:2] == ["perf-task", "perf-mmap2"] and j["collectors"][0]["status"] == "degraded"' \
	"perf fallback: collectors"
check_json a.json 'len(j["processes"]) == 3 and j["processes"][0]["exit_status"] == 3 and [p["comm"] for p in j["processes"]] == ["sh", "ls", "wc"]' \
	"perf fallback: tree"
check_json a.json 'all(p["exit_status"] is None for p in j["processes"][1:])' \
	"perf fallback: statuses below the root must be unknown, not invented"
ok "perf fallback: tree followed, unknown statuses stated as unknown"

# Without ptrace or perf the root's mappings come from one /proc snapshot after its exec: the
# root must still be alive then (a zombie's maps are empty), hence the sleep under CI load.
MEMTAP_DISABLE_FEAT=all "$MEMTAP" record -o b.mtap -- sh -c 'ls / | wc -l; sleep 0.5; exit 3' >/dev/null 2>b.err
[ $? = 3 ] || fail "no-mechanism fallback: exit status"
"$MEMTAP" info b.mtap --format json >b.json
check_json b.json 'j["collectors"][0]["mechanism"] == "wait" and len(j["processes"]) == 1 and j["processes"][0]["exit_status"] == 3' \
	"no-mechanism fallback"
check_json b.json 'j["collectors"][1]["mechanism"] == "procfs" and j["events"]["mmap"] > 0' \
	"no-mechanism fallback: /proc snapshot of the root"
ok "no ptrace, no perf: the root alone, with its status and mappings"
