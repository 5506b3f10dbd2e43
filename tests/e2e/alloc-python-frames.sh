#!/bin/sh
# SPDX-License-Identifier: MIT
# Python frames in allocation stacks (issue 16), against a workload with a known answer
# (workloads/pyframes.py): every allocating case's stack holds its Python frames, innermost
# first, each with the line marked "# at:NAME" in the source, in place of the eval loop's
# native frame (no _PyEval_EvalFrameDefault left where Python frames are), with the native
# frames of a C call between Python frames kept (sorted() calling a key function), for a
# generator, a thread, a fork child (its parent's function ids) and an exec'd image (ids
# from 1 again), and no crash when CPython frees a frame-stack chunk under its current frame.
# --no-python-frames records native stacks only, and says so. A stress workload (asyncio,
# threads, pools over fork and spawn, a subprocess, 2,500 frames deep) keeps its output and
# status, and its left-out outer frames are counted.
. "$(dirname "$0")/lib.sh"
need ptrace
PY=/usr/bin/python3
"$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null ||
	skip "Debian's CPython 3.11 (/usr/bin/python3) is not installed"
W="$SRC/tests/e2e/workloads/pyframes.py"

"$MEMTAP" record -q -o t.mtap -- "$PY" "$W" >t.out 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json -s alloc -n 60 >r.json || fail "report failed"
"$MEMTAP" info t.mtap --format json >i.json || fail "info failed"
python3 - r.json i.json "$W" <<'PY' || fail "Python frames are wrong (above)"
import json, re, sys
alloc = json.load(open(sys.argv[1]))["alloc"]
info = json.load(open(sys.argv[2]))
at = {}
for n, line in enumerate(open(sys.argv[3]), 1):
    m = re.search(r"# at:(\w+)", line)
    if m:
        at[m.group(1)] = n
coll = next(c for c in info["collectors"] if c["name"] == "alloc")["details"]
print("collector:", {k: v for k, v in coll.items() if k.startswith("python")})
assert coll["python_frames"].startswith("on: "), coll["python_frames"]
n = {k: int(v) for k, v in coll.items() if k.startswith("python_") and v.isdigit()}
assert n["python_functions"] > 0 and n["python_functions_lost"] == 0, coll
# deep(d) goes 400 Python frames deep: past 256 the outer ones are left out, and counted
assert n["python_stacks"] > 0 and n["python_stacks_unplaced"] > 0, coll

def pyframes(site):
    return [(f["function"], f["line"]) for f in site["frames"] if f["python"]]

def find(func):
    sites = [s for s in alloc["top_sites"] if pyframes(s) and pyframes(s)[0][0] == func]
    assert sites, "no site whose innermost Python frame is %s" % func
    return max(sites, key=lambda s: s["calls"])

def expect(func, want, calls):
    s = find(func)
    got = pyframes(s)
    print("%-10s %3d calls  %s" % (func, s["calls"], " < ".join("%s:%s" % g for g in got)))
    assert got[:len(want)] == want, "%s: %s, expected to start %s" % (func, got, want)
    assert s["calls"] >= calls, "%s: %d calls, expected %d" % (func, s["calls"], calls)
    names = [f["function"] for f in s["frames"]]
    assert "_PyEval_EvalFrameDefault" not in names, "an eval frame is left: %s" % names
    assert all(f["file"].endswith(("pyframes.py", "threading.py")) for f in s["frames"]
               if f["python"]), s["frames"]
    return s

expect("inner", [("inner", at["inner"]), ("middle", at["middle"]), ("outer", at["outer"]),
                 ("<module>", at["module"])], 50)
s = expect("key_alloc", [("key_alloc", at["key"]), ("<module>", at["sorted"])], 20)
# sorted() is native code between the two Python frames: its frames stay
i = [f["python"] for f in s["frames"]].index(True)
rest = s["frames"][i + 1:]
j = [f["python"] for f in rest].index(True)
assert j >= 1, "no native frame between key_alloc and its caller: %s" % s["frames"]
expect("gen_body", [("gen_body", at["gen"]), ("consume.<locals>.<listcomp>", at["consume"]),
                    ("consume", at["consume"]), ("<module>", at["consume_call"])], 20)
w = expect("worker", [("worker", at["worker"]), ("Thread.run", None)][:1], 20)
assert [f for f, _ in pyframes(w)][1:] == ["Thread.run", "Thread._bootstrap_inner",
                                          "Thread._bootstrap"], pyframes(w)
