#!/bin/sh
# SPDX-License-Identifier: MIT
# The instrument does not change what it measures (issue 35): with default options (page-write
# tracking of every block and mapping of 1 MiB or more on), the workload's faults memtap reports
# equal perf stat's count of the same binary run bare, within 1 %, for C programs of six
# layouts (faults-bare: a block rewritten, strided, two threads, a discard, huge pages, a fork),
# CPython and sqlite3; memtap's own write-protect faults are reported apart and equal, in the C
# programs, the number they print (pages protected again and written); transparent huge pages
# stay whole (AnonHugePages as bare) and their mapping is not tracked.
. "$(dirname "$0")/lib.sh"
need perf-ring sw-faults
command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"
[ "$(id -u)" = 0 ] || skip "perf stat counts kernel-mode faults only as root; memtap then counts user mode"
W="$WORKLOADS/faults-bare"
export PYTHONHASHSEED=0

# The median of three bare runs' minor + major faults (perf stat -x: "count,unit,event,...").
bare() {
	for i in 1 2 3; do
		perf stat -x, -e minor-faults,major-faults -o ps.txt -- "$@" >bare.out 2>/dev/null ||
			fail "perf stat $* failed"
		awk -F, '/-faults/ {s += $1} END {print s}' ps.txt
	done | sort -n | sed -n 2p
}

check() { # NAME CMD...: bare vs traced; the C workload's printed answers too
	name=$1
	shift
	b=$(bare "$@")
	# shellcheck disable=SC2086 # PW_FULL: one option, or none
	"$MEMTAP" record -q -f ${PW_FULL:+--page-writes=full} -o "$name.mtap" -- "$@" >"$name.out" 2>"$name.err" ||
		fail "$name: record failed: $(tail -2 "$name.err")"
	"$MEMTAP" report "$name.mtap" --format json >"$name.json" || fail "$name: report failed"
	python3 - "$name" "$b" bare.out <<'PY' || fail "$name: the workload's faults or memtap's are off (above)"
import json, os, sys
name, bare = sys.argv[1], int(sys.argv[2])
key = "tracking_full" if os.environ.get("PW_FULL") else "tracking"
f = json.load(open(name + ".json"))["faults"]
out = dict(l.split()[:2] for l in open(name + ".out") if len(l.split()) >= 2)
bare_out = dict(l.split()[:2] for l in open(sys.argv[3]) if len(l.split()) >= 2)
mine = f["minor"] + f["major"]
print("%s: workload faults %d, bare %d (%+.2f %%); page-write tracking %s (%s uncertain); "
      "memtap's own %d" % (name, mine, bare, 100.0 * (mine - bare) / bare,
                           f["page_write_tracking_minor"], f["page_write_tracking_uncertain"],
                           f["memtap_own_minor"]))
assert abs(mine - bare) <= 0.01 * bare, "more than 1 % from the bare run"
if key in out:
    # One per page protected again and then written; a page can take two when a scan
    # protects it again between its fault and the store's retry (the thread preempted in
    # between: both faults are memtap's, the store itself takes none bare): rare, so at most
    # a few per thousand.
    want = int(out[key])
    # settling: a scan that falls inside a pass protects again the pages written between its
    # two walks (not yet seen written twice): one more fault each, at most tracking_most
    most = int(out.get("tracking_most", want)) if key == "tracking" else want
    got = f["page_write_tracking_minor"]
    assert want <= got <= most + 2 + most // 1000, \
        "tracking faults %d, the workload's known answer %d (at most %d)" % (got, want, most)
if "anon_huge_kb" in out:
    assert int(out["anon_huge_kb"]) == int(bare_out["anon_huge_kb"]), \
        "huge pages %s kB traced, %s kB bare" % (out["anon_huge_kb"], bare_out["anon_huge_kb"])
PY
	ok "$name: within 1 % of the bare run; memtap's faults apart"
}

check rewrite "$W" rewrite 64 3
# --page-writes=full: every epoch's pages protected again (one fault per page per pass)
export PW_FULL=1
check rewrite-full "$W" rewrite 64 3
check fork-full "$W" fork 32
PW_FULL=
check strided "$W" strided 40
check threads "$W" threads 32
check discard "$W" discard 96
check fork "$W" fork 32
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	echo "huge: transparent huge pages are off on this machine: not checked"
else
	check huge "$W" huge 256 16
	check_json huge.json 'sum(g["faults_minor"] for g in j["regions"] if g["bytes"] and g["bytes"] >= 256 << 20) <= 130' \
		"huge: the huge-page mapping took more than one fault per 2 MiB"
fi
check python /usr/bin/python3 "$SRC/tests/e2e/workloads/pyfaults.py"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
sqlite_queries 200000 5000 2000 >q.sql
check sqlite3 sh -c "sqlite3 :memory: <q.sql"
