#!/bin/sh
# SPDX-License-Identifier: MIT
# fork, exec, vfork, fork from a thread, _exit, allocations in signal handlers, and a
# double free: every allocation reaches the trace under the right process, and the
# program behaves exactly as it does bare.
. "$(dirname "$0")/lib.sh"
need ptrace

W="$WORKLOADS/alloc-fork"
for mode in fork-exec fork-thread vfork exit signal; do
	"$W" $mode >bare.out 2>bare.err
	brc=$?
	"$MEMTAP" record -q -f -o $mode.mtap -- "$W" $mode >exp.out 2>rec.err
	rrc=$?
	[ "$brc" = "$rrc" ] || fail "$mode: exit status $rrc, bare $brc"
	[ "$(wc -l <exp.out)" = "$(wc -l <bare.out)" ] || fail "$mode: output differs in shape"
	python3 - "$MEMTAP" $mode.mtap exp.out <<'PY' || fail "$mode: allocations missing or misattributed"
import csv, json, subprocess, sys
memtap, trace, expect = sys.argv[1:4]
rows = list(csv.DictReader(subprocess.run(
    [memtap, "dump", trace, "--type", "alloc,mmap", "--format", "csv"],
    capture_output=True, text=True, check=True).stdout.splitlines()))
bad = 0
for line in open(expect):
    e = json.loads(line)
    if "size" in e:
        n = sum(1 for r in rows if r["type"] == "alloc" and r["kind"] == "malloc"
                and r["pid"] == str(e["pid"]) and r["size"] == str(e["size"]))
        want = e["count"]
    else:
        n = sum(1 for r in rows if r["type"] == "mmap" and r["origin"] == "rt"
                and r["pid"] == str(e["pid"]) and r["len"] == "16384")
        want = e["mmaps"]
    if n != want:
        print("expected", e, "found", n)
        bad += 1
sys.exit(1 if bad else 0)
PY
	ok "$mode: every allocation recorded under its process"
done

# The handler's allocations interrupted the runtime; every free still finds its block.
"$MEMTAP" report signal.mtap --format json >s.json
check_json s.json 'j["alloc"]["untracked_frees"] == 0' \
	"signal: frees without their allocation"
ok "signal: no free lost its allocation"

# A double free aborts the same way, with the same message.
"$W" double-free >bare.out 2>bare.err
brc=$?
"$MEMTAP" record -q -f -o df.mtap -- "$W" double-free >rec.out 2>rec.err
rrc=$?
[ "$brc" = 134 ] || skip "this libc does not detect the double free (status $brc)"
[ "$rrc" = "$brc" ] || fail "double free: exit status $rrc, bare $brc"
cmp -s bare.out rec.out || fail "double free: stdout differs"
# dash reports the abort ("Aborted") into the redirected stderr of a bare run; memtap's
# report of it is its summary, which -q turns off.
grep -v '^Aborted' bare.err >bare.err2
cmp -s bare.err2 rec.err || fail "double free: stderr differs: $(cat rec.err) / $(cat bare.err)"
"$MEMTAP" info df.mtap --format json >df.json || fail "double free: trace unreadable"
ok "double free: the same abort, the same message, a readable trace"
