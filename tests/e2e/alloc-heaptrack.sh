#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap's allocation counts against heaptrack's on the same workloads: the calls must be
# equal and the peak within 1%. heaptrack's own runtime adds allocations of its own to the
# process it traces (libstdc++'s static initialisation, pulled in by libheaptrack); those
# sites are located in libstdc++, which these workloads never map, and are set aside.
. "$(dirname "$0")/lib.sh"
need ptrace
command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null ||
	skip "heaptrack is not installed (apt-get install heaptrack)"

# compare NAME STDIN_FILE CMD...: records with both tools and checks the figures.
compare() {
	name=$1 input=$2
	shift 2
	# A first bare run: whatever the program caches on disk on its first run (Python's
	# bytecode, as root) is then there for both measured runs alike.
	"$@" <"$input" >/dev/null 2>&1
	# Both runs get the same kinds of stdin, stdout and stderr (Python allocates differently
	# for a pipe than for a file).
	"$MEMTAP" record -q -f -o "$name.mtap" -- "$@" <"$input" >m.out 2>m.err || fail "$name: memtap record"
	"$MEMTAP" report "$name.mtap" -s alloc --format json >"$name.json" || fail "$name: report"
	heaptrack -o "$T/$name" "$@" <"$input" >h.out 2>h.err || fail "$name: heaptrack: $(tail -3 h.err)"
	heaptrack_print -f "$T/$name.zst" --print-allocators 1 -n 100000 >"$name.ht" 2>/dev/null ||
		fail "$name: heaptrack_print"
	"$MEMTAP" dump "$name.mtap" --type mmap --format csv | grep -q 'libstdc++' &&
		skip "$name maps libstdc++: heaptrack's own allocations cannot be told apart"
	python3 - "$name.json" "$name.ht" "$name" <<'PY' || fail "$name: memtap and heaptrack disagree"
import json, re, sys
a = json.load(open(sys.argv[1]))["alloc"]
text = open(sys.argv[2]).read()
name = sys.argv[3]
unit = {"": 1, "B": 1, "K": 1e3, "M": 1e6, "G": 1e9}
def size(s):
    m = re.match(r"([0-9.]+)([BKMG]?)$", s)
    return float(m.group(1)) * unit[m.group(2)]
calls = int(re.search(r"^calls to allocation functions: (\d+)", text, re.M).group(1))
peak = size(re.search(r"^peak heap memory consumption: (\S+)", text, re.M).group(1))
# heaptrack's own: sites in libstdc++ in its "MOST CALLS" list (calls and peak).
own_calls = own_peak = 0
sec = text.split("MOST CALLS TO ALLOCATION FUNCTIONS")[1].split("\nPEAK MEMORY CONSUMERS")[0]
for m in re.finditer(r"^(\d+) calls to allocation functions with (\S+) peak consumption from\n\S+\n\s+in (\S+)", sec, re.M):
    if "libstdc++" in m.group(3):
        own_calls += int(m.group(1))
        own_peak += size(m.group(2))
print("%s: memtap calls %d, heaptrack %d (%d its own); peak memtap %d, heaptrack %.0f (%.0f its own)"
      % (name, a["calls"], calls, own_calls, a["peak_bytes"], peak, own_peak))
ok = a["calls"] == calls - own_calls
dev = abs(a["peak_bytes"] - (peak - own_peak)) / (peak - own_peak)
print("%s: peak deviation %.3f%%" % (name, 100 * dev))
sys.exit(0 if ok and dev <= 0.01 else 1)
PY
	ok "$name: calls exact, peak within 1%"
}

# The variables are exported, not passed through env(1): heaptrack would trace env alone.
export PYTHONHASHSEED=0 PYTHONMALLOC=malloc
compare py_alloc /dev/null /usr/bin/python3 "$SRC/bench/workloads/py_alloc.py"
if command -v sqlite3 >/dev/null; then
	compare sqlite3 "$SRC/bench/workloads/sql_alloc.sql" sqlite3 :memory:
else
	echo "sqlite3 not installed: its comparison skipped"
fi
