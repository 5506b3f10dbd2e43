#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Random kills and full disks against `memtap record` of real programs (issue 36).

Every trial records one real program (CPython, sqlite3, llama.cpp through node when a model
is given) wrapped in `sh -c 'PROGRAM >out 2>err; echo $? >status'`, so that the program's
own output and exit status are known whatever happens to the recorder, and compares them
with a bare run of the same program. Modes:

  recorder  SIGKILL to `memtap record` at a random moment of the recording: the program
            finishes with its bare output and status; the trace reads (`memtap info`) to
            its last complete chunk and says it was cut short (one warning line).
  workload  SIGKILL to the program at a random moment: memtap ends with the wrapper's
            status, its trace complete, the program's death by signal 9 in it.
  both      SIGKILL to both at one moment: the trace reads as in 'recorder'; nothing hangs.
  disk      the trace goes to a tmpfs of a random size (8 KiB to 2 MiB, log-uniform):
            the program is unharmed; memtap exits 0 with a complete trace, or non-zero with
            one error line and a readable trace or none — never an empty or unreadable file.

A survived trial whose trace was cut short (the loss stated) or not written (full at the
start) counts as lost. Each trial's outcome is one of: ok, or a failure class (changed, unreadable, unstated,
crash, hang, empty_file, bad_exit). A crash is a memtap process dying of a signal nobody
sent; a hang is one that outlives its time limit (60 s). The table has one row per program
and mode; --json writes the trials. The last disk trial of each program starts with the
disk full: one error line, no trace, and the program not started. Exit status 1 when any trial failed.

usage: soak.py --memtap PATH [--trials N] [--disk N] [--programs python,sqlite[,llama]]
               [--llama-model GGUF --llama-script llama.mjs] [--seed S] [--json FILE]
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

LIMIT_S = 60

PY_PROG = r"""
import hashlib, sys
d = {}
h = hashlib.sha256()
for r in range(6):
    for i in range(60000):
        d[(r, i)] = str(i * 7919 % 10007) * (i % 5 + 1)
    h.update(repr(sorted(d.items())[:2000]).encode())
    for k in [k for k in d if k[1] % 3 == r % 3]:
        del d[k]
print(len(d), h.hexdigest())
sys.exit(3)
"""

SQL_PROG = """
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 120000)
INSERT INTO t SELECT x, hex(x * 2654435761 % 1000003) FROM c;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(a % 97), max(b) FROM t WHERE b LIKE '%A%';
SELECT a % 10, count(*), min(b) FROM t GROUP BY a % 10 ORDER BY 1;
"""


def programs(args, work):
    out = {}
    if "python" in args.programs:
        out["python"] = ["python3", "-c", PY_PROG]
    if "sqlite" in args.programs:
        q = os.path.join(work, "q.sql")
        with open(q, "w") as f:
            f.write(SQL_PROG)
        out["sqlite"] = ["sqlite3", ":memory:", ".read " + q]
    if "llama" in args.programs:
        if not (args.llama_model and args.llama_script):
            sys.exit("soak.py: llama needs --llama-model and --llama-script")
        out["llama"] = ["node", args.llama_script, args.llama_model, "24", "256"]
    return out


def quote(argv):
    return " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)


def wrapper(argv, d):
    return ["sh", "-c", "%s >%s/out 2>%s/err; echo $? >%s/status" % (quote(argv), d, d, d)]


def read(p):
    try:
        with open(p, "rb") as f:
            data = f.read()
    except OSError:
        return None
    # llama.mjs prints its generation's clock readings: the rest of its output is compared
    return b"".join(l for l in data.splitlines(True) if not l.startswith(b"generation "))


