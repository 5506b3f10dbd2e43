# SPDX-License-Identifier: MIT
"""The sway trace analyzer's semantics (seed 001), restated independently for the tests:
usage: events_reference.py FILE.jsonl MEMTAP.json -- exits 0 when memtap's figures equal
these, bit for bit (bench/events.sh imports its load() as the seed's way of reading). Lines that are not JSON objects are skipped (the seed would crash on
them); NaN/Infinity stay out of the test files (memtap writes them as null)."""
import json
import sys
def load(path):
    out = []
    with open(path, encoding="utf-8", errors="strict") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                p = json.loads(line)
            except ValueError:
                continue
            if not isinstance(p, dict):
                continue
            try:
                out.append(dict(ts=float(p.get("ts", 0.0)), probe=p.get("probe"),
                                view_id=str(p.get("view_id", "")), prompt_hash=str(p.get("prompt_hash", "")),
                                top_k=int(p.get("top_k", 0)), op=str(p.get("op", "")),
                                wall_ms=float(p.get("wall_ms", 0.0)), hit=bool(p.get("hit", False))))
            except (TypeError, ValueError, OverflowError):
                continue
    return out
def report(ev, k=10):
    probes, views = {}, {}
    for e in ev:
        b = probes.setdefault(e["probe"] or "<unassigned>", [0, 0.0, 0, 0])
        b[0] += 1; b[1] += e["wall_ms"]; b[2 if e["hit"] else 3] += 1
        v = views.setdefault(e["view_id"], [0, 0.0]); v[0] += 1; v[1] += e["wall_ms"]
    pp = sorted(([n, *b] for n, b in probes.items()), key=lambda x: -x[2])
    vv = sorted(([n, *b] for n, b in views.items()), key=lambda x: -x[2])
    return {"total_events": len(ev), "total_wall_ms": sum(e["wall_ms"] for e in ev),
            "overall_hit_rate": sum(1 for e in ev if e["hit"]) / len(ev) if ev else 0.0,
            "per_probe": [{"probe": n, "n_events": c, "total_ms": ms, "cache_hits": h, "cache_misses": m,
                           "hit_rate": h / (h + m) if h + m else 0.0} for n, c, ms, h, m in pp],
            "per_view": [{"view_id": n, "n_events": c, "total_ms": ms} for n, c, ms in vv],
            "slowest": sorted(ev, key=lambda e: -e["wall_ms"])[:k]}
def main():
    r = report(load(sys.argv[1]))
    m = json.load(open(sys.argv[2]))
    bad = [k for k in r if r[k] != m[k]]
    print("  reference: %d events, %d probes, %d views: %s" % (
        r["total_events"], len(r["per_probe"]), len(r["per_view"]), "equal" if not bad else "DIFFER %s" % bad))
    for k in bad[:2]:
        print("  python:", str(r[k])[:300])
        print("  memtap:", str(m[k])[:300])
    return 1 if bad else 0
if __name__ == "__main__":
    sys.exit(main())
