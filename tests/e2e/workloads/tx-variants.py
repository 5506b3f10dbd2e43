#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Transformers written apart from examples/engines/torch-decoder.py, for typing by behaviour
(tests/e2e/behaviour-typing.sh): none of their names is one a profile knows.

  tx-variants.py gqa    grouped-query attention (2 KV heads for 8 query heads); the weights
                        copied out of a mapped .npy into tensors of their own; the keys and
                        values of each layer kept heads-major and grown by torch.cat on the
                        context axis at every step
  tx-variants.py ring   the weights drawn in memory (torch.randn, written once); the keys and
                        values in one preallocated tensor per layer, written in place

usage: tx-variants.py gqa|ring [--steps N] [--dir DIR]
Prints "weights ADDR BYTES" for every weight tensor of 64 KiB or more, "kv ADDR BYTES" for a
preallocated cache tensor, "kvsize LAYER STEP BYTES" for a grown one, and "done STEPS".
"""
import argparse
import os
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    sys.exit("tx-variants.py: %s is not installed" % e.name)

DIM, LAYERS, HEADS, KV_HEADS, VOCAB = 512, 3, 8, 2, 2048


def report_weight(t):
    n = t.element_size() * t.numel()
    if n >= 65536:
        print("weights %d %d" % (t.data_ptr(), n))


def copied_weights(directory):
    """Read from a mapped file, then copied: every tensor owns its memory."""
    hd = DIM // HEADS
    shapes = [("embed", (VOCAB, DIM))]
    for i in range(LAYERS):
        shapes += [("q%d" % i, (DIM, DIM)), ("kv%d" % i, (2 * KV_HEADS * hd, DIM)),
                   ("out%d" % i, (DIM, DIM)), ("ff_in%d" % i, (3 * DIM, DIM)),
                   ("ff_out%d" % i, (DIM, 3 * DIM))]
    path = os.path.join(directory, "tx-gqa.npy")
    total = sum(int(np.prod(s)) for _, s in shapes)
    if not os.path.exists(path):
        np.save(path, np.random.default_rng(3).standard_normal(total, dtype=np.float32) * 0.02)
    flat = np.load(path, mmap_mode="r")
    out, off = {}, 0
    for name, s in shapes:
        k = int(np.prod(s))
        out[name] = torch.tensor(np.array(flat[off:off + k]).reshape(s))  # a copy
        report_weight(out[name])
        off += k
    return out


class KeyValueMemory:
    def __init__(self):
        self.keys, self.vals = {}, {}

    def append(self, layer, k, v, step):
        if layer in self.keys:
            k = torch.cat((self.keys[layer], k), dim=1)
            v = torch.cat((self.vals[layer], v), dim=1)
        self.keys[layer], self.vals[layer] = k, v
        print("kvsize %d %d %d" % (layer, step, k.element_size() * k.numel()))
        return k, v


def run_gqa(a):
    w = copied_weights(a.dir)
    hd = DIM // HEADS
    mem = KeyValueMemory()
    tok = 1
    for step in range(a.steps):
        x = w["embed"][tok].view(1, DIM).clone()
        for i in range(LAYERS):
            q = F.linear(x, w["q%d" % i]).view(HEADS, 1, hd)
            kv = F.linear(x, w["kv%d" % i]).view(2, KV_HEADS, 1, hd)
            k, v = mem.append(i, kv[0].contiguous(), kv[1].contiguous(), step)
            rep = HEADS // KV_HEADS
            att = torch.softmax(q @ k.repeat_interleave(rep, 0).transpose(1, 2) / hd ** 0.5, -1)
            y = (att @ v.repeat_interleave(rep, 0)).reshape(1, DIM)
            x = x + F.linear(y, w["out%d" % i])
            x = x + F.linear(F.silu(F.linear(x, w["ff_in%d" % i])), w["ff_out%d" % i])
        tok = int((x @ w["embed"].T).argmax()) % VOCAB


class Ring:
    """One tensor per layer for the whole context, keys and values side by side."""

    def __init__(self, n_ctx):
        self.buf = [torch.empty(2, n_ctx, DIM) for _ in range(LAYERS)]
        for b in self.buf:
            print("kv %d %d" % (b.data_ptr(), b.element_size() * b.numel()))

    def put(self, layer, pos, k, v):
        self.buf[layer][0, pos] = k
        self.buf[layer][1, pos] = v
        return self.buf[layer][0, :pos + 1], self.buf[layer][1, :pos + 1]


def run_ring(a):
    g = torch.Generator().manual_seed(5)
    w = {"embed": torch.randn(VOCAB, DIM, generator=g) * 0.02}
    report_weight(w["embed"])
    for i in range(LAYERS):
        for name, s in (("wqkv", (3 * DIM, DIM)), ("wo", (DIM, DIM)), ("up", (2 * DIM, DIM)),
                        ("down", (DIM, 2 * DIM))):
            w["%s%d" % (name, i)] = torch.randn(*s, generator=g) * 0.02
            report_weight(w["%s%d" % (name, i)])
    ring = Ring(a.steps)
    hd = DIM // HEADS
    tok = 3
    for pos in range(a.steps):
        x = w["embed"][tok].view(1, DIM).clone()
        for i in range(LAYERS):
            q, k, v = F.linear(x, w["wqkv%d" % i]).split(DIM, -1)
            K, V = ring.put(i, pos, k[0], v[0])
            att = torch.softmax(q.view(HEADS, 1, hd) @ K.view(-1, HEADS, hd).permute(1, 2, 0) / hd ** 0.5, -1)
            x = x + F.linear((att @ V.view(-1, HEADS, hd).transpose(0, 1)).reshape(1, DIM), w["wo%d" % i])
            x = x + F.linear(F.gelu(F.linear(x, w["up%d" % i])), w["down%d" % i])
        tok = int((x @ w["embed"].T).argmax()) % VOCAB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("layout", choices=("gqa", "ring"))
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--dir", default=".")
    a = ap.parse_args()
    torch.set_num_threads(1)
    with torch.no_grad():
        (run_gqa if a.layout == "gqa" else run_ring)(a)
    print("done %d" % a.steps, flush=True)


if __name__ == "__main__":
    main()