def wait_file(p, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        s = read(p)
        if s and s.endswith(b"\n"):
            return s
        time.sleep(0.02)
    return None


def bare(argv, work):
    d = tempfile.mkdtemp(dir=work)
    t0 = time.monotonic()
    subprocess.run(wrapper(argv, d), timeout=LIMIT_S, check=True)
    el = time.monotonic() - t0
    res = (read(d + "/out"), read(d + "/err"), read(d + "/status"))
    shutil.rmtree(d)
    return res, el


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def info(memtap, trace):
    """memtap info on a trace: (rc, json or None, stderr lines); rc None on a hang."""
    try:
        p = subprocess.run([memtap, "info", trace, "--format", "json"], capture_output=True,
                           timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return None, None, []
    try:
        j = json.loads(p.stdout) if p.returncode == 0 else None
    except ValueError:
        j = None
    return p.returncode, j, [l for l in p.stderr.decode(errors="replace").splitlines() if l]


def judge_trace(memtap, trace, expect_complete):
    """A trace after a trial: None when right, else the failure class and what was seen."""
    if not os.path.exists(trace):
        return None if expect_complete is None else ("unreadable", "no trace file")
    if os.path.getsize(trace) == 0:
        return ("empty_file", "a 0-byte trace was left")
    rc, j, err = info(memtap, trace)
    if rc is None:
        return ("hang", "memtap info did not end in %d s" % LIMIT_S)
    if rc < 0:
        return ("crash", "memtap info died of signal %d" % -rc)
    if rc != 0 or j is None:
        return ("unreadable", "memtap info exit %d: %s" % (rc, " | ".join(err)[:300]))
    complete = j["integrity"]["complete"]
    if expect_complete is True and not complete:
        return ("unstated", "the trace should be complete")
    if not complete:
        # the loss is stated: one warning line naming the file
        if len(err) != 1 or os.path.basename(trace) not in err[0]:
            return ("unstated", "cut short, but stderr says: %r" % err)
    return None


def traced(args, argv, work, ref):
    """How long one undisturbed recording of the program takes (its output checked)."""
    d = tempfile.mkdtemp(dir=work)
    t0 = time.monotonic()
    subprocess.run([args.memtap, "record", "-q", "-o", d + "/t.mtap", "--"] + wrapper(argv, d),
                   timeout=LIMIT_S, check=True)
    el = time.monotonic() - t0
    got = (read(d + "/out"), read(d + "/err"), read(d + "/status"))
    shutil.rmtree(d)
    if got != ref:
        sys.exit("soak.py: an undisturbed recording changed the program's output: %r" % (got,))
    return el


def trial(args, name, argv, mode, ref, run_s, work, rng, full=False):
    d = tempfile.mkdtemp(dir=work)
    trace = os.path.join(d, "t.mtap")
    mnt = None
    res = {"program": name, "mode": mode}
    try:
        if mode == "disk":
            mnt = os.path.join(d, "small")
            os.mkdir(mnt)
            # log-uniform from 8 KiB to 2 MiB: most fill up in mid-recording
            size = 4096 if full else int(2 ** rng.uniform(13, 21)) // 4096 * 4096
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % size, "tmpfs", mnt],
                           check=True)
            if full:
                try:
                    with open(os.path.join(mnt, "fill"), "wb") as f:
                        f.write(b"x" * 8192)
                except OSError:
                    pass  # ENOSPC: as meant
            res["disk_bytes"] = size
            trace = os.path.join(mnt, "t.mtap")
        rec = subprocess.Popen([args.memtap, "record", "-q", "-o", trace, "--"] +
                               wrapper(argv, d), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
        at = rng.uniform(0.02, max(0.05, run_s * 0.95))
        res["kill_at_s"] = round(at, 3)
        victims = []
        if mode in ("recorder", "workload", "both"):
            time.sleep(at)
            if mode in ("workload", "both"):
                sh = children(rec.pid)
                victims = [c for s in sh for c in children(s)]
            if mode in ("recorder", "both"):
                victims.append(rec.pid)
            for v in victims:
                try:
                    os.kill(v, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        try:
            _, rerr = rec.communicate(timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            rec.kill()
            rec.wait()
            res["outcome"], res["why"] = "hang", "memtap record did not end in %d s" % LIMIT_S
            return res
        rc = rec.returncode
        rerr = [l for l in rerr.decode(errors="replace").splitlines() if l]
        res["memtap_exit"] = rc
        res["killed"] = len(victims)
        if full:
            # no room for the trace's header: one line, and the program is not started
            if rc > 0 and len(rerr) == 1 and read(d + "/out") is None and (
                    not os.path.exists(trace) or os.path.getsize(trace) == 0):
                res["outcome"] = "ok"
            else:
                res["outcome"], res["why"] = "unstated", "full at the start: exit %d, %r" % (
                    rc, rerr[:4])
            return res
        status = wait_file(d + "/status", LIMIT_S)
        if status is None:
            res["outcome"], res["why"] = "hang", "the program's wrapper never finished"
            return res
        out, err = read(d + "/out"), read(d + "/err")
        workload_killed = mode in ("workload", "both") and len(victims) > (mode == "both")
        if workload_killed and status != b"0\n" and status != ref[2]:
            # killed: the wrapper saw the signal (128 + 9), unless the program was done
            if status != b"137\n":
                res["outcome"], res["why"] = "changed", "program status %r" % status
                return res
            res["program_killed"] = True
        elif (out, err, status) != ref:
            res["outcome"] = "changed"
            res["why"] = "output or status differs from the bare run's (status %r, bare %r)" % (
                status, ref[2])
            return res
        if mode != "recorder" and mode != "both" and rc < 0:
            res["outcome"], res["why"] = "crash", "memtap record died of signal %d" % -rc
            return res
        if mode == "workload" and rc != 0:
            res["outcome"], res["why"] = "bad_exit", "memtap exit %d (the wrapper's is 0): %r" % (
                rc, rerr[-3:])
            return res
        if mode == "disk" and rc != 0 and len(rerr) != 1:
            res["outcome"], res["why"] = "unstated", "memtap exit %d with %d stderr lines: %r" % (
                rc, len(rerr), rerr[:4])
            return res
        expect = {"recorder": False, "both": False, "workload": True,
                  "disk": True if rc == 0 else None}[mode]
        if mode in ("recorder", "both") and rc != -signal.SIGKILL:
            expect = None  # it ended before the kill: complete, or cut short and stated
        bad = judge_trace(args.memtap, trace, expect)
        if bad:
            res["outcome"], res["why"] = bad
            return res
        if os.path.exists(trace):
            _, j, _ = info(args.memtap, trace)
            res["trace_complete"] = j["integrity"]["complete"]
            if mode == "workload" and res.get("program_killed") and not any(
                    p.get("signal") == 9 and p["pid"] in victims for p in j["processes"]):
                res["outcome"], res["why"] = "unstated", "the trace does not say the program was killed"
                return res
        else:
            res["trace_complete"] = None
        res["outcome"] = "ok"
        return res
    finally:
        if mnt:
            subprocess.run(["umount", "-l", mnt], check=False)
        shutil.rmtree(d, ignore_errors=True)


def table(trials):
    """One row per program and mode: trials, survived, lost (traces cut short, the loss
    stated in one line; or, full at the start, none written), crashes, hangs, the rest."""
    rows = {}
    for t in trials:
        r = rows.setdefault((t["program"], t["mode"]), {"trials": 0, "ok": 0, "lost": 0,
                                                        "fail": {}})
        r["trials"] += 1
        if t["outcome"] == "ok":
            r["ok"] += 1
            r["lost"] += t.get("trace_complete") is not True
        else:
            r["fail"][t["outcome"]] = r["fail"].get(t["outcome"], 0) + 1
    print("%-8s %-9s %7s %9s %5s %7s %6s  %s" % ("program", "mode", "trials", "survived", "lost",
                                                "crashes", "hangs", "other failures"))
    for (p, m), r in sorted(rows.items()):
        f = dict(r["fail"])
        cr, hg = f.pop("crash", 0), f.pop("hang", 0)
        print("%-8s %-9s %7d %9d %5d %7d %6d  %s" % (
            p, m, r["trials"], r["ok"], r["lost"], cr, hg,
            ", ".join("%s %d" % kv for kv in sorted(f.items())) or "-"))


def main():
    ap = argparse.ArgumentParser(description="random kills and full disks against memtap record")
    ap.add_argument("--memtap", required=True)
    ap.add_argument("--trials", type=int, default=100, help="per program and kill mode")
    ap.add_argument("--disk", type=int, default=50, help="full-disk trials per program")
    ap.add_argument("--programs", default="python,sqlite")
    ap.add_argument("--modes", default="recorder,workload,both")
    ap.add_argument("--llama-model")
    ap.add_argument("--llama-script")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--json")
    args = ap.parse_args()
    args.programs = args.programs.split(",")
    modes = [m for m in args.modes.split(",") if m]
    if args.disk and os.geteuid() != 0:
        print("soak.py: full-disk trials need root (a tmpfs mount): skipped", file=sys.stderr)
        args.disk = 0
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="memtap-soak.")
    trials = []
    try:
        for name, argv in programs(args, work).items():
            ref, _ = bare(argv, work)
            run_s = traced(args, argv, work, ref)
            plan = [m for m in modes for _ in range(args.trials)] + ["disk"] * max(0, args.disk - 1)
            rng.shuffle(plan)
            if args.disk:
                plan.append("disk_full")
            for i, mode in enumerate(plan):
                t = trial(args, name, argv, mode.split("_")[0], ref, run_s, work, rng,
                          full=mode == "disk_full")
                trials.append(t)
                if t["outcome"] != "ok":
                    print("%s %s trial %d: %s: %s" % (name, mode, i, t["outcome"], t.get("why")),
                          file=sys.stderr)
                if sys.stderr.isatty():
                    print("\r%s: %d/%d" % (name, i + 1, len(plan)), end="", file=sys.stderr)
            if sys.stderr.isatty():
                print(file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("seed %d" % args.seed)
    table(trials)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "trials": trials}, f, indent=1)
    return 1 if any(t["outcome"] != "ok" for t in trials) else 0


if __name__ == "__main__":
    sys.exit(main())
