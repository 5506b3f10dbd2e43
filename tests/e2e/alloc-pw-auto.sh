#!/bin/sh
# SPDX-License-Identifier: MIT
# Page-write tracking without labels (issue 16): with default options, heap blocks and
# writable anonymous mappings of 1 MiB or more are tracked from their allocation on, so
# their write-once ratios are exact. workloads/pw-auto prints, per case, the whole pages
# tracked, how many it writes in two epochs or more, and the slack: the second write faults
# its own fault count shows (a scan that passed a page while its write fault was resolved
# reports it twice, metrics.md); the report's ratio must be (pages - rewritten) / pages,
# less at most slack / pages (exact when no scan fell inside a write loop): a block kept (a quarter rewritten twice), a block
# rewritten just before its free (the runtime scans it itself before the real free), a
# mapping written once. A 64 KiB block stays untracked; --page-writes-min 0 tracks none.
# Ranges whose page tables would not fit are not tracked: a MAP_NORESERVE reservation, and
# a mapping larger than half of RAM is refused (EFBIG) and said.
. "$(dirname "$0")/lib.sh"
need ptrace
for mode in settle full; do
	"$MEMTAP" record -q -f --page-writes-ms 20 --page-writes=$mode -o t.mtap -- "$WORKLOADS/pw-auto" 20 >t.out 2>t.err ||
		fail "record failed: $(cat t.err)"
	! grep -q "late scan" t.out || fail "the recorder's page-write scan did not come within 60 s"
	"$MEMTAP" info t.mtap --format json >i.json || fail "info failed"
	python3 - i.json <<'PY' || skip "page-write tracking is not available here"
import json, sys
c = next(c for c in json.load(open(sys.argv[1]))["collectors"] if c["name"] == "pagewrites")
sys.exit(0 if c["status"] == "active" else 1)
PY
	"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
	"$MEMTAP" dump t.mtap --type page_write_range --format csv >pwr.csv || fail "dump failed"
	python3 - r.json t.out pwr.csv <<'PY' || fail "write-once ratios are not exact (above)"
import csv, json, sys
r = json.load(open(sys.argv[1]))
want = {}
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) == 7 and f[1] == "pages":
        want[f[0]] = (int(f[2]), int(f[4]), int(f[6]))
sentinel = [int(l.split()[1], 16) for l in open(sys.argv[2]) if l.startswith("sentinel ")]
# the workload's own epoch clock (a mapping of its own) is left out
ranges = [x for x in csv.DictReader(open(sys.argv[3])) if int(x["addr"], 16) not in sentinel]
print("tracked ranges:", [(x["addr"], int(x["len"]) // 4096, x["page_writes"]) for x in ranges])
assert len(ranges) == 3 and all(x["page_writes"] == "tracked" for x in ranges), "3 ranges (not the 64 KiB block)"
assert sorted(int(x["len"]) // 4096 for x in ranges) == sorted(p for p, _, _ in want.values())
got = [g for g in r["regions"] if g["write_once_basis"] == "page-writes"]
print("regions:", [(g["region_type"], g["write_once_ratio"]) for g in got])
for name, (pages, rew, slack) in want.items():
    ratio = (pages - rew) / pages
    low = (pages - min(pages, rew + slack)) / pages
    typ = "anon" if name == "mapping" else "allocation"
    m = [g for g in got if g["region_type"] == typ and low - 1e-9 <= g["write_once_ratio"] <= ratio + 1e-9]
    print("%-8s %4d pages, %3d rewritten, slack %d: write-once %.6f%s %s" % (name, pages, rew, slack,
          ratio, " (down to %.6f)" % low if slack else "", "found" if m else "MISSING"))
    assert m, name
pw = r["metrics"]["page_writes"]
assert pw["unattributed_pages"] == 0 and pw["incomplete_regions"] == 0, pw
PY
	ok "large blocks and mappings tracked by default: write-once exact (kept, rewritten before free, mapping), --page-writes=$mode"
done

"$MEMTAP" record -q -f --page-writes-ms 20 --page-writes-min 0 -o n.mtap -- "$WORKLOADS/pw-auto" 20 >n.out 2>n.err ||
	fail "record --page-writes-min 0 failed: $(cat n.err)"
[ "$("$MEMTAP" dump n.mtap --type page_write_range | wc -l)" = 0 ] || fail "--page-writes-min 0 tracked ranges"
ok "--page-writes-min 0: labelled ranges only"

half=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 * 0.6 }' /proc/meminfo)
half=$((half / 4096 * 4096))
"$MEMTAP" record -q -f -o h.mtap -- "$WORKLOADS/pw-auto" huge "$half" >h.out 2>h.err ||
	fail "record of huge ranges failed: $(cat h.err) $(cat h.out)"
grep -q unavailable h.out && { ok "huge ranges: this machine's overcommit refuses them (not checked)"; exit 0; }
"$MEMTAP" dump h.mtap --type page_write_range --format csv >h.csv || fail "dump failed"
python3 - h.csv "$half" <<'PY' || fail "huge ranges: tracked, or not said (above)"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["type"] == "page_write_range"]
print("ranges:", [(r["len"], r["page_writes"], r["page_writes_errno"]) for r in rows])
assert len(rows) == 1 and rows[0]["page_writes"] == "failed" and rows[0]["page_writes_errno"] == "27"
assert int(rows[0]["len"]) == int(sys.argv[2]), rows
PY
ok "a 64 TiB MAP_NORESERVE reservation is not tracked, a mapping over half of RAM refused (EFBIG) and said"
