# SPDX-License-Identifier: MIT
# A small numpy job for the evidence tests: a matrix read many times (long-lived, rarely
# written), temporaries rewritten every step, an idle pause, module globals.
import sys
import time

import numpy as np

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
rng = np.random.default_rng(0)
weights = rng.standard_normal((512, 512), dtype=np.float32)  # 1 MiB, written once
acc = np.zeros(512, dtype=np.float32)
for i in range(steps):
    x = rng.standard_normal(512, dtype=np.float32)
    h = weights @ x  # a new temporary every step
    acc += np.tanh(h)
    if i == steps // 2:
        time.sleep(0.2)
print("%.3f" % float(acc.sum()))
