# SPDX-License-Identifier: MIT
"""A model-bundle pager (renacer's case study, aprender's PagedBundle): models stored one
after the other in a bundle file are loaded on demand with pread into a cache of at most
--cache-mb MiB, least recently used first out; a model evicted and asked for again is read
again from the file. Prints the requests, hits, misses and the bytes it read.

usage: python3 pager.py DIR [--models N] [--model-mb M] [--requests R] [--cache-mb C] [--seed S]
"""
import argparse
import collections
import os
import random


def build(path, models, size):
    """The bundle: a header line of offsets, then the models' bytes."""
    if os.path.exists(path) and os.path.getsize(path) >= models * size:
        return
    with open(path + ".tmp", "wb") as f:
        for i in range(models):
            f.write(bytes([i % 251]) * size)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--models", type=int, default=8)
    ap.add_argument("--model-mb", type=int, default=4)
    ap.add_argument("--requests", type=int, default=64)
    ap.add_argument("--cache-mb", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    size = a.model_mb << 20
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, "models-%dx%dM.bundle" % (a.models, a.model_mb))
    build(path, a.models, size)
    cache = collections.OrderedDict()  # model -> its bytes, least recently used first
    rng = random.Random(a.seed)
    hits = misses = read = 0
    fd = os.open(path, os.O_RDONLY)
    for _ in range(a.requests):
        m = rng.randrange(a.models)
        if m in cache:
            cache.move_to_end(m)
            hits += 1
            continue
        misses += 1
        data = os.pread(fd, size, m * size)
        read += len(data)
        cache[m] = data
        while cache and len(cache) * size > a.cache_mb << 20:
            cache.popitem(last=False)
    os.close(fd)
    print("requests %d hits %d misses %d read %d" % (a.requests, hits, misses, read))


if __name__ == "__main__":
    main()
