#!/bin/sh
# SPDX-License-Identifier: MIT
# The seed's own formulas (iai, locality, read_freq), written with pandas as mrm-trace wrote
# them, give memtap's numbers on the synthetic trace (skips without Debian's python3-pandas).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$TOOL" gen-text "$SRC/tests/data/behavior.txt" b.mtap || fail "gen-text failed"
"$MEMTAP" report b.mtap --format json >r.json || fail "report failed"
"$PY" "$SRC/tests/e2e/behavior_reference.py" "$SRC/tests/data/behavior.txt" r.json
rc=$?
[ $rc = 77 ] && skip "no pandas"
[ $rc = 0 ] || fail "memtap and the pandas reference differ (above)"
ok "equal to the pandas reference"
