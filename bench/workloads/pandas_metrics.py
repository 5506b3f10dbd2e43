# SPDX-License-Identifier: MIT
"""The pandas side of bench/analysis.sh: mrm-trace's iai, locality and read_freq (seed 000)
on the access samples of a gen-synth trace (memtap dump --type access --format csv), regions
assigned by address the way the synthetic trace lays them out. Prints the seconds the three
computations took (loading the CSV is not counted: pandas gets the easier half)."""
import os
import sys
import time

import numpy as np
import pandas as pd

# the seed's formulas, as the validity test has them
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "e2e"))
from behavior_reference import compute_iai, compute_locality, compute_read_freq  # noqa: E402

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
compute_iai(df)
compute_locality(df)
compute_read_freq(df, key="region_id")
elapsed = time.perf_counter() - t0
print(f"{elapsed:.3f}")
