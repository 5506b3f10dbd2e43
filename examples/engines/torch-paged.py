#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A PyTorch serving loop with a paged KV cache, as vLLM's PagedAttention lays it out:
requests arrive in a stream, up to --batch sequences decode together, and each sequence's
keys and values live in fixed-size KV blocks taken from one preallocated pool as it grows
and given back when it ends (a block table per sequence). The weights are mapped read-only
from a .npy file. Written apart from torch-decoder.py (other names, another layout): the
engine types its memory itself with the memtap Python module — every KV block it hands out
is labelled (memtap.label_buffer, type kv_cache) and unlabelled when given back, and the
serving loop is a phase (with memtap.phase("serve")) — when the module is importable;
without it nothing changes.

usage: torch-paged.py [--duration S] [--batch B] [--block-tokens T] [--blocks N] [--dir DIR]
                      [--dim D] [--layers L] [--heads H] [--vocab V] [--seed K]

Prints, with CLOCK_MONOTONIC times in ns (memtap's clock):
  pool ADDR BLOCKS BLOCK_BYTES        the KV pool: BLOCKS blocks of BLOCK_BYTES from ADDR
  weights PATH BYTES                  the mapped weights
  take SEQ BLOCK ADDR T0 T1           a block handed to a sequence (labelled within [T0, T1])
  give SEQ BLOCK ADDR T0 T1           a block given back (unlabelled within [T0, T1])
  seq SEQ PROMPT TOKENS START END     a finished request
  served REQUESTS TOKENS SECONDS
New requests stop after --duration seconds; the running ones finish, so every block taken is
given back before the end.
"""
import argparse
import os
import random
import sys
import time
import warnings

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    sys.exit("torch-paged.py: %s is not installed (apt-get install python3-torch python3-numpy)" % e.name)
try:
    import memtap
except ImportError:
    memtap = None


def layout(d, layers, vocab):
    out = [("tok_embed", (vocab, d)), ("lm_head", (vocab, d))]
    for i in range(layers):
        out += [("b%d.norm_a" % i, (d,)), ("b%d.wq" % i, (d, d)), ("b%d.wk" % i, (d, d)),
                ("b%d.wv" % i, (d, d)), ("b%d.wo" % i, (d, d)), ("b%d.norm_f" % i, (d,)),
                ("b%d.up" % i, (2 * d, d)), ("b%d.down" % i, (d, 2 * d))]
    return out


def weights(directory, d, layers, vocab):
    """The weights in one .npy (written once, if missing), mapped read-only."""
    path = os.path.join(directory, "paged-d%d-l%d-v%d.npy" % (d, layers, vocab))
    n = sum(int(np.prod(s)) for _, s in layout(d, layers, vocab))
    if not os.path.exists(path):
        w = np.lib.format.open_memmap(path + ".part", mode="w+", dtype=np.float32, shape=(n,))
        w[:] = np.random.default_rng(1).standard_normal(n, dtype=np.float32) * 0.03
        w.flush()
        del w
        os.replace(path + ".part", path)
    flat = np.load(path, mmap_mode="r")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # read-only: the weights are never written
        t = torch.from_numpy(flat)
    params, off = {}, 0
    for name, shape in layout(d, layers, vocab):
        k = int(np.prod(shape))
        params[name] = t[off:off + k].view(*shape)
        off += k
    return path, params, n * 4


class BlockPool:
    """KV blocks of block_tokens tokens for every layer, block-major: block b is
    pool[b] = [layers, 2 (K, V), block_tokens, d], one contiguous range."""

    def __init__(self, blocks, layers, block_tokens, d):
        self.pool = torch.zeros(blocks, layers, 2, block_tokens, d)
        self.free = list(range(blocks - 1, -1, -1))
        self.block_tokens = block_tokens
        self.block_bytes = self.pool[0].element_size() * self.pool[0].numel()
        print("pool %d %d %d" % (self.pool.data_ptr(), blocks, self.block_bytes), flush=True)

    def take(self, seq):
        b = self.free.pop()
        t0 = time.monotonic_ns()
        if memtap:
            memtap.label_buffer(self.pool[b], "kv_cache", "kv_block")
        t1 = time.monotonic_ns()
        print("take %d %d %d %d %d" % (seq, b, self.pool[b].data_ptr(), t0, t1))
        return b

    def give(self, seq, b):
        t0 = time.monotonic_ns()
        if memtap:
            memtap.unlabel(self.pool[b])
        t1 = time.monotonic_ns()
        print("give %d %d %d %d %d" % (seq, b, self.pool[b].data_ptr(), t0, t1))
        self.free.append(b)


class Sequence:
    def __init__(self, sid, prompt, want):
        self.sid, self.tokens, self.want = sid, list(prompt), want
        self.prompt = len(prompt)
        self.table = []  # its block table: pool indices, in token order
        self.cached = 0  # tokens whose K and V are in its blocks
        self.start = time.monotonic_ns()


class PagedLM:
    def __init__(self, p, layers, heads, pool):
        self.p, self.layers, self.heads, self.pool = p, layers, heads, pool

    def _write_kv(self, seq, layer, k, v):
        """K and V of the new tokens into the sequence's blocks (layer 0 takes new blocks)."""
        bt = self.pool.block_tokens
        for j in range(k.shape[0]):
            pos = seq.cached + j
            if layer == 0 and pos // bt == len(seq.table):
                seq.table.append(self.pool.take(seq.sid))
            blk = self.pool.pool[seq.table[pos // bt]]
            blk[layer, 0, pos % bt] = k[j]
            blk[layer, 1, pos % bt] = v[j]

    def _gather(self, seq, layer, n):
        idx = torch.tensor(seq.table)
        kv = self.pool.pool[idx, layer]  # [blocks, 2, bt, d]
        k = kv[:, 0].reshape(-1, kv.shape[-1])[:n]
        v = kv[:, 1].reshape(-1, kv.shape[-1])[:n]
        return k, v

    def forward(self, seq, new_tokens):
        p, d = self.p, self.p["tok_embed"].shape[1]
        x = F.embedding(torch.tensor(new_tokens), p["tok_embed"])
        n = seq.cached + len(new_tokens)
        hd = d // self.heads
        for i in range(self.layers):
            h = F.layer_norm(x, (d,), p["b%d.norm_a" % i])
            q, k, v = (F.linear(h, p["b%d.%s" % (i, w)]) for w in ("wq", "wk", "wv"))
            self._write_kv(seq, i, k, v)
            K, V = self._gather(seq, i, n)
            qh = q.view(-1, self.heads, hd).transpose(0, 1)
            kh = K.view(-1, self.heads, hd).transpose(0, 1)
            vh = V.view(-1, self.heads, hd).transpose(0, 1)
            mask = torch.full((q.shape[0], n), float("-inf")).triu(n - q.shape[0] + 1)
            a = torch.softmax(qh @ kh.transpose(1, 2) / hd ** 0.5 + mask, -1) @ vh
            x = x + F.linear(a.transpose(0, 1).reshape(-1, d), p["b%d.wo" % i])
            h = F.layer_norm(x, (d,), p["b%d.norm_f" % i])
            x = x + F.linear(F.gelu(F.linear(h, p["b%d.up" % i])), p["b%d.down" % i])
        seq.cached = n
        return int(F.linear(x[-1], p["lm_head"]).argmax())


def serve(a):
    path, p, nbytes = weights(a.dir, a.dim, a.layers, a.vocab)
    print("weights %s %d" % (path, nbytes), flush=True)
    pool = BlockPool(a.blocks, a.layers, a.block_tokens, a.dim)
    lm = PagedLM(p, a.layers, a.heads, pool)
    rng = random.Random(a.seed)
    running, sid, served, tokens = [], 0, 0, 0
    t_end = time.monotonic() + a.duration
    while True:
        accepting = time.monotonic() < t_end
        # admit: a request needs blocks for its prompt and its answer, as a scheduler reserves
        while accepting and len(running) < a.batch:
            prompt = [rng.randrange(a.vocab) for _ in range(rng.randint(8, 40))]
            want = rng.randint(16, 64)
            need = -(-(len(prompt) + want) // a.block_tokens)
            reserved = sum(-(-(s.prompt + s.want) // a.block_tokens) - len(s.table) for s in running)
            if need > len(pool.free) - reserved:
                break
            s = Sequence(sid, prompt, want)
            sid += 1
            s.tokens.append(lm.forward(s, s.tokens))  # prefill
            running.append(s)
        if not running:
            break
        for s in list(running):  # one decoding step of every running sequence
            s.tokens.append(lm.forward(s, s.tokens[-1:]))
            tokens += 1
            if len(s.tokens) - s.prompt >= s.want:
                for b in s.table:
                    pool.give(s.sid, b)
                print("seq %d %d %d %d %d" % (s.sid, s.prompt, len(s.tokens) - s.prompt, s.start,
                                              time.monotonic_ns()))
                running.remove(s)
                served += 1
    return served, tokens


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--block-tokens", type=int, default=16)
    ap.add_argument("--blocks", type=int, default=48)
    ap.add_argument("--dir", default=".")
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    t0 = time.monotonic()
    with torch.no_grad():
        if memtap:
            with memtap.phase("serve"):
                served, tokens = serve(a)
        else:
            served, tokens = serve(a)
    print("served %d %d %.2f" % (served, tokens, time.monotonic() - t0), flush=True)


if __name__ == "__main__":
    main()
