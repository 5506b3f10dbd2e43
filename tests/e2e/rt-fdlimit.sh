#!/bin/sh
# SPDX-License-Identifier: MIT
# 1,100 traced processes alive at once, each with its runtime's connection, under the
# common soft limit of 1,024 descriptors (the recorder raises its own to the hard limit)
# and under a hard limit of 1,024 (connections wait until descriptors free): every process
# is traced, or counted untraced with the reason.
. "$(dirname "$0")/lib.sh"
need ptrace

for lim in -Sn -n; do
	sh -c "ulimit $lim 1024 && exec \"\$0\" record -q -o k$lim.mtap -- \"\$1\" 1100" "$MEMTAP" "$WORKLOADS/manykids" \
		>k.out 2>k.err || fail "ulimit $lim 1024: record failed: $(cat k.err)"
	grep -q '^children=1100$' k.out || fail "ulimit $lim 1024: the workload's children failed: $(cat k.out)"
	"$MEMTAP" info "k$lim.mtap" --format json >k.json || fail "info failed"
	python3 - k.json "$lim" <<'PY' || fail "ulimit $lim 1024: processes neither traced nor counted (above)"
import json, sys
j = json.load(open(sys.argv[1]))
a = [c for c in j["collectors"] if c["name"] == "alloc"][0]
d = a["details"]
traced, untraced = int(d["processes_traced"]), int(d["processes_untraced"])
print("  ulimit %s 1024: %d processes, %d traced, %d untraced (%s), %d alloc events, "
      "accept() out of descriptors %s times" % (sys.argv[2], len(j["processes"]), traced,
      untraced, d.get("untraced", "-")[:80], a["events"], d["recorder_descriptors_exhausted"]))
# each child: a malloc and a free; the parent: stdout's buffer
ok = traced + untraced == 1101 and len(j["processes"]) == 1101
ok = ok and (untraced > 0 or a["events"] == 2 * 1100 + 1)
sys.exit(0 if ok else 1)
PY
done
ok "1,100 concurrent processes under a 1,024-descriptor limit: all traced or counted"
