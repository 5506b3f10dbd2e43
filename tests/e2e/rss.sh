#!/bin/sh
# SPDX-License-Identifier: MIT
# RSS over time: the peak within 2% of the kernel's maximum resident set size, by type;
# without the tracepoint, statm polling still records and says it is degraded.
. "$(dirname "$0")/lib.sh"
need perf-ring
[ -x /usr/bin/time ] || skip "/usr/bin/time (Debian time) is not installed"
W="$WORKLOADS/faults-truth"

printf 'x = [bytes(1000) for _ in range(100000)]\nprint(len(x))\n' >w.py

# peak_ok CMD...: memtap's peak RSS of CMD within 2% of the maximum resident set size the
# kernel gives /usr/bin/time for the same run (a bare run's peak varies from run to run
# by more than that); anon and file > 0. The kernel's figure includes memtap's own pages
# in the process, which memtap sets apart: within 2% of the two together.
peak_ok() {
	"$MEMTAP" record -q -f --access=off -o r.mtap -- /usr/bin/time -f %M -o time.txt "$@" >/dev/null ||
		fail "record failed: $*"
	"$MEMTAP" report r.mtap --format json >r.json || fail "report failed"
	python3 - "$(cat time.txt)" <<'PY' || fail "peak RSS off: $*"
import json, sys
kib = int(sys.argv[1])
j = json.load(open("r.json"))
r = j["rss"]
p = max(r["processes"], key=lambda x: x["peak_bytes"])
peak, own = p["peak_bytes"] / 1024, (p["memtap_own_peak_bytes"] or 0) / 1024
print("rss: memtap peak %.0f KiB (+ memtap's own %.0f KiB), /usr/bin/time %d KiB (%s, %d records)"
      % (peak, own, kib, r["mechanism"], p["events"]))
assert peak <= 1.02 * kib and peak + own >= 0.98 * kib, ("more than 2% apart", j["collectors"] if "collectors" in j else r)
assert p["peak_anon_bytes"] > 0 and p["peak_file_bytes"] > 0
PY
	ok "peak within 2%: $*"
}
peak_ok "$W" anon 96
peak_ok /usr/bin/python3 w.py

# Without the tracepoint: /proc/PID/statm polled, the collector says degraded.
MEMTAP_DISABLE_FEAT=tp-rss "$MEMTAP" record -q -f --access=off -o p.mtap -- "$W" anon 64 >/dev/null ||
	fail "record without the tracepoint failed"
"$MEMTAP" report p.mtap --format json >p.json
check_json p.json 'j["rss"]["mechanism"] == "statm-poll" and j["rss"]["status"] == "degraded" and j["rss"]["peak_bytes"] > 0 and j["rss"]["interval_ns"] >= 10000000' \
	"statm fallback"
ok "statm fallback: $(python3 -c 'import json; r=json.load(open("p.json"))["rss"]; print(r["peak_bytes"] >> 10, "KiB peak,", r["events"], "records")')"
