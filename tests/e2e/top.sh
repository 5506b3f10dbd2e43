#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap top in an 80x24 tmux pane while a recorded program works: the program's row shows
# with its heap in use, the hottest regions and the allocation sites are there, the
# figures change between two captures a few seconds apart, every line fits 80 columns; q
# quits top and the recording goes on to its normal end. The live file's figures have known
# answers: the program keeps exactly 10 (11 between an allocation and the next free)
# bytearrays of 4 MiB from one line, so that site's blocks live are 10 or 11, all of one
# size, and its calls are the steps done (less at most 6 steps, 0.9 s: the runtime hands a
# slot over within 0.2 s, the recorder publishes every 0.5 s); it sums a 16 MiB file mapping over and over, so that mapping is the most
# sampled region; each step writes 4 MiB of new pages (a fresh mapping), so a second's working set holds at
# least 1024 pages. Without a terminal, --once prints one frame; with no recording, one
# line and exit 1.
. "$(dirname "$0")/lib.sh"
need perf-ring
command -v tmux >/dev/null || skip "tmux is not installed"
PY=/usr/bin/python3 # Debian's, with python3-numpy
[ -x "$PY" ] || PY=python3
"$PY" -c "import numpy" 2>/dev/null || skip "python3-numpy is not installed (apt-get install python3-numpy)"

cat >grow.py <<'PY'
import mmap, os, time
import numpy as np
np.ones(2 << 20, dtype=np.float64).tofile("data.bin") # 16 MiB
m = np.memmap("data.bin", dtype=np.float64, mode="r")
keep = []
fresh = []
def grow():
    keep.append(bytearray(4 << 20)) # 4 MiB, zeroed (once the heap reuses blocks, bare
    if len(keep) > 10:              # runs take no fault there: their pages are present)
        del keep[0]
    fresh.append(mmap.mmap(-1, 4 << 20)) # 4 MiB of new pages, each written: 1024 faults
    for off in range(0, 4 << 20, 4096):
        fresh[-1][off] = 1
    if len(fresh) > 2:
        fresh.pop(0).close()
for i in range(60):
    grow()
    t = time.monotonic()
    while time.monotonic() - t < 0.15:
        m.sum()
    with open("steps.new", "w") as f:
        f.write(str(i + 1))
    os.replace("steps.new", "steps")
for i in range(600): # then it waits until the test is done with top (at most 30 s)
    if os.path.exists("done"):
        break
    m.sum()
    time.sleep(0.05)
print("kept", len(keep) * 4, "MiB")
PY
export XDG_RUNTIME_DIR= # the live directory: /tmp/memtap-UID, as over SSH without a session
"$MEMTAP" record -q -o g.mtap -- "$PY" grow.py >grow.out 2>rec.err &
mp=$!
sock=mt-top-$$
trap 'tmux -L $sock kill-server 2>/dev/null; kill $mp 2>/dev/null; rm -rf "$T"' EXIT
live=/tmp/memtap-$(id -u)/$mp.live
snap() { # steps before, the live file, steps after
	cat steps >"s$1.txt" && echo >>"s$1.txt" && cp "$live" "l$1.txt" && cat steps >>"s$1.txt" ||
		fail "no live file or no steps"
}
sleep 1
tmux -L $sock new-session -d -x 80 -y 24 "\"$MEMTAP\" top --pid $mp" || fail "tmux failed"
sleep 3.5
tmux -L $sock capture-pane -p >c1.txt
snap 1
sleep 2.5
tmux -L $sock capture-pane -p >c2.txt
snap 2
tmux -L $sock send-keys q
sleep 0.5
tmux -L $sock has-session 2>/dev/null && fail "q did not quit top: $(tmux -L $sock capture-pane -p)"
python3 - c1.txt c2.txt <<'PY' || fail "top's frames do not show the program's memory (above)"
import sys
def frame(path):
    lines = open(path).read().splitlines()
    for l in lines:
        print("  |%s" % l)
    assert all(len(l) <= 80 for l in lines), "a line wider than 80 columns"
    r = [f for f in (l.split() for l in lines) if len(f) > 2 and f[0].isdigit() and f[1] == "python3"]
    assert r, "no python3 row"
    return r[0], "\n".join(lines)
(a, t1), (b, text) = frame(sys.argv[1]), frame(sys.argv[2])
print("  RSS %s %s -> %s %s, heap %s -> %s" % (a[2], a[3], b[2], b[3], a[4], b[4]))
assert b[4] != "-", "no heap in use for a process with the runtime"
calls = [[l.split()[3] for l in t.splitlines() if "grow (grow.py:" in l] for t in (t1, text)]
print("  calls of grow():", calls)
assert calls[0] and calls[1] and calls[0] != calls[1], "the grow() site's calls did not change"
assert "HOTTEST REGIONS" in text and "data.bin" in text, "the mapped file is not among the regions"
assert "ALLOCATION SITES" in text and "grow (grow.py:" in text, "the allocating line is not among the sites"
PY
python3 - 1 2 <<'PY' || fail "the live figures are not the program's known answers (above)"
import sys
def live(path):
    procs, sites, regions, heaps = {}, [], [], {}
    for l in open(path).read().splitlines():
        f = l.split(" ")
        if f[0] == "proc":
            procs[f[-1]] = f
        elif f[0] == "site":
            sites.append((int(f[2]), int(f[3]), int(f[4]), " ".join(f[8:])))
        elif f[0] == "region":
            regions.append((int(f[2]), int(f[3]), " ".join(f[4:])))
        elif f[0] == "heap":
            heaps[f[1]] = int(f[2])
    return procs, sites, regions, heaps
