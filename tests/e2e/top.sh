#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap top in an 80x24 tmux pane while a recorded program grows its memory: the program's
# row shows, its RSS changes between two captures a few seconds apart, every line fits 80
# columns; q quits top and the recording goes on to its normal end. Without a terminal,
# --once prints one frame; with no recording running, one line and exit 1.
. "$(dirname "$0")/lib.sh"
need perf-ring
command -v tmux >/dev/null || skip "tmux is not installed"

cat >grow.py <<'PY'
import time
keep = []
import os
for i in range(40):
    keep.append(bytearray(4 << 20)) # 4 MiB more, touched, every 0.15 s
    time.sleep(0.15)
for i in range(600): # then it waits until the test is done with top (at most 30 s)
    if os.path.exists("done"):
        break
    time.sleep(0.05)
print("grew", len(keep) * 4, "MiB")
PY
export XDG_RUNTIME_DIR= # the live directory: /tmp/memtap-UID, as over SSH without a session
"$MEMTAP" record -q -o g.mtap -- python3 grow.py >grow.out 2>rec.err &
mp=$!
sock=mt-top-$$
trap 'tmux -L $sock kill-server 2>/dev/null; kill $mp 2>/dev/null; rm -rf "$T"' EXIT
sleep 1
tmux -L $sock new-session -d -x 80 -y 24 "\"$MEMTAP\" top --pid $mp" || fail "tmux failed"
sleep 1.5
tmux -L $sock capture-pane -p >c1.txt
sleep 2.5
tmux -L $sock capture-pane -p >c2.txt
tmux -L $sock send-keys q
sleep 0.5
tmux -L $sock has-session 2>/dev/null && fail "q did not quit top: $(tmux -L $sock capture-pane -p)"
python3 - c1.txt c2.txt <<'PY' || fail "top's frames do not show the program's memory changing (above)"
import sys
def row(path):
    lines = open(path).read().splitlines()
    for l in lines:
        print("  |%s" % l)
    assert all(len(l) <= 80 for l in lines), "a line wider than 80 columns"
    r = [f for f in (l.split() for l in lines) if len(f) > 2 and f[0].isdigit() and f[1] == "python3"]
    assert r, "no python3 row"
    return r[0]
a, b = row(sys.argv[1]), row(sys.argv[2])
print("  RSS %s %s -> %s %s" % (a[2], a[3], b[2], b[3]))
sys.exit(0 if (a[2], a[3]) != (b[2], b[3]) else 1)
PY
kill -0 $mp 2>/dev/null || fail "quitting top stopped the recording"
"$MEMTAP" top --once --pid $mp >once.txt 2>once.err || fail "top --once failed: $(cat once.err)"
grep -q "^ *[0-9]* python3 " once.txt || fail "top --once shows no python3 row: $(cat once.txt)"
touch done
wait $mp || fail "the recording failed: $(cat rec.err)"
grep -q "grew 160 MiB" grow.out || fail "the program's output changed: $(cat grow.out)"
"$MEMTAP" top --once --pid $mp >x.out 2>x.err && fail "top of a finished recording succeeded"
[ "$(wc -l <x.err)" = 1 ] || fail "a finished recording: not one line: $(cat x.err)"
ok "memtap top in 80x24 tmux: live figures change, q quits, the recording goes on"
