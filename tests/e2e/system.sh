#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap record -a: the whole machine, stopped by a line END on standard input. Two
# unrelated programs (burst, 3,000 and 5,000 iterations of getppid, mmap of 4 pages, 4
# first-touch faults, munmap, on a byte of input) run their bursts while memtap records and
# strace -f -c -p watches each of them over the same window. Each appears with its own
# figures, and its syscall counts equal strace's: exactly for the burst's calls (getppid,
# mmap, munmap: made only inside the window); read and write within 2 (the read each program
# blocks in when strace attaches or detaches is seen by one side only: strace restarts it at
# its attach, memtap counts a call from its entry). memtap's own calls are not the
# machine's.
. "$(dirname "$0")/lib.sh"
need perf-ring
[ "$(id -u)" = 0 ] || skip "needs root (system-wide perf events and BPF)"
command -v strace >/dev/null || skip "strace is not installed"

B=$WORKLOADS/burst
mkfifo in1 in2 ctl
"$B" 3000 <in1 >o1 2>e1 &
p1=$!
"$B" 5000 <in2 >o2 2>e2 &
p2=$!
# The first program in a cgroup of its own (cgroup v2, where mounted): the report's cgroup
# column tells the two apart.
CG=
for root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -f $root/cgroup.procs ] && mkdir "$root/memtap-test-$$" 2>/dev/null && CG=$root/memtap-test-$$ && break
done
[ -n "$CG" ] && echo $p1 >"$CG/cgroup.procs"
exec 3>in1 4>in2
"$MEMTAP" record -a -o s.mtap --syscalls=summary <ctl 2>rec.err &
mp=$!
exec 5>ctl
trap 'kill $p1 $p2 $mp 2>/dev/null; [ -n "$CG" ] && rmdir "$CG" 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 200); do grep -q "recording the whole system" rec.err && break; sleep 0.05; done
grep -q "recording the whole system" rec.err || fail "memtap -a did not start: $(cat rec.err)"
strace -f -c -o st1 -p $p1 2>s1.err &
sp1=$!
strace -f -c -o st2 -p $p2 2>s2.err &
sp2=$!
for i in $(seq 100); do grep -q attached s1.err && grep -q attached s2.err && break; sleep 0.05; done
sleep 0.2
printf x >&3
printf x >&4
for i in $(seq 400); do grep -q done o1 && grep -q done o2 && break; sleep 0.05; done
grep -q done o1 && grep -q done o2 || fail "the bursts did not finish"
sleep 0.2
kill -INT $sp1 $sp2
wait $sp1 $sp2
echo END >&5
wait $mp || fail "memtap -a failed: $(cat rec.err)"
kill -0 $p1 && kill -0 $p2 || fail "a program did not survive the recording"
exec 3>&- 4>&- 5>&-
wait $p1 $p2

"$MEMTAP" report s.mtap --format json >r.json || fail "report failed"
for p in $p1 $p2; do
	"$MEMTAP" syscalls s.mtap --pid $p --format json >sc$p.json || fail "syscalls --pid $p failed"
done
python3 - r.json $p1 st1 sc$p1.json 3000 $p2 st2 sc$p2.json 5000 $mp "${CG:+/memtap-test-$$}" <<'PY' || fail "the figures are not each program's (above)"
import json, sys
r = json.load(open(sys.argv[1]))
procs = {p["pid"]: p for p in r["processes"]}
ok = r["run"]["system_wide"] and r["run"]["stop_reason"].startswith("stopped")
def strace_counts(path):
    c = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 5 and f[-1] != "total" and f[0][0].isdigit():
            try:
                c[f[-1]] = int(f[3])
            except ValueError:
                pass
    return c
