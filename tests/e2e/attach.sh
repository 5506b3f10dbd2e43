#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap record --pid: attach to a program that runs already, record, detach; the program
# never notices. attachloop times each iteration of its two threads (CLOCK_MONOTONIC, the
# trace's clock) around known work: one mmap of 8 pages, 8 first-touch faults, one munmap,
# one getppid, one malloc of a known size and its free. Every iteration inside the trace's
# exact window must show exactly that work (faults at its mapping's pages, its three calls),
# and every iteration after the runtime was injected its malloc and free (their times within
# the trace's stated TSC conversion bound of the iteration's), as in a recording
# of the same program launched under memtap; the window's totals are the inside iterations'
# plus at most one iteration per thread at each edge (an iteration the window's start or
# end cuts in two). The runtime's own calls (flagged by it, and memtap's loading of it in
# the thread it held) are not the program's and are left out by their flag. Then a python3 HTTP server under a client's requests and
# redis-server under redis-benchmark: attached, detached, every answer right, the benchmark
# completes without errors, both still serve. Bad --pid values: one line, exit 2.
. "$(dirname "$0")/lib.sh"
need perf-ring

L=$WORKLOADS/attachloop

# check TRACE LOG LAUNCHED: the per-iteration and window checks (above).
check() {
	"$MEMTAP" report "$1" --format json >r.json || fail "report failed"
	"$MEMTAP" dump "$1" --type fault --format csv >f.csv || fail "dump failed"
	"$MEMTAP" syscalls "$1" --list --format csv >s.csv || fail "syscalls --list failed"
	"$MEMTAP" dump "$1" --type alloc --format csv >m.csv || fail "dump failed"
	"$MEMTAP" dump "$1" --type mmap --format jsonl >maps.jsonl || fail "dump failed"
	python3 - r.json f.csv s.csv "$2" "$3" m.csv maps.jsonl <<'PY' || fail "$3: the figures are not the program's (above)"
import bisect, csv, json, sys
r = json.load(open(sys.argv[1]))
launched = sys.argv[5] == "launched"
if launched:
    lo, hi = r["run"]["start_ns"], r["run"]["end_ns"]
    alo = lo
else:
    lo, hi = r["run"]["exact_window_ns"]
    alo = r["run"]["alloc_exact_from_ns"]
    if alo is None or not lo <= alo <= hi:
        print("  no injection time in the window: %s" % alo)
        sys.exit(1)
faults, calls, allocs = {}, {}, {}
# memtap's own memory in the process (the runtime's image, region and arena): faults there
# are memtap's, never the workload's (its runtime's tables are touched by its own code)
own = [(int(m["addr"], 16), int(m["addr"], 16) + m["len"]) for m in map(json.loads, open(sys.argv[7]))
       if m["origin"] == "memtap"]
owned = 0
for row in csv.DictReader(open(sys.argv[2])):
    a = int(row["addr"], 16)
    if any(lo_ <= a < hi_ for lo_, hi_ in own):
        owned += 1
        continue
    faults.setdefault(int(row["tid"]), []).append((int(row["time_ns"]), a))
for row in csv.DictReader(open(sys.argv[3])):
    if row["syscall"] == "rt_sigreturn": # the stop signal's handler, not an iteration's work
        continue
    if row["runtime"] == "1": # memtap's runtime's own call, or its loading
        continue
    calls.setdefault(int(row["tid"]), []).append((int(row["time_ns"]), row["syscall"], int(row["ret"])))
for row in csv.DictReader(open(sys.argv[6])):
    if row["kind"] in ("malloc", "free"):
        allocs.setdefault(int(row["tid"]), []).append((int(row["time_ns"]), row["kind"], int(row["addr"], 16), int(row["size"])))
# by time only: rows of one time keep the dump's order (the trace's: a malloc and its free
# converted from the TSC to one nanosecond stay in the order they were made)
for d in (faults, calls, allocs):
    for v in d.values():
        v.sort(key=lambda x: x[0])
its = [tuple(int(x) for x in l.split()) for l in open(sys.argv[4])]
tids = sorted({t for t, _, _ in its})
inside = [(t, a, b) for t, a, b in its if a >= lo and b <= hi]
edge = [(t, a, b) for t, a, b in its if not (a >= lo and b <= hi) and b >= lo and a <= hi]
def within(lst, a, b):
    ts = [x[0] for x in lst]
    return lst[bisect.bisect_left(ts, a):bisect.bisect_right(ts, b)]
# Each iteration: its three calls, and exactly one fault on each of its mapping's 8 pages.
# A fault elsewhere (the thread's stack: seen once in ~5,000 iterations) is counted apart.
bad = other = 0
for t, a, b in inside:
    c = within(calls.get(t, []), a, b)
    names = sorted(x[1] for x in c)
    base = [x[2] for x in c if x[1] == "mmap"]
    f = within(faults.get(t, []), a, b)
    mine = [x for _, x in f if base and base[0] <= x < base[0] + 8 * 4096]
    other += len(f) - len(mine)
    if len(mine) != 8 or len({x >> 12 for x in mine}) != 8 or names != ["getppid", "mmap", "munmap"]:
        bad += 1
        if bad <= 3:
            print("  iteration of %d at %d: %d faults (%s), calls %s" % (
                  t, a, len(f), " ".join("%x" % x for _, x in f), names))
# Every iteration after the injection: its malloc of 1000 + 100 * thread + n % 16 bytes (the
# leader is thread 0) and the free of that block, nothing else; and in [alo, hi] no malloc but
# those of the iterations inside, and of at most one iteration per thread at each edge.
# Allocation times are TSC readings converted to the clock within the trace's stated bound
# (e2e/time-brackets): a free lies ~20 ns before the iteration's closing clock read.
B = r["alloc"]["time_conversion_bound_ns"] or 0
leader = r["processes"][0]["pid"] if launched else r["run"]["attached_pid"]
seq = {}
abad = ainside = aedge = 0
for t, a, b in its:
    n = seq[t] = seq.get(t, -1) + 1
    if a >= alo and b <= hi:
        ainside += 1
        c = within(allocs.get(t, []), a - B, b + B)
        want = 1000 + 100 * (t != leader) + n % 16
        if not (len(c) == 2 and c[0][1] == "malloc" and c[1][1] == "free" and
                c[0][2] == c[1][2] and c[0][3] == want):
            abad += 1
            if abad <= 3:
                print("  iteration %d of %d at %d: allocations %s" % (n, t, a, c))
                # the thread's rows around it, and where this block's free went
                for x in within(allocs.get(t, []), a - 3000000, b + 3000000):
                    print("    %s %x %d at a%+d b%+d" % (x[1], x[2], x[3], x[0] - a, x[0] - b))
                if c and c[0][1] == "malloc":
                    fr = [(u, x) for u in tids for x in allocs.get(u, [])
                          if x[1] == "free" and x[2] == c[0][2] and x[0] >= c[0][0]][:1]
                    print("    its free: %s" % (["tid %d at b%+d" % (u, x[0] - b) for u, x in fr] or "none"))
    elif b >= alo and a <= hi:
        aedge += 1
amallocs = sum(1 for t in tids for x in allocs.get(t, []) if x[1] == "malloc" and alo <= x[0] <= hi)
print("  allocations: %d iterations from the injection on, each its malloc and free; %d wrong; "
      "%d mallocs in [%d, %d], %d at the edges" % (ainside, abad, amallocs, alo, hi, aedge))
bad += abad
if abad:
    al = r["alloc"]
    print("  alloc: calls %s frees %s reordered_frees %s not_recorded %s nested %s; lost events %s" % (
          al["calls"], al["frees"], al["reordered_frees"], al["not_recorded"],
          al["events_without_stack_nested"], r["run"]["lost_events"]))
if ainside < 100 or (not launched and (not ainside <= amallocs <= ainside + aedge or aedge > 4)):
    bad += 1
mmaps = sum(1 for t in tids for x in calls.get(t, []) if x[1] == "mmap" and lo <= x[0] <= hi)
if not launched: # nothing counted outside the window
    out = [x for t in tids for x in faults.get(t, []) + calls.get(t, []) if not lo <= x[0] <= hi]
    if out:
        print("  %d events outside the exact window" % len(out))
        bad += 1
print("  %s: %d threads, %d iterations inside the window (%.3f s), %d at its edges; "
      "%d wrong; %d other faults (%d more on memtap's own memory); mmap calls in the window %d" % (
      sys.argv[5], len(tids), len(inside), (hi - lo) / 1e9, len(edge), bad, other, owned, mmaps))
ok = bad == 0 and len(tids) == 2 and len(inside) > 100 and other * 100 <= len(inside)
if not launched: # the launched program's start maps its libraries too
    ok = ok and len(inside) <= mmaps <= len(inside) + len(edge) and len(edge) <= 4
sys.exit(0 if ok else 1)
PY
}

