#!/bin/sh
# SPDX-License-Identifier: MIT
# `memtap events` benchmark (issue 18): a generated sway-schema JSONL file of SIZE MB (default
# 1000), summarised by memtap and loaded by the seed's way in Python (json.loads and the
# TraceEvent conversions into a list, tests/e2e/events_reference.py's load(): the load alone,
# its aggregation not counted), interleaved, the
# median of 3 each: MB/s of both, their ratio, and memtap's peak RSS beside the file's size
# (memory must stay flat). The issue asks >= 500 MB/s.
# usage: bench/events.sh [BUILD_DIR] [SIZE_MB]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
MB=${2:-1000}
M=$B/memtap
[ -x "$M" ] || { echo "bench/events.sh: build first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

python3 - "$T/e.jsonl" "$MB" <<'PY'
import json, random, sys
random.seed(1)
probes = ["delta_kl", "adherence", "attribution", "null_stats", "coverage", None]
target, n = int(sys.argv[2]) * 1000000, 0
with open(sys.argv[1], "w") as f:
    lines = []
    for i in range(20000):
        lines.append(json.dumps({"ts": 1.7e9 + i * 0.001, "probe": random.choice(probes),
            "view_id": random.choice(["base", "ft", "null_1", "null_2"]),
            "prompt_hash": "%016x" % random.getrandbits(64), "top_k": random.choice([0, 5, 10]),
            "op": random.choice(["next_token_dist", "logprob_of"]),
            "wall_ms": round(random.expovariate(0.05), 3), "hit": random.random() < 0.4}) + "\n")
    block = "".join(lines)
    while n < target:
        f.write(block)
        n += len(block)
PY
cat >"$T/seed_load.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from events_reference import load  # the seed's load, restated for the tests
load(sys.argv[1])
PY
size=$(stat -c %s "$T/e.jsonl")
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$T/m$i" "$M" events "$T/e.jsonl" --format json >/dev/null
	/usr/bin/time -f "%e %M" -o "$T/p$i" python3 "$T/seed_load.py" "$T/e.jsonl" "$HERE/../tests/e2e"
done
python3 - "$size" "$T" <<'PY'
import statistics, sys
size, d = int(sys.argv[1]), sys.argv[2]
m = [tuple(map(float, open("%s/m%d" % (d, i)).read().split())) for i in (1, 2, 3)]
p = [tuple(map(float, open("%s/p%d" % (d, i)).read().split())) for i in (1, 2, 3)]
ms, ps = statistics.median(x[0] for x in m), statistics.median(x[0] for x in p)
print("file %.0f MB: memtap events %.2f s = %.0f MB/s (peak RSS %.0f MiB); "
      "the seed's load in Python %.2f s = %.0f MB/s; memtap %.1fx faster" % (
      size / 1e6, ms, size / 1e6 / ms, max(x[1] for x in m) / 1024, ps, size / 1e6 / ps, ps / ms))
PY