c = expect("child_work", [("child_work", at["child"]), ("<module>", at["child_call"])], 20)
e = expect("after_exec", [("after_exec", at["exec"]), ("<module>", at["exec_call"])], 20)
# the whole-stack cache: the same inner frames from two lines in turn, each line's 40 calls
# its own; code objects compiled afresh (one may reuse the last one's address) named right
alt = {}
for s in alloc["top_sites"]:
    f = pyframes(s)
    if len(f) >= 3 and f[0] == ("leaf_alloc", at["leaf"]) and f[1] == ("via", at["via"]):
        alt[f[2]] = alt.get(f[2], 0) + s["calls"]
print("alternate:", alt)
assert alt == {("alternate", at["alt_a"]): 40, ("alternate", at["alt_b"]): 40}, alt
gen = {}
for s in alloc["top_sites"]:
    f = [(x["function"], x["file"].rsplit("/", 1)[-1]) for x in s["frames"] if x["python"]]
    if f and f[0][0] in ("f_0", "f_1"):
        gen[f[0]] = gen.get(f[0], 0) + s["calls"]
print("recompiled:", gen)
assert gen == {("f_0", "gen_0.py"): 20, ("f_1", "gen_1.py"): 20}, gen
parent = find("inner")["pid"]
assert c["pid"] != parent and e["pid"] == c["pid"], (parent, c["pid"], e["pid"])
PY
ok "Python frames in place, with their lines, across C calls, generators, threads, fork and exec"

# The folded stacks carry them too (flame graphs of Python code).
"$MEMTAP" export t.mtap --to folded -o f.txt || fail "folded export failed"
grep -q "<module> (.*pyframes.py:$(grep -n '# at:module' "$W" | cut -d: -f1));outer (.*pyframes.py:" f.txt ||
	fail "the folded stacks lack the Python frames: $(grep pyframes f.txt | head -3)"
ok "folded stacks name Python frames with file:line"

"$MEMTAP" record -q -f --no-python-frames -o n.mtap -- "$PY" "$W" >n.out 2>n.err ||
	fail "record --no-python-frames failed: $(cat n.err)"
"$MEMTAP" report n.mtap --format json -s alloc -n 60 >n.json || fail "report failed"
"$MEMTAP" info n.mtap --format json >ni.json || fail "info failed"
check_json n.json 'not any(f["python"] for s in j["alloc"]["top_sites"] for f in s["frames"])' \
	"--no-python-frames recorded Python frames"
check_json ni.json 'next(c for c in j["collectors"] if c["name"] == "alloc")["details"]["python_frames"].startswith("off")' \
	"--no-python-frames is not said"
ok "--no-python-frames: native stacks only, said in the trace"

run_same pystress "$PY" "$SRC/tests/e2e/workloads/pystress.py"
[ "$rrc" = 0 ] || fail "pystress: exit status $rrc"
"$MEMTAP" info r.mtap --format json >si.json || fail "info failed"
check_json si.json 'int(next(c for c in j["collectors"] if c["name"] == "alloc")["details"]["python_stacks_unplaced"]) > 0 and next(c for c in j["collectors"] if c["name"] == "alloc")["details"]["python_frames"].startswith("on: 7 processes")' \
	"pystress: 7 CPython processes with frames read, and the 2,500-deep stacks' left-out frames counted"
ok "stress: asyncio, threads, fork and spawn pools, a subprocess, deep recursion: output and status unchanged"

# Other CPythons (pyenv's, when this machine has them): 3.11.x read, others refused and said.
for real in /root/.pyenv/versions/3.1[0-9]*/bin/python3; do
	[ -x "$real" ] || continue
	v=$("$real" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])') || continue
	"$MEMTAP" record -q -f -o o.mtap -- "$real" -c 'x = [bytearray(100000) for _ in range(10)]' >o.out 2>o.err ||
		fail "record of $real failed: $(cat o.err)"
	"$MEMTAP" info o.mtap --format json >oi.json || fail "info failed"
	said=$(python3 -c 'import json,sys; print(next(c for c in json.load(open(sys.argv[1]))["collectors"] if c["name"] == "alloc")["details"]["python_frames"])' oi.json)
	case $v in
	3.11.*) want="on: 1 processes of CPython $v" ;;
	3.10.*) want="unsupported: CPython before 3.11 " ;;
	*) want="unsupported: CPython $v " ;;
	esac
	case $said in
	"$want"*) ok "CPython $v: $said" ;;
	*) fail "CPython $v: '$said', expected '$want...'" ;;
	esac
done
