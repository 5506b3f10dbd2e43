#!/bin/sh
# SPDX-License-Identifier: MIT
# record --max-size, and the fold it shares with --alloc=sites, on a program whose answer is
# known (workloads/handoff.c: messages allocated by producer threads and freed by consumer
# threads, a 64 KiB batch buffer every 1,000 messages, 100 blocks leaked on purpose).
# - --alloc=sites: every free matched to its allocation although another thread's rows
#   reach the recorder first (the fold waits to put them in time order): no unseen frees,
#   the sites' calls, frees and leaks exact.
# - --max-size, half of it crossed: the calls of small blocks are folded from then on, the
#   batches keep their rows (every lifetime), every total and leak still exact, the file
#   within the size, the report says from when.
# - --max-size reached (a batch every 4 messages: rows the fold keeps): the file within the
#   size, the recording ends there, the command runs on to its own exit status, the report
#   says so.
. "$(dirname "$0")/lib.sh"
need ptrace

# The answer: producer/consumer totals from the program, compared site by site.
check() { # check REPORT.json ANSWER.json WHAT
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alloc"]
want = json.load(open(sys.argv[2]))
what = sys.argv[3]
bad = []
def site(fn):
    for s in a["top_sites"]:
        if s["frames"] and (s["frames"][0]["function"] or "").startswith(fn):
            return s
    bad.append("no site " + fn)
    return None
m, b, k = site("produce_message"), site("produce_batch"), site("stash")
if m and (m["calls"], m["frees"], m["bytes"], m["leaked_bytes"]) != \
        (want["messages"], want["messages"], want["message_bytes"], 0):
    bad.append("messages: calls %s frees %s bytes %s leaked %s" % (
        m["calls"], m["frees"], m["bytes"], m["leaked_bytes"]))
if b and (b["calls"], b["frees"], b["bytes"], b["leaked_bytes"]) != \
        (want["batches"], want["batches"], want["batch_bytes"], 0):
    bad.append("batches: calls %s frees %s leaked %s" % (b["calls"], b["frees"], b["leaked_bytes"]))
if k and (k["leaked_bytes"], k["leaked_blocks"]) != (want["leaked_bytes"], want["leaked_blocks"]):
    bad.append("stash leaked %s in %s" % (k["leaked_bytes"], k["leaked_blocks"]))
if a["untracked_frees"] or a["reordered_frees"] > a["frees"] // 1000:
    bad.append("unseen frees %s, reordered %s" % (a["untracked_frees"], a["reordered_frees"]))
for x in bad:
    print("%s: %s" % (what, x))
sys.exit(1 if bad else 0)
PY
}

# --alloc=sites, two producers and two consumers.
"$MEMTAP" record -q -o s.mtap --alloc=sites -- "$WORKLOADS/handoff" 2 300000 2 >s.want ||
	fail "record --alloc=sites failed"
"$MEMTAP" report s.mtap --format json --top 20 >s.json || fail "report failed"
check s.json s.want "--alloc=sites" || fail "--alloc=sites: frees from other threads not matched"
ok "--alloc=sites: 600,000 messages freed by other threads, every free matched, leaks exact"

# --max-size 4M: the fold begins half way (the full trace of this run is larger than 4 MiB).
"$MEMTAP" record -o b.mtap --max-size 4M -- "$WORKLOADS/handoff" 2 450000 2 >b.want 2>b.err ||
	fail "record --max-size failed: $(cat b.err)"
grep -q -- "--max-size 4.00 MiB: half of it written" b.err || fail "no word of the fold: $(cat b.err)"
size=$(stat -c %s b.mtap)
[ "$size" -le 4194304 ] || fail "--max-size 4M: the trace is $size bytes"
"$MEMTAP" report b.mtap --format json --top 20 >b.json || fail "report failed"
check b.json b.want "--max-size" || fail "--max-size: a total differs from the program's"
python3 - b.json <<'PY' || fail "--max-size: the fold is not stated as it happened"
import json, sys
d = json.load(open(sys.argv[1]))
a, tb = d["alloc"], d["run"]["trace_budget"]
bad = []
if tb["max_bytes"] != 4194304 or not tb["folded_from_ns"] or tb["ended_ns"] is not None:
    bad.append("trace_budget %r" % tb)
# the earliest folded call: within the run; before the fold began when the recorder drained
# rows older than that once it had (a slow recorder lags: the sanitized build, seconds)
if not d["run"]["start_ns"] < a["folded_from_ns"] < d["run"]["end_ns"] or \
        not 0 < a["calls_folded"] < a["calls"]:
    bad.append("folded_from_ns %s, calls_folded %s" % (a["folded_from_ns"], a["calls_folded"]))
for s in a["top_sites"]:
    fn = (s["frames"][0]["function"] or "") if s["frames"] else ""
    lt = (s["lifetime_ns"] or {}).get("count", 0)
    if fn.startswith("produce_batch") and (s["calls_folded"] != 0 or lt != s["calls"]):
        bad.append("batches (64 KiB) folded %s, lifetimes %s" % (s["calls_folded"], lt))
    if fn.startswith("produce_message") and (not s["calls_folded"] or
                                             lt + s["calls_folded"] != s["calls"]):
        bad.append("messages folded %s, lifetimes %s of %s" % (s["calls_folded"], lt, s["calls"]))
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
PY
"$MEMTAP" report b.mtap --section alloc | grep -q "folded (--max-size) *from +" ||
	fail "the text report does not state the fold"
ok "--max-size 4M: $size bytes; small blocks folded from half of it, batches kept whole, every total exact"

# --max-size reached: the recording ends, the command runs on to its own status (3). A batch
# every 4 messages: 250,000 blocks of 64 KiB whose rows are never folded.
"$MEMTAP" record -o e.mtap --max-size 4M -- "$WORKLOADS/handoff" 2 500000 2 3 4 >/dev/null \
	2>e.err
rc=$?
[ $rc = 3 ] || fail "--max-size reached: exit status $rc, not the command's 3 ($(cat e.err))"
grep -q -- "--max-size 4.00 MiB reached at" e.err || fail "no word of the end: $(cat e.err)"
size=$(stat -c %s e.mtap)
[ "$size" -le 4194304 ] || fail "--max-size 4M reached: the trace is $size bytes"
"$MEMTAP" info e.mtap >/dev/null 2>e.info || fail "the budgeted trace does not read"
[ ! -s e.info ] || fail "the budgeted trace reads with a warning: $(cat e.info)"
"$MEMTAP" report e.mtap --format json >e.json || fail "report failed"
check_json e.json 'j["run"]["trace_budget"]["ended_ns"] == j["run"]["end_ns"] and j["run"]["trace_budget"]["ended_ns"] > j["run"]["trace_budget"]["folded_from_ns"] and "--max-size" in j["run"]["stop_reason"] and j["run"]["trace_budget"]["left_out_events"] > 0' \
	"--max-size reached: the end is not the recording's end, or not said"
"$MEMTAP" report e.mtap --section run | grep -q "trace budget.*reached at +.*the command ran on" ||
	fail "the text report does not say where the recording ended"
ok "--max-size 4M reached: $size bytes, the recording ends there, the command's status 3 kept"
