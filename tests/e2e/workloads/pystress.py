# SPDX-License-Identifier: MIT
# Python under memtap with its frames read (tests/e2e/alloc-python-frames.sh): asyncio with an
# async generator and threads, a thread pool, 2,500 Python frames deep, yield from, a fork
# pool, a spawn pool, a subprocess, a RecursionError. Output and status must not change.
import asyncio, threading, concurrent.futures, multiprocessing, json, re, itertools, functools, subprocess, sys, os
async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield bytearray(2000 + i)
async def main():
    tot = 0
    async for b in agen(2000):
        tot += len(b)
    res = await asyncio.gather(*(asyncio.to_thread(lambda k=k: sum(len(str(x)) for x in range(20000 + k))) for k in range(8)))
    return tot + sum(res)
def deep(n):
    if n == 0:
        return [bytearray(100) for _ in range(10)]
    return deep(n - 1)
def genchain(n):
    yield from (x for x in range(n))
if __name__ == "__main__":
    print(asyncio.run(main()))
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        print(sum(ex.map(lambda i: len(json.dumps({"a": list(range(i))})), range(2000))))
    sys.setrecursionlimit(5000)
    print(len(deep(2500)))
    print(sum(genchain(100000)))
    with multiprocessing.get_context("fork").Pool(2) as p:
        print(sum(p.map(functools.partial(pow, 2), range(200))) % 1000)
    with multiprocessing.get_context("spawn").Pool(2) as p:
        print(sum(p.map(abs, range(-100, 100))))
    print(subprocess.run([sys.executable, "-c", "print(sum(range(10)))"], capture_output=True, text=True).stdout.strip())
    try:
        def bad(n): return bad(n + 1)
        bad(0)
    except RecursionError:
        print("recursion ok")
