# SPDX-License-Identifier: MIT
# A CPython workload for the bare-versus-traced fault check (tests/e2e/faults-bare.sh): small
# objects in the interpreter's arenas (tracked: 1 MiB each), large buffers of several MiB
# (tracked blocks) rewritten across the recorder's epochs, a dict that grows and is dropped.
import time

table = {}
for i in range(150_000):
    table["k%d" % i] = [i, i * 2, str(i)]
buffers = [bytearray(6 << 20) for _ in range(6)]
for rnd in range(3):
    for b in buffers:
        b[::4096] = bytes([rnd + 1]) * len(b[::4096])
    time.sleep(0.25)
del table
rows = [tuple(range(8)) for _ in range(100_000)]
print(len(rows), sum(len(b) for b in buffers))
