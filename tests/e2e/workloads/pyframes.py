# SPDX-License-Identifier: MIT
# Python frames in allocation stacks, with a known answer (tests/e2e/alloc-python-frames.sh):
# each case allocates blocks of its own size from known lines; the lines marked "# at:NAME"
# are where the test expects the frames.
import os
import sys
import threading

keep = []


def inner(n):
    keep.append(bytearray(n))  # at:inner


def middle(n):
    inner(n)  # at:middle


def outer(n):
    for _ in range(50):
        middle(n)  # at:outer


def key_alloc(x):
    keep.append(bytearray(300_011))  # at:key
    return -x


def gen_body(n):
    for _ in range(20):
        yield bytearray(n)  # at:gen


def consume():
    return [len(b) for b in gen_body(300_021)]  # at:consume


def worker():
    for _ in range(20):
        keep.append(bytearray(300_031))  # at:worker


def child_work():
    for _ in range(20):
        keep.append(bytearray(300_041))  # at:child


def leaf_alloc(n):
    keep.append(bytearray(n))  # at:leaf


def via(n):
    leaf_alloc(n)  # at:via


def alternate():
    # The same native stack and the same inner frames, reached from two lines in turn: the
    # stacks differ in the outer frame only, and each line's calls must stay its own.
    for i in range(40):
        via(300_061)  # at:alt_a
        via(300_061)  # at:alt_b


def recompiled():
    # A function compiled afresh in each round, named and filed in turn f_0 (gen_0.py) and
    # f_1 (gen_1.py): each code object is freed before the next, which may take its address.
    for i in range(40):
        ns = {}
        exec(compile("def f_%d(n):\n    keep.append(bytearray(n))\n" % (i % 2),
                     "gen_%d.py" % (i % 2), "exec"), {"keep": keep}, ns)
        ns["f_%d" % (i % 2)](300_071)


def make_gen():
    yield 1


def deep(n):
    return make_gen() if n == 0 else deep(n - 1)


if len(sys.argv) > 1 and sys.argv[1] == "exec":
    # the image an exec put in place: its own functions, ids from 1 again
    def after_exec():
        for _ in range(20):
            keep.append(bytearray(300_051))  # at:exec

    after_exec()  # at:exec_call
    sys.exit(0)

# At some depth the generator's frame is the first of a new frame-stack chunk: creating the
# generator pops it and frees the chunk (munmap) while it is still the current frame
# (CPython 3.11's RETURN_GENERATOR); a stack read then must not follow it.
for d in range(400):
    deep(d)
outer(300_001)  # at:module
sorted(range(30), key=key_alloc)  # at:sorted
consume()  # at:consume_call
alternate()
recompiled()
t = threading.Thread(target=worker)
t.start()
t.join()
pid = os.fork()
if pid == 0:
    child_work()  # at:child_call
    os.execv(sys.executable, [sys.executable, __file__, "exec"])
os.waitpid(pid, 0)
