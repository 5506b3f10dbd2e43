#!/bin/sh
# SPDX-License-Identifier: MIT
# record --max-size on a serving-length run (issue 37): llama.cpp (node-llama-cpp, 4 sequences
# of one 1024-token context) answering prompts for SECONDS under --max-size SIZE, beside an
# exact 30 s run with default options. Prints the trace sizes, what the budget did (fold time,
# end), and the engine's candidate and placement rows of both runs side by side: the bytes,
# write-once ratios and labels, and the rates (data reads per second, sampled access time
# per second of the run) with the sampling error each run states (95 %); a label the short
# run leaves insufficient_data that the long run settles is shown as settled, not as a
# difference. The sampling error does not cover the workload's own variation from run to run
# (its start-up's share of a short run, request timing): a second exact 30 s run is compared
# with the first the same way, as the reference for what agreement between two runs means.
# With LONG_EXACT=1 an exact run of SECONDS too, compared with the budgeted one (the same
# length: what the budget itself changes).
# Needs NODE_LLAMA_DIR holding node-llama-cpp (examples/engines/llama-setup.sh).
# usage: bench/budget.sh [BUILD_DIR] [SECONDS] [SIZE]   (default build, 600, 64M)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
SECS=${2:-600}
SIZE=${3:-64M}
M=$B/memtap
[ -x "$M" ] || { echo "bench/budget.sh: build first" >&2; exit 1; }
[ -d "${NODE_LLAMA_DIR:-/nonexistent}/node_modules/node-llama-cpp" ] ||
	{ echo "bench/budget.sh: NODE_LLAMA_DIR must hold node-llama-cpp" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$HERE/../examples/engines/make-gguf.py" "$T/model.gguf" --embd 512 --layers 4 \
	--heads 8 --kv-heads 4 --ff 1536 >/dev/null
ENGINE="node $HERE/../examples/engines/llama.mjs $T/model.gguf --serve"
"$M" record -q -f -o "$T/exact.mtap" -- $ENGINE 30 4 1024 >"$T/exact.out"
"$M" record -q -f -o "$T/again.mtap" -- $ENGINE 30 4 1024 >"$T/again.out"
"$M" record -q -f --max-size "$SIZE" -o "$T/budget.mtap" -- $ENGINE "$SECS" 4 1024 >"$T/budget.out"
RUNS="exact again budget"
if [ "${LONG_EXACT:-0}" = 1 ]; then
	"$M" record -q -f -o "$T/long.mtap" -- $ENGINE "$SECS" 4 1024 >"$T/long.out"
	RUNS="$RUNS long"
fi
for r in $RUNS; do
	awk '$1 == "served" { printf "%.1f %d\n", $3 / $4, $3 }' "$T/$r.out" >"$T/$r.rate"
	"$M" report "$T/$r.mtap" --section run,candidates,placement --format json >"$T/$r.json"
	"$M" info "$T/$r.mtap" --format json >"$T/$r.info"
	stat -c %s "$T/$r.mtap" >"$T/$r.size"
done
python3 - "$T" "$SECS" "$SIZE" $RUNS <<'PY'
import json, math, sys
t, secs, size = sys.argv[1], sys.argv[2], sys.argv[3]
runs = {r: json.load(open("%s/%s.json" % (t, r))) for r in sys.argv[4:]}
sizes = {r: int(open("%s/%s.size" % (t, r)).read()) for r in runs}
rates = {r: (open("%s/%s.rate" % (t, r)).read().split() or ["?", "?"]) for r in runs}
ENGINE = ("weight", "kv_cache", "activation", "runtime")
print("llama.cpp serving: exact 30 s (default options) vs %s s under --max-size %s" % (secs, size))
for r, d in runs.items():
    run = d["run"]
    b = run.get("trace_budget") or {}
    t0 = run["start_ns"]
    step = lambda k: "-" if not b.get(k) else "+%.1f s" % ((b[k] - t0) / 1e9)
    rec = json.load(open("%s/%s.info" % (t, r)))["run"].get("recorder") or {}
    print("  %-6s  %6.1f s recorded  trace %6.1f MB (%.2f MB/min)  fold %s  end %s  left out %s  "
          "engine %s tokens/s (%s tokens)  recorder %.1f%% of a CPU, %.0f MiB" % (
        r, run["duration_ns"] / 1e9, sizes[r] / 1e6, sizes[r] / 1e6 / (run["duration_ns"] / 6e10),
        step("folded_from_ns"), step("ended_ns"), b.get("left_out_events", "-"), rates[r][0],
        rates[r][1], 100 * rec.get("cpu_ns", 0) / max(run["duration_ns"], 1),
        rec.get("max_rss_bytes", 0) / 2**20))
def engine_rows(d):
    out = {}
    for c in d["candidates"]:
        if c["region_type"] in ENGINE and c["kind"] in ("file", "site"):
            key = (c["kind"], c["region_type"], c["label"].split(" (")[0])
            out.setdefault(key, c)  # the largest of a kind first
    return out
def rate_err(c):
    n = c["read_samples"] or 0
    return c["data_reads_per_s"] * 1.96 / math.sqrt(n) if n else float("inf")
def by_type(d):
    p = d["placement"]
    dur = p["duration_s"]
    return {(r["tier"], r["region_type"]): (r, dur) for r in p["by_type"] if r["region_type"] in ENGINE}
print("placement by type (engine regions): sampled access time per second of the run, added time per second (±95%), refresh/s")
def compare(title, ex, bu, pa, pb):
    bad = [0]
    print("\ncandidates (engine regions): %s" % title)
    print("  %-34s %-9s %-22s %-24s %-36s %s" % ("region", "bytes", "write-once", "reads/s (±95%)", "mrm", "agree"))
    for key in sorted(set(ex) | set(bu)):
        a, b = ex.get(key), bu.get(key)
        name = "%s %s %s" % (key[0], key[1], key[2][:18])
        if not a or not b:
            print("  %-34s only in the %s run" % (name, "second" if b else "first"))
            continue
        same_bytes = a["bytes"] == b["bytes"]
        wo = lambda c: "-" if c["write_once_ratio"] is None else "%.2f" % c["write_once_ratio"]
        wo_ok = (a["write_once_ratio"] is None or b["write_once_ratio"] is None or
                 abs(a["write_once_ratio"] - b["write_once_ratio"]) <= 0.05)
        ea, eb = rate_err(a), rate_err(b)
        rate_ok = abs(a["data_reads_per_s"] - b["data_reads_per_s"]) <= ea + eb
        if a["mrm"] == b["mrm"]:
            label = a["mrm"]
            label_ok = True
        elif a["mrm"] == "insufficient_data":
            label, label_ok = "%s -> %s (settled)" % (a["mrm"], b["mrm"]), True
        else:
            label, label_ok = "%s | %s" % (a["mrm"], b["mrm"]), False
        ok = same_bytes and wo_ok and rate_ok and label_ok
        bad[0] += not ok
        print("  %-34s %-9s %-22s %-24s %-36s %s" % (
            name, "same" if same_bytes else "%d|%d" % (a["bytes"], b["bytes"]),
            "%s | %s" % (wo(a), wo(b)),
            "%.1f±%.1f | %.1f±%.1f" % (a["data_reads_per_s"], ea, b["data_reads_per_s"], eb),
            label, "yes" if ok else "NO"))
    for key in sorted(set(pa) & set(pb)):
        (a, da), (b, db) = pa[key], pb[key]
        acc = lambda r, d: (r["read_time_s"] + r["write_time_s"]) / d
        add = lambda r, d: (r["added_time_s"] / d, (r["added_time_error_s"] or 0) / d)
        (xa, xea), (xb, xeb) = add(a, da), add(b, db)
        ok = abs(xa - xb) <= xea + xeb + 1e-9 and (a["refresh_bytes_per_s"] or 0) == (b["refresh_bytes_per_s"] or 0)
        bad[0] += not ok
        print("  %-4s %-11s access %.4f | %.4f   added %.4f±%.4f | %.4f±%.4f   refresh %s | %s B/s   %s" % (
            key[0], key[1], acc(a, da), acc(b, db), xa, xea, xb, xeb,
            a["refresh_bytes_per_s"], b["refresh_bytes_per_s"], "yes" if ok else "NO"))
    return bad[0]
ref = compare("two exact 30 s runs (the reference: run-to-run variation)", engine_rows(runs["exact"]),
              engine_rows(runs["again"]), by_type(runs["exact"]), by_type(runs["again"]))
bad = compare("exact 30 s | budgeted", engine_rows(runs["exact"]), engine_rows(runs["budget"]),
              by_type(runs["exact"]), by_type(runs["budget"]))
print("\nrows beyond the stated errors: %d between the two exact runs, %d between exact and budgeted" % (ref, bad))
if "long" in runs:
    same = compare("exact %s s | budgeted %s s (the same length)" % (secs, secs), engine_rows(runs["long"]),
                   engine_rows(runs["budget"]), by_type(runs["long"]), by_type(runs["budget"]))
    print("\nrows beyond the stated errors between the exact and the budgeted %s s runs: %d" % (secs, same))
PY
