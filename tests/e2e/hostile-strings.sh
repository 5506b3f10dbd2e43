#!/bin/sh
# SPDX-License-Identifier: MIT
# A trace's strings are its workload's: an argv with terminal escapes (ESC, CR, LF, a C1
# CSI) must reach nobody's terminal raw through info or report (text, Markdown), and
# program names that a spreadsheet would evaluate (=, @) are neutralised in CSV unless
# --csv-raw.
. "$(dirname "$0")/lib.sh"
need ptrace

evil=$(printf 'x\033[2J\033]0;pwned\007\rFAKE\nline\302\233end')
"$MEMTAP" record -q -o e.mtap -- sh -c 'exit 0' "$evil" || fail "record failed"
# raw: no ESC, BEL, CR or C1 byte may come out; the escapes must be shown instead
raw_free() {
	python3 - "$1" "$2" <<'PY' || fail "$2: control characters printed raw (above)"
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in (b"\x1b", b"\x07", b"\r", b"\xc2\x9b") if c in b]
if bad or b"\\e[2J" not in b:
    print(sys.argv[2], "raw:", bad, "escaped ESC shown:", b"\\e[2J" in b)
    sys.exit(1)
PY
}
"$MEMTAP" info e.mtap >info.txt || fail "info failed"
raw_free info.txt "info"
grep -q 'x\\e\[2J\\e\]0;pwned\\a\\rFAKE\\nline\\x9bend' info.txt || { grep command info.txt; fail "info: the command is not shown escaped"; }
"$MEMTAP" report e.mtap >rep.txt || fail "report failed"
raw_free rep.txt "report (text)"
"$MEMTAP" report e.mtap --format md >rep.md || fail "report --format md failed"
raw_free rep.md "report (Markdown)"
ok "info and report (text, Markdown) show ESC, BEL, CR, LF and C1 escaped"

cp /bin/true "./=1+2"
cp /bin/true "./@SUM(A1)"
"$MEMTAP" record -q -o f.mtap -- sh -c './=1+2; "./@SUM(A1)"' || fail "record failed"
"$MEMTAP" export f.mtap --to csv -o csv || fail "export failed"
grep -q "^[0-9]*,[0-9]*,\"'=1+2\"," csv/processes.csv || { cat csv/processes.csv; fail "a formula cell is not neutralised"; }
grep -q "\"'@SUM(A1)\"" csv/processes.csv || fail "an @ cell is not neutralised"
"$MEMTAP" report f.mtap --format csv --section processes >p.csv || fail "report csv failed"
grep -q "^[0-9]*,[0-9]*,.*,\./=1+2$" p.csv || fail "report csv lost the row"
"$MEMTAP" export f.mtap --to csv --csv-raw -f -o csv || fail "export --csv-raw failed"
grep -q "^[0-9]*,[0-9]*,=1+2," csv/processes.csv || fail "--csv-raw did not keep the cell raw"
ok "CSV: cells starting with = or @ neutralised (OWASP), kept raw with --csv-raw"
