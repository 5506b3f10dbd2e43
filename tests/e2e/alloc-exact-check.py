#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# alloc-exact's known answer against memtap report: alloc-exact-check.py EXPECTED REPORT KEY...
# EXPECTED is the JSON line the workload printed; each KEY of it must equal the report's
# alloc.KEY; the calls per function and "no untracked frees" are checked too. Exit 1 when
# anything differs (said on stdout).
import json
import sys

want = json.load(open(sys.argv[1]))
a = json.load(open(sys.argv[2]))["alloc"]
bad = [(k, a[k], want[k]) for k in sys.argv[3:] if a[k] != want[k]]
for k, got, exp in bad:
    print("%s: %s, expected %s" % (k, got, exp))
kinds = a["calls_by_function"]
for k in ("calloc", "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc",
          "reallocarray"):
    if kinds[k] != (10 if k == "calloc" else 1):
        bad.append(k)
        print("calls_by_function.%s = %d" % (k, kinds[k]))
if a["untracked_frees"]:
    bad.append("untracked")
    print("untracked frees:", a["untracked_frees"])
if not want["realloc_null"]:
    bad.append("realloc_null")
    print("realloc(p, 0) did not return NULL in the workload")
sys.exit(1 if bad else 0)