for pid, st, sc, k in ((int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])),
                       (int(sys.argv[6]), sys.argv[7], sys.argv[8], int(sys.argv[9]))):
    s = strace_counts(st)
    m = {x["name"]: x["calls"] for x in json.load(open(sc))["syscalls"]}
    p = procs.get(pid)
    print("  pid %d (%s): memtap %s; strace %s; faults %s, RSS peak %s" % (
          pid, p and p["comm"], {n: m.get(n, 0) for n in ("getppid", "mmap", "munmap", "read", "write")},
          {n: s.get(n, 0) for n in ("getppid", "mmap", "munmap", "read", "write")},
          p and p["faults_minor"], p and p["rss_peak_bytes"]))
    ok = ok and p is not None
    for n in ("getppid", "mmap", "munmap"):
        ok = ok and m.get(n, 0) == s.get(n, 0) == k
    for n in ("read", "write"):
        ok = ok and abs(m.get(n, 0) - s.get(n, 0)) <= 2
    ok = ok and p["faults_minor"] >= 4 * k and p["rss_peak_bytes"]
    # the process's own figure (the top-processes table's): its in-kernel totals, though
    # they are written after it ended
    tot = sum(x["calls"] for x in json.load(open(sc))["syscalls"])
    if p["syscalls"] != tot:
        print("  pid %d: processes[].syscalls %s, its syscalls' total %d" % (pid, p["syscalls"], tot))
        ok = False
if sys.argv[11]: # the first program's cgroup, the second's another
    cg = (procs[int(sys.argv[2])]["cgroup"], procs[int(sys.argv[6])]["cgroup"])
    print("  cgroups: %s, %s" % cg)
    ok = ok and cg[0] == sys.argv[11] and cg[1] not in (None, sys.argv[11])
own = [x for x in r["processes"] if x["pid"] == int(sys.argv[10])]
if own and (own[0]["syscalls"] or own[0]["faults_minor"]):
    print("  the recorder's own events are in the trace: %s" % own[0])
    ok = False
print("  processes in the trace: %d; with syscalls: %d" % (len(r["processes"]),
      sum(1 for x in r["processes"] if x["syscalls"])))
sys.exit(0 if ok else 1)
PY
"$MEMTAP" report s.mtap >r.txt || fail "report failed"
grep -q "the whole system" r.txt && grep -q "top processes" r.txt || fail "the report does not say it is system-wide, or lacks its top processes"
if [ -n "$CG" ]; then
	sed -n '/^top processes/,/^$/p' r.txt | grep -q "cgroup" && grep -q " memtap-test-$$\$" r.txt ||
		fail "the top-processes table does not show the cgroups: $(sed -n '/^top processes/,/^$/p' r.txt)"
	echo $p1 >"$(dirname "$CG")/cgroup.procs" 2>/dev/null
fi
ok "two programs recorded system-wide: their own figures, syscall counts equal to strace's"


# Standard input holding more after its END (a file, a script's here-document): the rest is
# not the recording's business; it once ended as "cannot run '(null)'", the trace deleted.
{
	echo END
	head -c 9000 /dev/zero | tr '\0' 'x'
	echo
} >end.txt
"$MEMTAP" record -a -q -o end.mtap <end.txt >end.out 2>end.err || fail "record -a with input after END failed ($?): $(cat end.err)"
[ ! -s end.err ] || fail "record -a with input after END said: $(cat end.err)"
"$MEMTAP" info end.mtap --format json >end.json || fail "the trace of a recording stopped by END is not readable"
check_json end.json 'j["integrity"]["complete"]' "the trace of a recording stopped by END is not whole"
"$MEMTAP" report end.mtap --format json >endr.json || fail "report of the END-stopped trace failed"
check_json endr.json 'j["run"]["stop_reason"].startswith("stopped")' "the END-stopped trace does not say why it stopped"
ok "END followed by more input: the recording stops there, its trace kept"

# A user without the capability (issue 36): refused in one line naming it, no trace left —
# not a "whole-system" trace of /proc snapshots.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ]; then
	chmod 777 "$T"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$MEMTAP" record -a --duration 1 \
		-o "$T/nobody.mtap" </dev/null >nb.out 2>nb.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <nb.err)" = 1 ] && grep -q "record -a needs CAP_PERFMON" nb.err ||
		fail "record -a by nobody: exit $rc, $(cat nb.err)"
	[ ! -e "$T/nobody.mtap" ] || fail "record -a by nobody left a trace"
	ok "record -a without the capability: $(cat nb.err)"
fi
