#!/bin/sh
# SPDX-License-Identifier: MIT
# The bundled pager experiment (examples/experiments/pager.yaml: renacer's case study of a
# model-bundle pager, with and without a cache of its own): each run's figures include the
# bytes of data files it read and read more than once, from its recorded system calls, and
# they match what the pager itself counted; runs stat and compare give them per workload.
# Also: every bundled experiment file validates (or names the program this machine lacks).
. "$(dirname "$0")/lib.sh"
for f in "$SRC"/examples/experiments/*.yaml; do
	"$MEMTAP" validate "$f" >/dev/null 2>v.err ||
		grep -q "is not a program this machine can run\|transparent huge pages" v.err ||
		fail "$(basename "$f") does not validate: $(cat v.err)"
done
ok "the bundled experiment files validate"

cp "$SRC/examples/experiments/pager.yaml" "$SRC/examples/experiments/pager.py" .
sed -i "s|/tmp/memtap-pager|$T/bundle|; s/repetitions: 3/repetitions: 2/" pager.yaml
"$MEMTAP" run pager.yaml 2>run.err || fail "run failed: $(cat run.err)"
R=results/pager
"$MEMTAP" runs list $R --format json >list.json || fail "runs list failed"
python3 - list.json $R <<'PY' || fail "the pager's reads (above)"
import json, sys
runs = [r for r in json.load(open(sys.argv[1])) if r["kind"] == "traced"]
assert len(runs) == 6 and all(r["status"] == "ok" for r in runs), runs
mib = 1 << 20
for r in runs:
    # the pager's own count: "requests 64 hits H misses M read BYTES"
    f = open("%s/%s/stdout" % (sys.argv[2], r["directory"])).read().split()
    read, misses = int(f[7]), int(f[5])
    print("%-9s rep %d: pager read %6.1f MiB (%2d misses); memtap: data files read %6.1f MiB, read again %5.1f MiB"
          % (r["workload"], r["rep"], read / mib, misses, r["data_read_bytes"] / mib, r["reread_bytes"] / mib))
    # the bundle is the workload's data file; Python's own files add a little
    assert read <= r["data_read_bytes"] <= read + 2 * mib, r
    if r["workload"] == "cache-64m":  # every model read once: nothing read again
        assert misses == 8 and r["reread_bytes"] < mib, r
    else:  # 8 models of 4 MiB, each requested more than once: all read again
        assert abs(r["reread_bytes"] - 32 * mib) < mib, r
PY
ok "each run's data read and read again match the pager's own counts"
# (their class depends on memtap's own cost, higher in a sanitizer build: all runs counted)
"$MEMTAP" runs stat $R --format json --include-contaminated >stat.json || fail "runs stat failed"
check_json stat.json '{s["workload"]: s["figures"]["data_read_bytes"]["runs"] for s in j} == {"no-cache": 2, "cache-16m": 2, "cache-64m": 2}' \
	"runs stat: the read figures of each workload"
ok "runs stat aggregates the bytes read per workload"