# 1. Launched under memtap: the reference (every iteration exact).
"$MEMTAP" record -q -o l.mtap --syscalls -- "$L" l.log 1 >l.out 2>l.err || fail "launched record failed: $(cat l.err)"
check l.mtap l.log launched
ok "launched: every iteration shows its 8 faults, 3 calls, its malloc and free"

# 2. Attached: the program started bare, recorded 2 s, detached; it runs on.
"$L" a.log >a.out 2>a.err &
lp=$!
for i in $(seq 100); do grep -q ready a.err && break; sleep 0.05; done
sleep 0.3
"$MEMTAP" record -q -o a.mtap --syscalls --pid $lp --duration 2 2>rec.err || fail "attach failed: $(cat rec.err)"
t_detach=$(mono_ns)
sleep 0.5
kill -0 $lp 2>/dev/null || fail "the program did not survive the detach"
kill -TERM $lp
wait $lp || fail "the program exited with $? after the detach"
grep -q '^iterations=' a.out || fail "the program's output changed: $(cat a.out)"
python3 -c 'import sys; t = int(sys.argv[1]); sys.exit(0 if sum(1 for l in open(sys.argv[2]) if int(l.split()[1]) > t) > 50 else 1)' \
	"$t_detach" a.log || fail "the program did not go on iterating after the detach"
