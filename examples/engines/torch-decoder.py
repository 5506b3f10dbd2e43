#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small decoder-only transformer in PyTorch (Debian's python3-torch, CPU), unmodified
PyTorch doing what inference engines do: its random weights are written once to a .npy file
and mapped read-only at load (np.load(mmap_mode="r"), the tensors viewing the mapping, as
safetensors and llama.cpp map theirs); generation is greedy, token by token, with a KV cache
either grown by torch.cat at every step (Hugging Face's DynamicCache) or preallocated for the
whole context and filled in place (its StaticCache). The classes carry Hugging Face's names
(DynamicCache.update, StaticCache.__init__, *Attention.forward, *MLP.forward), which is what
memtap's pytorch profile types tensors by: the Python frames of their allocation stacks.

usage: torch-decoder.py [--tokens N] [--cache dynamic|static] [--dir DIR] [--dim D]
                        [--layers L] [--heads H] [--vocab V]

Prints the model's shape, then CLOCK_MONOTONIC times (as memtap's):
  load T0 T1           the weights mapped and viewed
  step I T0 T1 CTX     decoding step I, over a context of CTX tokens
Under memtap record, the phases (load, prefill, generation) are named through the memtap
Python module when it is importable; without it nothing changes.
"""
import argparse
import os
import sys
import time
import warnings

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    sys.exit("torch-decoder.py: %s is not installed (apt-get install python3-torch python3-numpy)" % e.name)
try:
    import memtap
except ImportError:
    memtap = None


def phase(name):
    if memtap:
        memtap.phase(name)


def shapes(d, layers, vocab):
    s = [("emb", (vocab, d)), ("head", (vocab, d))]
    for i in range(layers):
        s += [("l%d.ln1" % i, (d,)), ("l%d.qkv" % i, (3 * d, d)), ("l%d.o" % i, (d, d)),
              ("l%d.ln2" % i, (d,)), ("l%d.f1" % i, (4 * d, d)), ("l%d.f2" % i, (d, 4 * d))]
    return s


def write_weights(path, d, layers, vocab):
    n = sum(int(np.prod(sh)) for _, sh in shapes(d, layers, vocab))
    w = np.lib.format.open_memmap(path + ".tmp", mode="w+", dtype=np.float32, shape=(n,))
    rng = np.random.default_rng(0)
    w[:] = rng.standard_normal(n, dtype=np.float32) * 0.02
    off = 0
    for name, sh in shapes(d, layers, vocab):
        k = int(np.prod(sh))
        if name.endswith((".ln1", ".ln2")):
            w[off:off + k] = 1.0
        off += k
    w.flush()
    del w
    os.replace(path + ".tmp", path)


def load(path, d, layers, vocab):
    flat = np.load(path, mmap_mode="r")  # a read-only mapping of the file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "not writable": the weights are never written
        t = torch.from_numpy(flat)
    p, off = {}, 0
    for name, sh in shapes(d, layers, vocab):
        k = int(np.prod(sh))
        p[name] = t[off:off + k].view(*sh)
        off += k
    return p


class DynamicCache:
    """Keys and values grown by torch.cat at every step, as Hugging Face's DynamicCache does:
    each step allocates each layer's new K and V and frees the previous step's."""

    def __init__(self, layers):
        self.k = [None] * layers
        self.v = [None] * layers

    def update(self, i, k, v, pos):
        if self.k[i] is not None:
            k = torch.cat([self.k[i], k], 0)
            v = torch.cat([self.v[i], v], 0)
        self.k[i], self.v[i] = k, v
        return k, v


class StaticCache:
    """Keys and values preallocated for the whole context and filled in place, as Hugging
    Face's StaticCache does."""

    def __init__(self, layers, n_ctx, d):
        self.k = [torch.zeros(n_ctx, d) for _ in range(layers)]
        self.v = [torch.zeros(n_ctx, d) for _ in range(layers)]

    def update(self, i, k, v, pos):
        self.k[i][pos:pos + k.shape[0]] = k
        self.v[i][pos:pos + k.shape[0]] = v
        return self.k[i][:pos + k.shape[0]], self.v[i][:pos + k.shape[0]]


class Attention:
    def __init__(self, p, i, heads):
        self.ln, self.qkv, self.o = p["l%d.ln1" % i], p["l%d.qkv" % i], p["l%d.o" % i]
        self.i, self.heads = i, heads

    def forward(self, x, cache, pos):
        d = x.shape[-1]
        q, k, v = F.linear(F.layer_norm(x, (d,), self.ln), self.qkv).split(d, dim=-1)
        k, v = cache.update(self.i, k, v, pos)
        hd = d // self.heads
        qh, kh, vh = (z.view(-1, self.heads, hd).transpose(0, 1) for z in (q, k, v))
        mask = torch.full((q.shape[0], k.shape[0]), float("-inf")).triu(k.shape[0] - q.shape[0] + 1)
        a = torch.softmax(qh @ kh.transpose(1, 2) / hd ** 0.5 + mask, -1) @ vh
        return x + F.linear(a.transpose(0, 1).reshape(-1, d), self.o)


class MLP:
    def __init__(self, p, i):
        self.ln, self.f1, self.f2 = p["l%d.ln2" % i], p["l%d.f1" % i], p["l%d.f2" % i]

    def forward(self, x):
        d = x.shape[-1]
        return x + F.linear(torch.relu(F.linear(F.layer_norm(x, (d,), self.ln), self.f1)), self.f2)


class Decoder:
    def __init__(self, p, layers, heads):
        self.p = p
        self.attn = [Attention(p, i, heads) for i in range(layers)]
        self.mlp = [MLP(p, i) for i in range(layers)]

    def forward(self, tokens, cache, pos):
        x = F.embedding(torch.tensor(tokens), self.p["emb"])
        for attn, mlp in zip(self.attn, self.mlp):
            x = mlp.forward(attn.forward(x, cache, pos))
        return x

    def next_token(self, x):
        return int(F.linear(x[-1], self.p["head"]).argmax())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--cache", choices=("dynamic", "static"), default="dynamic")
    ap.add_argument("--dir", default=".")
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=4096)
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(2)
    path = os.path.join(a.dir, "decoder-d%d-l%d-v%d.npy" % (a.dim, a.layers, a.vocab))
    if not os.path.exists(path):
        write_weights(path, a.dim, a.layers, a.vocab)
    print("model dim %d layers %d heads %d vocab %d cache %s weights %s" %
          (a.dim, a.layers, a.heads, a.vocab, a.cache, path), flush=True)
    phase("load")
    t0 = time.monotonic_ns()
    p = load(path, a.dim, a.layers, a.vocab)
    print("load %d %d" % (t0, time.monotonic_ns()), flush=True)
    prompt = [1, 2, 3, 4]
    n_ctx = len(prompt) + a.tokens
    model = Decoder(p, a.layers, a.heads)
    cache = StaticCache(a.layers, n_ctx, a.dim) if a.cache == "static" else DynamicCache(a.layers)
    tok = list(prompt)
    with torch.no_grad():
        phase("prefill")
        x = model.forward(tok, cache, 0)
        phase("generation")
        for s in range(a.tokens):
            t0 = time.monotonic_ns()
            tok.append(model.next_token(x))
            x = model.forward(tok[-1:], cache, len(tok) - 1)
            print("step %d %d %d %d" % (s, t0, time.monotonic_ns(), len(tok)), flush=True)
        phase(None)
    print("generated %d tokens" % a.tokens)


if __name__ == "__main__":
    main()
