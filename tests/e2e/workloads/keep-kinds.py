# SPDX-License-Identifier: MIT
# keep-kinds.c's three kinds of kept memory, the third layout: numpy arrays in CPython
# (tests/e2e/settle-typing.sh). A lookup array filled once and read each step (weight-like);
# a history of shape (heads, steps, width) float32 whose position `step` is written for every
# head each step (KV-like: each page fills over several steps); a workspace rewritten whole
# every step (activation-like). Each below 4 MiB, where numpy asks for transparent huge pages
# (whose pages page-write tracking leaves alone). Prints "weight ADDR", "kv ADDR", "act ADDR"
# (decimal).
# usage: python3 keep-kinds.py SECONDS
import sys
import time

import numpy as np

secs = float(sys.argv[1])
step_s = 0.005
steps = int(secs / step_s) + 1
lookup = np.arange(3 << 18, dtype=np.float32)  # 3 MiB
history = np.zeros((6, steps, 160), dtype=np.float32)  # 640-byte rows
workspace = np.empty(3 << 18, dtype=np.float32)  # 3 MiB
for name, a in (("weight", lookup), ("kv", history), ("act", workspace)):
    print(name, a.ctypes.data)
sys.stdout.flush()
acc = 0.0
t_next = time.monotonic()
for s in range(steps):
    history[:, s, :] = s
    np.multiply(lookup, 0.5, out=workspace)
    acc += float(workspace[:: 64].sum()) + float(history[:, max(0, s - 48): s + 1, :].sum())
    t_next += step_s
    while time.monotonic() < t_next:
        acc += float(lookup[(s * 4096) % (2 << 18):][: 1 << 16].sum())
print("done", int(acc) & 1)