check a.mtap a.log attached
"$MEMTAP" report a.mtap >a.txt || fail "report failed"
grep -q "attached .*pid $lp: figures from the attach on" a.txt || fail "the report does not say it was attached"
grep -q "traced from .*when the runtime was loaded into the running process" a.txt || fail "the report does not say from when allocations are exact"
grep -q "live at the detach" a.txt || fail "the report calls the blocks live at the detach leaked"
check_json r.json 'j["alloc"]["calls"] > 100 and j["run"]["exit_status"] is None' "no allocation figures for the attached process"
ok "attached: exact per iteration in the window (allocations from the injection on), the program unharmed and running on"

# 2b. Attached three times in a row, with --no-alloc once: the runtime is loaded once, given
#     its calls back at each detach and taken up again; each recording has the program's
#     allocations; the program runs on and ends as it would.
"$L" b.log >b.out 2>b.err &
lp=$!
for i in $(seq 100); do grep -q ready b.err && break; sleep 0.05; done
for k in 1 2 3; do
	na=; [ $k = 2 ] && na=--no-alloc
	MEMTAP_DEBUG=1 "$MEMTAP" record -q -o b$k.mtap $na --pid $lp --duration 0.4 2>b$k.err || fail "attach $k failed: $(cat b$k.err)"
	"$MEMTAP" report b$k.mtap --format json >b$k.json || fail "report $k failed"
	if [ $k = 2 ]; then
		check_json b$k.json '(j.get("alloc") or {}).get("calls") is None and j["run"]["alloc_exact_from_ns"] is None' "--no-alloc attach $k has allocation figures"
	else
		check_json b$k.json 'j["alloc"]["calls"] > 50' "attach $k lacks the program's allocations"
		grep -q "call slots given back to its allocator" b$k.err || fail "attach $k did not give the calls back: $(grep -v perf b$k.err | tail -3)"
	fi
done
[ "$(grep -c "libmemtap-rt" /proc/$lp/maps | tr -d ' ')" -ge 1 ] || fail "the runtime is not loaded in the program"
kill -TERM $lp
wait $lp || fail "the program exited with $? after three attaches"
grep -q '^iterations=' b.out || fail "the program's output changed: $(cat b.out)"
ok "attached three times: allocations each time the runtime was on, the program ends as it would"

# 2c. A process another tracer holds (strace): refused in one line, exit 2, unless --no-alloc.
if command -v strace >/dev/null; then
	strace -o /dev/null sleep 30 &
	stp=$!
	for i in $(seq 100); do tp=$(pgrep -P $stp sleep) && break; sleep 0.05; done
	[ -n "$tp" ] || fail "no traced sleep"
	"$MEMTAP" record -q -o x.mtap --pid $tp >x.out 2>x.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <x.err)" = 1 ] && grep -q "is traced by pid $stp" x.err ||
		fail "a traced process: exit $rc, $(cat x.err)"
	[ -e x.mtap ] && fail "a trace was left for a traced process"
	"$MEMTAP" record -q -o y.mtap --no-alloc --pid $tp --duration 0.2 2>y.err || fail "--no-alloc of a traced process failed: $(cat y.err)"
	kill $tp $stp 2>/dev/null
	wait $stp 2>/dev/null
	ok "a process traced by strace: one line, exit 2; with --no-alloc recorded"
