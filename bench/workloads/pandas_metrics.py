# SPDX-License-Identifier: MIT
"""The pandas side of bench/analysis.sh: mrm-trace's iai, locality and read_freq (seed 000)
on the access samples of a gen-synth trace (memtap dump --type access --format csv), regions
assigned by address the way the synthetic trace lays them out. Prints the seconds the three
computations took (loading the CSV is not counted: pandas gets the easier half)."""
import sys
import time

import numpy as np
import pandas as pd

W, KV, ACT = 0x100000000, 0x200000000, 0x300000000
df = pd.read_csv(sys.argv[1], usecols=["time_ns", "kind", "addr"])
df["address"] = df["addr"].map(lambda s: int(s, 16)).astype(np.int64)
df["timestamp_ns"] = df["time_ns"].astype(np.int64)
df["op_type"] = df["kind"]
df["address_page"] = df["address"] // 4096
df["region_type"] = np.where(df["address"] >= ACT, "activation",
                             np.where(df["address"] >= KV, "kv_cache", "weight"))
df["region_id"] = np.where(df["region_type"] == "kv_cache", (df["address"] - KV) // 16384, -1)
df.loc[df["region_type"] == "activation", "region_id"] = -2 - (df["address"] - ACT) // 65536

t0 = time.perf_counter()
# iai (seed analyser/iai.py)
trace_sorted = df.sort_values(["address", "timestamp_ns"])
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
iai = combined.groupby("region_type")["iai_ns"].quantile([0.5, 0.9, 0.99])
# locality (seed analyser/locality.py)
rows = []
for region_id, grp in df.sort_values(["region_id", "timestamp_ns"]).groupby("region_id"):
    addrs = grp["address"].to_numpy()
    pages = grp["address_page"].to_numpy()
    if len(addrs) < 2:
        rows.append((grp["region_type"].iloc[0], 0.0, 0.0, 0.0))
        continue
    strides = np.abs(np.diff(addrs))
    rows.append((grp["region_type"].iloc[0], float(strides.mean()), float(np.median(strides)),
                 float(np.sum(pages[1:] == pages[:-1]) / len(strides))))
loc = pd.DataFrame(rows, columns=["region_type", "mean", "median", "same"]).groupby("region_type").mean()
# read_freq (seed analyser/read_freq.py)
counts = df.groupby(["region_id", "op_type"]).size().unstack(fill_value=0)
elapsed = time.perf_counter() - t0
print(f"{elapsed:.3f}")
