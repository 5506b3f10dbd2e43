#!/bin/sh
# SPDX-License-Identifier: MIT
# include/memtap/memtap.h: labels and phases reach the trace with their times, threads,
# ranges and names (dump --type label,phase); the program links no memtap library and, run
# without memtap, does the same with every call a no-op.
. "$(dirname "$0")/lib.sh"

W="$WORKLOADS/labels"
if command -v ldd >/dev/null && ldd "$W" | grep -q memtap; then
	fail "the labels workload links a memtap library"
fi
"$W" >bare.txt || fail "the workload failed without memtap"
grep -q "recorded no" bare.txt || fail "memtap.h calls claimed success without memtap"
ok "without memtap: no library linked, every memtap.h call a no-op"

# Without page-write tracking: it would add one write-protect fault per page written (its
# cost, measured below), and this part counts first-touch faults.
"$MEMTAP" record -q -f --access=off --page-writes-ms 0 -o l.mtap -- "$W" >out.txt || fail "record failed"
grep -q "recorded yes" out.txt || fail "memtap.h calls failed under memtap: $(cat out.txt)"
"$MEMTAP" dump l.mtap --format jsonl --type label,phase >l.jsonl || fail "dump failed"
python3 - <<'PY' || fail "labels and phases differ from what the workload did"
import json
ev = [json.loads(l) for l in open("l.jsonl")]
out = dict(l.split(" ", 1) for l in open("out.txt").read().splitlines())
w = int(out["weights"].split()[0], 16)
kv = int(out["kv"].split()[0], 16)
seq = [(e["type"], e.get("op"), e.get("region_type"), e.get("name"),
        int(e["addr"], 16) if "addr" in e else None, e.get("len")) for e in ev]
print(seq)
assert seq == [
    ("phase", None, None, "load", None, None),
    ("label", "label", "weight", "model.weights", w, 1 << 20),
    ("phase", None, None, "generation", None, None),
    ("label", "label", "kv_cache", "block0", kv, 65536),
    ("label", "unlabel", "", "", kv, 0),
    ("label", "label", "bogus", "nowhere", 16, 4096),
    ("phase", None, None, "", None, None),
], seq
assert all(e["pid"] == ev[0]["pid"] for e in ev)
assert [e["time_ns"] for e in ev] == sorted(e["time_ns"] for e in ev)
PY
"$MEMTAP" info l.mtap --format json >i.json
check_json i.json '[c for c in j["collectors"] if c["name"] == "alloc"][0]["details"]["labels"] == "7"' \
	"the alloc collector does not count 7 labels and phases"
ok "labels and phases recorded with their ranges, names, times and order"

# The report's regions: the named range is a region of the workload's type, its page
# faults counted there; the unmapped range is ignored and counted.
"$MEMTAP" report l.mtap --format json >r.json || fail "report failed"
python3 - <<'PY' || fail "the report does not turn labels into regions"
import json
r = json.load(open("r.json"))
w = [g for g in r["regions"] if g["region_type"] == "weight"]
print("labels:", r["labels"], "weight regions:", [(g["label"], g["bytes"], g["faults_minor"]) for g in w])
assert r["labels"] == {"regions": 2, "invalid": 1, "unlabels_unmatched": 0}, r["labels"]
assert len(w) == 1 and w[0]["label"] == "model.weights" and w[0]["bytes"] == 1 << 20
# 256 pages, minus those the kernel mapped as a huge page or left to fault-around (anon: none)
assert 200 <= w[0]["faults_minor"] <= 256, w[0]["faults_minor"]
PY
ok "labels become regions of the workload's types; the bad range is counted, not trusted"

# With page-write tracking (the default): the weights written once are write-once, exactly;
# their 256 first touches are the program's own faults, as without memtap (a page not present
# is never protected), and only a page written again after a scan takes a write-protect fault,
# which is memtap's and counted apart.
"$MEMTAP" record -q -f --access=off -o p.mtap -- "$W" >/dev/null || fail "record with page writes failed"
"$MEMTAP" report p.mtap --format json >p.json || fail "report failed"
python3 - <<'PY' || fail "page-write tracking of the labelled weights is off"
import json
r = json.load(open("p.json"))
coll = {c["name"]: c for c in r["run"]["collectors"]}["pagewrites"]
if coll["status"] != "active":
    # a machine without userfaultfd WP or PAGEMAP_SCAN: the collector must say why, and no
    # region may then claim a page-write basis
    print("page-write tracking unavailable here:", coll["status"], coll.get("reason"))
    assert coll["status"] == "unavailable" and coll.get("reason"), coll
    assert all(g.get("write_once_basis") != "page-writes" for g in r["regions"])
    raise SystemExit(0)
w = [g for g in r["regions"] if g["region_type"] == "weight"][0]
print("weight:", {k: w[k] for k in ("write_once_ratio", "write_once_basis", "pages_tracked", "pages_written", "pages_rewritten", "faults_minor", "faults_write_protect")})
assert w["write_once_basis"] == "page-writes" and w["pages_tracked"] == 256
# a page whose memset straddles a scan counts as written in two epochs: at most a couple
assert w["pages_written"] == 256 and w["pages_rewritten"] <= 2 and w["write_once_ratio"] >= 254 / 256
assert 200 <= w["faults_minor"] <= 256, w["faults_minor"]
assert w["faults_write_protect"] == w["pages_rewritten"], w
PY
ok "labelled weights tracked page by page: write-once 1, the first touches the program's own"

# Page-write tracking never uses up the program's mappings: 5000 labels that would each split
# a mapping, then 60000 mmap calls of the program's own; tracking stops at 1024 ranges.
# (--page-writes-min 0: its big mapping would take one of the 1024 without a label.)
"$MEMTAP" record -q -f --access=off --page-writes-min 0 -o many.mtap -- "$WORKLOADS/labels-many" >many.out ||
	fail "the program's own mmap calls failed under memtap: $(cat many.out)"
[ "$(cat many.out)" = ok ] || fail "labels-many: $(cat many.out)"
"$MEMTAP" dump many.mtap --type label --format csv >many.csv || fail "dump failed"
python3 - <<'PY' || fail "tracking limit: not 1024 tracked and the rest refused with ENOSPC"
import csv
rows = list(csv.DictReader(open("many.csv")))
tracked = sum(r["page_writes"] == "tracked" for r in rows)
refused = sum(r["page_writes"] == "failed" and r["page_writes_errno"] == "28" for r in rows)
print("tracked", tracked, "refused", refused)
assert len(rows) == 5000 and tracked == 1024 and refused == 5000 - 1024
PY
ok "page-write tracking stops at its limit; the program's mmap calls all work"