fi


# 2d. Two processes at once (--pid A,B): each with its own faults, system calls (counted per
#     process in the kernel) and allocations; both run on and end as they would.
"$L" c1.log >c1.out 2>c1.err &
c1=$!
"$L" c2.log >c2.out 2>c2.err &
c2=$!
for i in $(seq 100); do grep -q ready c1.err && grep -q ready c2.err && break; sleep 0.05; done
"$MEMTAP" record -q -o two.mtap --syscalls=summary --pid $c1,$c2 --duration 1 2>two.err || fail "--pid A,B failed: $(cat two.err)"
kill -TERM $c1 $c2
wait $c1 || fail "the first program exited with $? after the detach"
wait $c2 || fail "the second program exited with $? after the detach"
grep -q '^iterations=' c1.out && grep -q '^iterations=' c2.out || fail "a program's output changed"
"$MEMTAP" report two.mtap --format json >two.json || fail "report failed"
python3 - two.json $c1 $c2 <<'PY' || fail "--pid A,B: the processes' figures are not each their own (above)"
import json, sys
j = json.load(open(sys.argv[1]))
want = [int(sys.argv[2]), int(sys.argv[3])]
p = {x["pid"]: x for x in j["processes"]}
print("  --pid %d,%d: attached_pids %s; faults %s, syscalls %s; allocation calls %d" % (
      want[0], want[1], j["run"]["attached_pids"], [p[w]["faults_minor"] for w in want if w in p],
      [p[w]["syscalls"] for w in want if w in p], j["alloc"]["calls"]))
ok = j["run"]["attached_pids"] == want and all(w in p for w in want)
# each iteration: 8 faults and 3 calls (getppid, mmap, munmap) besides the runtime's; ~700
# iterations a second per process
ok = ok and all(p[w]["faults_minor"] > 8 * 300 and p[w]["syscalls"] > 3 * 300 for w in want)
ok = ok and j["alloc"]["calls"] > 2 * 300
sys.exit(0 if ok else 1)
PY
ok "--pid A,B: both processes recorded with their own figures, both run on"

# 3. Bad --pid values: one line, exit 2.
bad() {
	"$MEMTAP" record -q -o x.mtap --pid "$1" >x.out 2>x.err
	rc=$?
	[ $rc = 2 ] || fail "--pid $1: exit $rc, not 2 ($(cat x.err))"
	[ "$(wc -l <x.err)" = 1 ] || fail "--pid $1: not one line: $(cat x.err)"
	grep -q "$2" x.err || fail "--pid $1: '$(cat x.err)' does not say '$2'"
	[ -e x.mtap ] && fail "--pid $1: a trace was left"
	return 0
}
bad 4000000 "no such process"
bad 2 "kernel thread"
bad abc "not a process id"
bad "$$,$$" "is given twice"
bad "$$," "not a process id"
"$L" t.log 1 >/dev/null 2>&1 &
tp=$!
sleep 0.2
bad "$(ls /proc/$tp/task | grep -v "^$tp\$" | head -1)" "is a thread of process $tp"
wait $tp
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	sleep 31 &
	sp=$!
	setpriv --reuid=65534 --regid=65534 --clear-groups "$MEMTAP" record -q -o /tmp/x-$$.mtap --pid $sp >x.out 2>x.err
	rc=$?
	kill $sp
	[ $rc = 2 ] && grep -q "belongs to another user" x.err || fail "another user's process: exit $rc, $(cat x.err)"
fi
ok "bad --pid values: one line each, exit 2"

# 4. A python3 server answering requests, attached for 1 s while a client keeps asking:
#    every answer right before, during and after; it serves on after the detach.
cat >srv.py <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("%s:%d\n" % (self.path, sum(range(len(self.path) * 1000)))).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
cat >cli.py <<'PY'
import sys, time, urllib.request
port, secs = int(sys.argv[1]), float(sys.argv[2])
n, bad, t0 = 0, 0, time.monotonic()
while time.monotonic() - t0 < secs:
    path = "/q%d" % n
    got = urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5).read().decode()
    bad += got != "%s:%d\n" % (path, sum(range(len(path) * 1000)))
    n += 1
