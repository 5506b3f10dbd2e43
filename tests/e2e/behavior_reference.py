# SPDX-License-Identifier: MIT
"""A pandas reference of mrm-trace's iai, locality and read_freq formulas (seed 000), run on
the synthetic trace tests/data/behavior.txt and compared with `memtap report --format json`.

usage: behavior_reference.py DESCRIPTION REPORT.json   (exit 77 without pandas)"""
import json
import sys

try:
    import numpy as np
    import pandas as pd
except ImportError:
    print("SKIP: pandas is not installed (Debian: python3-pandas)")
    sys.exit(77)


def parse_time(v):
    for unit, mul in (("us", 1e3), ("ms", 1e6), ("s", 1e9)):
        if v.endswith(unit):
            return int(round(float(v[: -len(unit)]) * mul))
    return int(v, 0)


def rows(path):
    """The access rows with their region, as the seed's labeller would give them."""
    events = []
    for n, line in enumerate(open(path)):
        f = line.split("#")[0].split()
        if not f or f[0] not in ("label", "access"):
            continue
        kv = dict(x.split("=", 1) for x in f[1:])
        events.append((parse_time(kv["t"]), 0 if f[0] == "label" else 1, n, f[0], kv))
    events.sort()
    live, out = {}, []
    for t, _, _, kind, kv in events:
        if kind == "label":
            addr = int(kv["addr"], 0)
            if kv["op"] == "unlabel":
                live.pop(addr, None)
            else:
                live[addr] = (addr + int(kv["len"]), kv["name"], kv["region_type"], t)
            continue
        a = int(kv["addr"], 0)
        for start, (end, name, rtype, since) in live.items():
            if start <= a < end:
                out.append(dict(region_id=f"{name}@{since}", name=name, region_type=rtype,
                                address=a, address_page=a >> 12, timestamp_ns=t,
                                op_type=kv["kind"]))
                break
    return pd.DataFrame(out)


def compute_iai(trace):  # seed: analyser/iai.py
    trace_sorted = trace.sort_values(["address", "timestamp_ns"])
    parts = []
    for (address, region_type), grp in trace_sorted.groupby(["address", "region_type"], sort=False):
        ts = grp["timestamp_ns"].to_numpy(dtype=np.int64)
        if len(ts) < 2:
            continue
        iv = np.diff(ts)
        iv = iv[iv > 0]
        if len(iv):
            parts.append(pd.DataFrame({"region_type": region_type, "iai_ns": iv}))
    combined = pd.concat(parts, ignore_index=True)
    res = {}
    for rtype, grp in combined.groupby("region_type"):
        s = grp["iai_ns"]
        res[rtype] = dict(n_intervals=len(s), iai_p50_ns=int(s.quantile(0.50)),
                          iai_p90_ns=int(s.quantile(0.90)), iai_p99_ns=int(s.quantile(0.99)),
                          iai_mean_ns=float(s.mean()))
    return res


def compute_locality(trace):  # seed: analyser/locality.py
    per = []
    for region_id, grp in trace.sort_values(["region_id", "timestamp_ns"]).groupby("region_id"):
        rtype = grp["region_type"].iloc[0]
        if len(grp) < 2:
            # The seed appends zeros here, pulling its type's means towards 0 for regions with
            # no stride at all; memtap leaves them out (a figure nothing backs is null), the
            # one deliberate difference from the seed's formula.
            continue
        addrs = grp["address"].to_numpy()
        pages = grp["address_page"].to_numpy()
        strides = np.abs(np.diff(addrs.astype(np.int64)))
        per.append(dict(region_type=rtype, mean_stride_bytes=float(strides.mean()),
                        median_stride_bytes=float(np.median(strides)),
                        same_page_fraction=float(np.sum(pages[1:] == pages[:-1]) / len(strides))))
    if not per:
        return {}
    summary = pd.DataFrame(per).groupby("region_type").mean()
    return {t: dict(r) for t, r in summary.iterrows()}


def compute_read_freq(trace, key="name"):  # seed: analyser/read_freq.py (per region)
    counts = trace.groupby([key, "op_type"]).size().unstack(fill_value=0)
    for col in ("load", "store"):
        if col not in counts.columns:
            counts[col] = 0
    counts = counts.rename(columns={"load": "total_reads", "store": "total_writes"})
    counts["total_accesses"] = counts["total_reads"] + counts["total_writes"]
    counts["read_fraction"] = (counts["total_reads"] / counts["total_accesses"]).fillna(0.0)
    counts["reads_per_write"] = (counts["total_reads"] /
                                 counts["total_writes"].replace(0, float("nan"))).fillna(0.0)
    return {n: dict(r) for n, r in counts.iterrows()}


def main():
    trace = rows(sys.argv[1])
    report = json.load(open(sys.argv[2]))
    types = {t["region_type"]: t for t in report["metrics"]["by_type"]}
    regions = {r["label"]: r for r in report["regions"]}
    bad = 0

    def same(what, ours, ref):
        nonlocal bad
        if abs(float(ours) - float(ref)) > 1e-6 * max(1.0, abs(float(ref))):
            print(f"MISMATCH {what}: memtap {ours}, pandas {ref}")
            bad += 1

    checked = 0
    for rtype, ref in compute_iai(trace).items():
        for k, v in ref.items():
            same(f"iai {rtype} {k}", types[rtype][k], v)
            checked += 1
    for rtype, ref in compute_locality(trace).items():
        for k, v in ref.items():
            same(f"locality {rtype} {k}", types[rtype][k], v)
            checked += 1
    for name, ref in compute_read_freq(trace).items():
        for k, v in ref.items():
            same(f"read_freq {name} {k}", regions[name][k if k != "total_accesses" else "samples"], v)
            checked += 1
    print(f"{checked} figures compared, {bad} differ")
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
