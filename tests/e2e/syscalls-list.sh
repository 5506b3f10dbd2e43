#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap syscalls --list as data (issue 14, item 8): the CSV has as many fields in every row
# as in its header (parsed by Python's csv module and by DuckDB), the arguments a call does
# not take are empty, and the JSON carries each call's arguments under the kernel's names;
# a one-argument call such as unlink prints one argument.
. "$(dirname "$0")/lib.sh"
need perf-ring tp-syscalls
command -v perl >/dev/null || skip "perl is not installed"

"$MEMTAP" record -q --syscalls -o t.mtap -- perl -e 'open(F, ">z") or die; close F; unlink "z" or die; mkdir "d"; rmdir "d"' \
	>/dev/null 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" syscalls t.mtap --list --format csv >l.csv || fail "--list csv failed"
"$MEMTAP" syscalls t.mtap --list --format json >l.json || fail "--list json failed"
"$MEMTAP" syscalls t.mtap --list >l.txt || fail "--list failed"
python3 - <<'PY' || fail "the per-call lists are off (above)"
import csv, json
rows = list(csv.reader(open("l.csv", newline="")))
head, body = rows[0], rows[1:]
bad = [r for r in body if len(r) != len(head)]
assert not bad, ("rows with %d fields under %d columns" % (len(bad[0]), len(head)), bad[0])
recs = list(csv.DictReader(open("l.csv", newline="")))
u = [r for r in recs if r["syscall"] == "unlink"]
assert len(u) == 1 and u[0]["path"] == "z", u
assert u[0]["a0"] and not any(u[0]["a%d" % i] for i in range(1, 6)), u[0]
j = json.load(open("l.json"))
assert len(j) == len(body), (len(j), len(body))
uj = [x for x in j if x["syscall"] == "unlink"][0]
assert list(uj["args"]) == ["pathname"] and uj["call"] == 'unlink("z")', uj
r = [x for x in j if x["syscall"] == "rmdir"][0]
assert list(r["args"]) == ["pathname"], r
print(len(body), "calls; unlink:", uj["call"])
PY
grep -q ' unlink("z") = 0 ' l.txt || fail "text: $(grep unlink l.txt)"
ok "CSV rows match their header, arguments decoded by each call's arity"

need_npm @duckdb/node-api@1.5.6-r.1
cp "$SRC/tests/e2e/duck-query.mjs" "$NPM_DIR/"
node "$NPM_DIR/duck-query.mjs" "SELECT count(*) AS n, count(a3) AS a3, count(path) AS paths FROM read_csv('$T/l.csv', header = true, all_varchar = true) WHERE syscall = 'unlink'" >d.json ||
	fail "DuckDB could not read the CSV"
python3 -c 'import json; r = json.load(open("d.json"))[0]; exit(0 if (str(r["n"]), str(r["a3"]), str(r["paths"])) == ("1", "0", "1") else 1)' ||
	fail "DuckDB reads the CSV differently: $(cat d.json)"
node "$NPM_DIR/duck-query.mjs" "SELECT count(*) AS n FROM read_csv('$T/l.csv', header = true, all_varchar = true)" >n.json || fail "DuckDB count failed"
python3 -c 'import csv, json; n = int(json.load(open("n.json"))[0]["n"]); m = sum(1 for _ in csv.DictReader(open("l.csv"))); exit(0 if n == m else 1)' ||
	fail "DuckDB and Python disagree on the rows"
ok "DuckDB reads the same rows"
