# SPDX-License-Identifier: MIT
# The allocation-tracing benchmark of issue 7: ~3.1 M allocations through malloc.
d = {}
for i in range(600_000):
    d.setdefault(i % 5000, []).append(str(i) * 3)
s = sorted(d.items(), key=lambda kv: len(kv[1]))
x = [list(map(len, v)) for k, v in s]
print(len(x))
