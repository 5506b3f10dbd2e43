#!/bin/sh
# SPDX-License-Identifier: MIT
# The workload's heap placed (issue 17; Heimdallr's tracealloc): memtap record --heap
# pmem:DIR puts every block of the command's heap into a file in DIR (a PMEM/DAX directory;
# here a tmpfs one), --heap numa:N onto NUMA node N, through libmemkind, with allocations
# still traced; memtap run does the same for a configuration's heap: knob, traced and
# untraced. Real programs run unchanged under it; a heap that cannot be placed stops the
# program with one line and exit status 126, never silently elsewhere.
. "$(dirname "$0")/lib.sh"
HEAPLIB=$(dirname "$MEMTAP")/libmemtap-heap.so
[ -f "$HEAPLIB" ] || skip "libmemtap-heap.so was not built (libmemkind-dev missing)"
D=$T/pmem
mkdir -p "$D"
cat >where.py <<'PY'
# Where a 64 MiB bytearray's memory lives: its mapping in /proc/self/maps and numa_maps.
import ctypes
b = bytearray(64 << 20)
a = ctypes.addressof((ctypes.c_char * 1).from_buffer(b))
for l in open("/proc/self/maps"):
    lo, hi = (int(v, 16) for v in l.split()[0].split("-"))
    if lo <= a < hi:
        print("map", l.split()[5] if len(l.split()) > 5 else "[anon]")
        start = l.split()[0].split("-")[0]
for l in open("/proc/self/numa_maps"):
    if int(l.split()[0], 16) == int(start, 16):
        print("policy", l.split()[1])
PY
"$MEMTAP" record -q -f --heap "pmem:$D" -o p.mtap -- /usr/bin/python3 where.py >p.out 2>p.err ||
	fail "--heap pmem: $(cat p.err)"
grep -q "^map $D/memtap-heap\." p.out || fail "--heap pmem: the block is not in a file of $D: $(cat p.out)"
"$MEMTAP" report p.mtap -s alloc --format json | python3 -c 'import json, sys; a = json.load(sys.stdin)["alloc"]; sys.exit(0 if a["calls"] > 100 and a["peak_bytes"] >= 64 << 20 else 1)' ||
	fail "--heap pmem: the allocations were not traced"
ok "--heap pmem:DIR: the heap in a file of DIR, its allocations traced"

if [ -d /sys/devices/system/node/node0 ]; then
	"$MEMTAP" record -q -f --heap numa:0 -o n.mtap -- /usr/bin/python3 where.py >n.out 2>n.err ||
		fail "--heap numa:0: $(cat n.err)"
	grep -q "^policy bind:0" n.out || fail "--heap numa:0: the block is not bound to node 0: $(cat n.out)"
	ok "--heap numa:0: the heap bound to node 0"
fi

echo "create table t(x); insert into t values (1),(2); select sum(x) from t;" >q.sql
[ "$("$MEMTAP" record -q -f --heap "pmem:$D" -o s.mtap -- sqlite3 :memory: <q.sql)" = 3 ] ||
	fail "sqlite3 under --heap"
echo 'int main(void) { return 3; }' >t.c
"$MEMTAP" record -q -f --heap "pmem:$D" -o g.mtap -- gcc -O2 t.c -o t || fail "gcc under --heap"
./t
[ $? = 3 ] || fail "the program gcc built under --heap"
ok "sqlite3 and gcc run unchanged with their heaps placed"

MEMTAP_HEAP=pmem:$T/none LD_PRELOAD=$HEAPLIB /bin/true 2>bad.err
rc=$?
[ $rc = 126 ] && grep -q "memtap-heap: cannot place the heap (pmem:$T/none)" bad.err ||
	fail "a heap that cannot be placed: exit $rc, $(cat bad.err)"
"$MEMTAP" record -q -f --heap pmem:$T/none -o x.mtap -- true 2>rec.err && fail "--heap to a missing directory accepted"
grep -q "not a directory" rec.err || fail "--heap to a missing directory: $(cat rec.err)"
ok "a heap that cannot be placed: refused, or the program stopped with one line (exit 126)"

cat >heap.yaml <<YAML
experiment: heap
workloads:
  - name: where
    command: [/usr/bin/python3, $T/where.py]
configurations:
  - name: pmem
    heap: {pmem_dir: $D}
    record: [--access=off]
YAML
"$MEMTAP" run heap.yaml 2>run.err || fail "run: $(cat run.err)"
for k in traced baseline; do
	o=results/heap/workload=where/config=pmem/kind=$k/rep=1
	grep -q "^map $D/memtap-heap\." $o/stdout || fail "memtap run, $k: the heap is not in $D: $(cat $o/stdout)"
	check_json $o/metadata.json "j['knobs']['heap_pmem_dir'] == '$D'" "metadata.json: the heap's place"
done
ok "memtap run: heap: {pmem_dir} places the heap of traced and untraced runs"
