#!/bin/sh
# SPDX-License-Identifier: MIT
# A trace's strings are its workload's: an argv with terminal escapes (ESC, CR, LF, a C1
# CSI in UTF-8 and as a raw byte, a right-to-left override) must reach nobody's terminal
# raw through info, report (text, Markdown, JSON), dump or an error message, and
# program names that a spreadsheet would evaluate (=, @) are neutralised in CSV unless
# --csv-raw.
. "$(dirname "$0")/lib.sh"
need ptrace

evil=$(printf 'x\033[2J\033]0;pwned\007\rFAKE\nline\302\233end\233raw\342\200\256rlo')
"$MEMTAP" record -q -o e.mtap -- sh -c 'exit 0' "$evil" || fail "record failed"
# raw: no ESC, BEL or CR, no C1 control (UTF-8 or a raw 0x9B byte), no bidirectional
# control may come out; the escapes must be shown instead
raw_free() {
	python3 - "$1" "$2" "${3:-1}" <<'PY' || fail "$2: control characters printed raw (above)"
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in (b"\x1b", b"\x07", b"\r") if c in b]
try:
    t = b.decode("utf-8")
    bad += ["U+%04X" % ord(c) for c in t if 0x80 <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e]
except UnicodeDecodeError as e:
    bad.append("not UTF-8: %s" % e)
shown = b"\\e[2J" in b or b"\\u001b[2J" in b
if bad or (sys.argv[3] == "1" and not shown):
    print(sys.argv[2], "raw:", bad, "escaped ESC shown:", shown)
    sys.exit(1)
PY
}
"$MEMTAP" info e.mtap >info.txt || fail "info failed"
raw_free info.txt "info"
grep -q 'x\\e\[2J\\e\]0;pwned\\a\\rFAKE\\nline\\x9bend\\x9braw\\u202erlo' info.txt || { grep command info.txt; fail "info: the command is not shown escaped"; }
"$MEMTAP" report e.mtap >rep.txt || fail "report failed"
raw_free rep.txt "report (text)"
"$MEMTAP" report e.mtap --format md >rep.md || fail "report --format md failed"
raw_free rep.md "report (Markdown)"
"$MEMTAP" dump e.mtap >dump.jsonl || fail "dump failed"
raw_free dump.jsonl "dump (JSON lines)"
"$MEMTAP" report e.mtap --format json >rep.json || fail "report --format json failed"
raw_free rep.json "report (JSON)"
python3 -c 'import json, sys; a = [e for e in map(json.loads, open("dump.jsonl")) if e["type"] == "task_exec"][0]["argv"][3]; sys.exit(0 if "\u202e" in a and "\x9b" in a else 1)' ||
	fail "dump: the argument's characters are not kept (escaped in JSON, the same once read)"
# stderr: a path holding controls names itself escaped, on one line
"$MEMTAP" info "$evil" 2>err.txt && fail "info of a missing file succeeded"
raw_free err.txt "stderr"
[ "$(wc -l <err.txt)" = 1 ] || fail "stderr: the message takes more than one line: $(cat err.txt)"
ok "info, report (text, Markdown, JSON), dump and stderr show ESC, BEL, CR, LF, C1 (UTF-8 or raw) and bidirectional controls escaped"

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
