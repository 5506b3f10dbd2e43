#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap events on a damaged trace whose figures lie at the edges of their types
# (tests/data/spans-extreme.txt): both spans come out, and nothing overflows (the sanitizer
# build halts at the first signed overflow; it once did in analysis/spans.c).
. "$(dirname "$0")/lib.sh"
"$TOOL" gen-text "$SRC/tests/data/spans-extreme.txt" x.mtap || fail "gen-text failed"
"$MEMTAP" events x.mtap --format json >e.json 2>e.err || fail "events failed: $(cat e.err)"
check_json e.json 'sorted(p["probe"] for p in j["per_probe"]) == ["a", "b"]' "the two spans are not both there"
"$MEMTAP" events x.mtap >e.txt 2>e.err || fail "events (text) failed: $(cat e.err)"
ok "spans at the edges of int64_t: summarised, no overflow"