for k in sys.argv[1:3]:
    procs, sites, regions, heaps = live("l%s.txt" % k)
    before, after = map(int, open("s%s.txt" % k).read().split())
    p = procs["python3"]
    grow = [s for s in sites if s[3].startswith("grow (grow.py:")]
    print("  live file %s (steps %d..%d): sites of grow(): %s; top region %s; wss %s pages; heap %s" %
          (k, before, after, grow, regions[:1], p[10], heaps.get(p[1])))
    live_b, nlive, ncalls = (sum(s[i] for s in grow) for i in range(3))
    assert nlive in (10, 11), "the site holds %d blocks, not 10 or 11" % nlive
    assert live_b % nlive == 0 and 4 << 20 <= live_b // nlive <= (4 << 20) + 8192, \
        "the blocks are not all one size of 4 MiB and its header: %d / %d" % (live_b, nlive)
    assert before - 6 <= ncalls <= after + 1, "%d calls, not the %d..%d steps done" % (ncalls, before, after)
    assert heaps[p[1]] >= live_b, "the process's heap is less than one of its sites"
    assert regions and regions[0][2].endswith("/data.bin") and regions[0][1] == 16 << 20, \
        "the most sampled region is not the 16 MiB mapping of data.bin"
    assert int(p[10]) >= 1024, "a second's working set below the 1024 pages it zeroes"
PY
kill -0 $mp 2>/dev/null || fail "quitting top stopped the recording"
"$MEMTAP" top --once --pid $mp >once.txt 2>once.err || fail "top --once failed: $(cat once.err)"
grep -q "^ *[0-9]* python3 " once.txt || fail "top --once shows no python3 row: $(cat once.txt)"
touch done
wait $mp || fail "the recording failed: $(cat rec.err)"
grep -q "kept 40 MiB" grow.out || fail "the program's output changed: $(cat grow.out)"
# memtap's own memory (its runtime's region, arena and image, as the trace names them) is in
# none of the live regions: the report's definition (issue 35, item 5)
"$MEMTAP" dump g.mtap --type mmap >maps.jsonl || fail "dump failed"
python3 - l1.txt l2.txt <<'PY' || fail "memtap top shows memtap's own memory as a region (above)"
import json, re, sys
own = [(int(e["addr"], 16), int(e["addr"], 16) + e["len"]) for e in map(json.loads, open("maps.jsonl"))
       if e["origin"] == "memtap"]
assert own, "the trace names no memory of memtap's"
for path in sys.argv[1:]:
    for l in open(path):
        # a mapping wholly memtap's (the loader's mapping of the runtime's bss may be merged
        # with the program's anonymous memory after it: that tail is the program's)
        m = re.match(r"region \S+ \d+ (\d+) \[anon 0x([0-9a-f]+)\]", l)
        if m and any(lo <= int(m.group(2), 16) and int(m.group(2), 16) + int(m.group(1)) <= hi
                     for lo, hi in own):
            print("  %s: %s" % (path, l.strip()))
            sys.exit(1)
print("  memtap's own ranges %d, none among the live regions" % len(own))
PY
"$MEMTAP" top --once --pid $mp >x.out 2>x.err && fail "top of a finished recording succeeded"
[ "$(wc -l <x.err)" = 1 ] || fail "a finished recording: not one line: $(cat x.err)"
ok "memtap top in 80x24 tmux: live figures change, heap, regions and sites are the known ones, q quits"

# A live file that is not one (damaged: its process lines kept, its header gone): one line,
# exit 1 — it once exited 0 silently, leaking the rows read (found by e2e/mutate-short).
mkdir -p xdg/memtap && chmod 700 xdg xdg/memtap
printf 'proc 1 2 3 4 5 6 7 8 9 10 11 0 x\nproc 2 2 3 4 5 6 7 8 9 10 11 0 y\n' >xdg/memtap/4242.live
XDG_RUNTIME_DIR=$PWD/xdg "$MEMTAP" top --once --pid 4242 >d.out 2>d.err
rc=$?
[ $rc = 1 ] && [ "$(wc -l <d.err)" = 1 ] && grep -q "is not a live file" d.err ||
	fail "a damaged live file: exit $rc, $(cat d.err)"
ok "a damaged live file: $(cat d.err)"