print("requests=%d wrong=%d" % (n, bad))
PY
# The server is Debian's python3 where there is one: a non-PIE executable that takes malloc's
# address, so the global "malloc" is its own PLT entry, which jumps through the slot the
# runtime rewrites (taken for the real malloc, the hook called itself until the stack ran
# out: the server crashed). Its allocations must be the real allocator's.
PY3=python3
[ -x /usr/bin/python3 ] && PY3=/usr/bin/python3
"$PY3" srv.py >srv.out 2>srv.err &
pp=$!
for i in $(seq 100); do [ -s srv.out ] && break; sleep 0.05; done
port=$(head -1 srv.out)
python3 cli.py "$port" 3 >cli.out &
cp=$!
sleep 0.8
"$MEMTAP" record -q -o py.mtap --syscalls --pid $pp --duration 1 2>prec.err || fail "attach to python3 failed: $(cat prec.err)"
wait $cp || fail "the client failed while python3 was attached"
grep -q "wrong=0" cli.out || fail "python3 answered wrongly: $(cat cli.out)"
python3 cli.py "$port" 0.5 >cli2.out || fail "python3 does not serve after the detach"
grep -q "wrong=0" cli2.out || fail "python3 answers wrongly after the detach: $(cat cli2.out)"
kill $pp
"$MEMTAP" report py.mtap --format json >py.json || fail "report failed"
check_json py.json '[s for s in j["syscalls"] if s["name"] in ("accept4", "accept")][0]["calls"] > 10' \
	"the python3 recording lacks its accepted connections"

# its allocations, with the Python code that made them (the injected runtime reads the frames)
"$MEMTAP" report py.mtap >py.txt || fail "report failed"
check_json py.json 'j["alloc"]["calls"] > 100 and j["run"]["alloc_exact_from_ns"]' "the python3 recording lacks its allocations"
grep -q "server.py\\|socket.py\\|feedparser.py\\|client.py" py.txt || fail "no Python frames in the attached python3's allocation sites"
ok "python3 server attached under requests and detached: $(cat cli.out), serves on"

# 5. redis-server under redis-benchmark, attached for 2 s.
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null || skip "redis is not installed"
port=$((20000 + $$ % 20000))
redis-server --port $port --save '' --appendonly no --daemonize no >redis.log 2>&1 &
rp=$!
for i in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
redis-benchmark -p $port -n 150000 -c 20 -t set,get,lpush,lpop -q >bench.out 2>bench.err &
bp=$!
sleep 0.3
"$MEMTAP" record -q -o redis.mtap --syscalls=summary --pid $rp --duration 2 2>rrec.err || fail "attach to redis failed: $(cat rrec.err)"
wait $bp || fail "redis-benchmark failed after the detach: $(cat bench.err)"
grep -qi "error" bench.out bench.err && fail "redis-benchmark saw errors: $(cat bench.out bench.err)"
[ "$(grep -c 'requests per second' bench.out)" = 4 ] || fail "redis-benchmark did not complete its 4 tests: $(cat bench.out)"
[ "$(redis-cli -p $port ping)" = PONG ] || fail "redis does not serve after the detach"
redis-cli -p $port set k v >/dev/null && [ "$(redis-cli -p $port get k)" = v ] || fail "redis lost a write after the detach"
redis-cli -p $port shutdown nosave >/dev/null 2>&1
wait $rp
"$MEMTAP" report redis.mtap --format json >rr.json || fail "report failed"
python3 - rr.json <<'PY' || fail "the redis recording lacks its figures (above)"
import json, sys
j = json.load(open(sys.argv[1]))
sc = {s["name"]: s["calls"] for s in j["syscalls"]}
rw = sc.get("read", 0) + sc.get("write", 0)
a = j["alloc"]
print("  redis attached 2 s: %d read+write calls, epoll_wait %d, faults %s, peak RSS %s; "
      "allocations %s (jemalloc's, through the injected runtime), frees %s" % (
      rw, sc.get("epoll_wait", 0), j["faults"]["minor"], j["rss"]["peak_bytes"], a["calls"], a["frees"]))
sys.exit(0 if rw > 1000 and sc.get("epoll_wait", 0) > 0 and j["rss"]["peak_bytes"] and
         a["calls"] > 10000 and a["frees"] > 10000 else 1)
PY
ok "redis-server attached under load and detached: the benchmark completed, redis serves"
