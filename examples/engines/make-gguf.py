#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a tiny llama-architecture GGUF v3 model with random weights (no download).

usage: make-gguf.py OUT.gguf [--embd N] [--layers N] [--heads N] [--kv-heads N] [--ff N]
                    [--ctx N] [--f16]

The layout is GGUF v3 as llama.cpp reads it: a header, key/value metadata, tensor infos
(dimensions innermost first), then the tensor data, each tensor aligned to 32 bytes. The
vocabulary is llama's byte fallback (<0x00>..<0xFF>) plus <unk>, <s>, </s> and a few words,
so any prompt tokenizes. Weights are small random numbers: the model generates gibberish,
at the speed and with the memory of a real one of its shape. Standard library only.
"""
import argparse
import array
import random
import struct
import sys

ALIGN = 32
T_U32, T_I32, T_F32, T_STR, T_ARR = 4, 5, 6, 8, 9
F32, F16 = 0, 1


def s(b, text):
    data = text.encode()
    b += struct.pack("<Q", len(data)) + data


def kv(b, key, vtype, value):
    s(b, key)
    b += struct.pack("<I", vtype)
    if vtype == T_U32:
        b += struct.pack("<I", value)
    elif vtype == T_I32:
        b += struct.pack("<i", value)
    elif vtype == T_F32:
        b += struct.pack("<f", value)
    elif vtype == T_STR:
        s(b, value)
    else:
        etype, items = value
        b += struct.pack("<IQ", etype, len(items))
        for x in items:
            if etype == T_STR:
                s(b, x)
            elif etype == T_F32:
                b += struct.pack("<f", x)
            else:
                b += struct.pack("<i", x)


def vocab():
    toks, scores, types = ["<unk>", "<s>", "</s>"], [0.0, 0.0, 0.0], [2, 3, 3]
    for i in range(256):
        toks.append("<0x%02X>" % i)
        scores.append(0.0)
        types.append(6)
    for i, w in enumerate(["\u2581the", "\u2581a", "\u2581memory", "\u2581model", "\u2581of",
                           "\u2581and", "\u2581is", "\u2581to", "\u2581in", "e", "t", "s"]):
        toks.append(w)
        scores.append(-float(i + 1))
        types.append(1)
    return toks, scores, types


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--embd", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=768)
    ap.add_argument("--ctx", type=int, default=2048)
    ap.add_argument("--f16", action="store_true", help="F16 matrices (norms stay F32)")
    a = ap.parse_args()
    if a.embd % a.heads or a.heads % a.kv_heads:
        sys.exit("make-gguf: --embd must divide by --heads, --heads by --kv-heads")
    toks, scores, types = vocab()
    nv, ne, nkv = len(toks), a.embd, a.embd // a.heads * a.kv_heads
    mat = F16 if a.f16 else F32
    tensors = [("token_embd.weight", (ne, nv), mat), ("output_norm.weight", (ne,), F32),
               ("output.weight", (ne, nv), mat)]
    for i in range(a.layers):
        p = "blk.%d." % i
        tensors += [(p + "attn_norm.weight", (ne,), F32), (p + "attn_q.weight", (ne, ne), mat),
                    (p + "attn_k.weight", (ne, nkv), mat), (p + "attn_v.weight", (ne, nkv), mat),
                    (p + "attn_output.weight", (ne, ne), mat),
                    (p + "ffn_norm.weight", (ne,), F32), (p + "ffn_gate.weight", (ne, a.ff), mat),
                    (p + "ffn_up.weight", (ne, a.ff), mat), (p + "ffn_down.weight", (a.ff, ne), mat)]
    meta = bytearray()
    nkvs = 0
    for key, vt, v in [("general.architecture", T_STR, "llama"), ("general.name", T_STR, "memtap-tiny"),
                       ("general.alignment", T_U32, ALIGN), ("general.file_type", T_U32, 1 if a.f16 else 0),
                       ("llama.context_length", T_U32, a.ctx), ("llama.embedding_length", T_U32, ne),
                       ("llama.block_count", T_U32, a.layers), ("llama.feed_forward_length", T_U32, a.ff),
                       ("llama.attention.head_count", T_U32, a.heads),
                       ("llama.attention.head_count_kv", T_U32, a.kv_heads),
                       ("llama.rope.dimension_count", T_U32, ne // a.heads),
                       ("llama.attention.layer_norm_rms_epsilon", T_F32, 1e-5),
                       ("tokenizer.ggml.model", T_STR, "llama"),
                       ("tokenizer.ggml.tokens", T_ARR, (T_STR, toks)),
                       ("tokenizer.ggml.scores", T_ARR, (T_F32, scores)),
                       ("tokenizer.ggml.token_type", T_ARR, (T_I32, types)),
                       ("tokenizer.ggml.bos_token_id", T_U32, 1), ("tokenizer.ggml.eos_token_id", T_U32, 2),
                       ("tokenizer.ggml.unknown_token_id", T_U32, 0)]:
        kv(meta, key, vt, v)
        nkvs += 1
    infos, off, sizes = bytearray(), 0, []
    for name, dims, t in tensors:
        n = 1
        for d in dims:
            n *= d
        size = n * (2 if t == F16 else 4)
        s(infos, name)
        infos += struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
        infos += struct.pack("<IQ", t, off)
        sizes.append((n, t, off))
        off += (size + ALIGN - 1) // ALIGN * ALIGN
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), nkvs)
    rng = random.Random(1)
    # A pool of random values, read at a random start for each tensor: fast, and no two
    # tensors alike. Norm weights are 1 (as trained models' are, roughly).
    pool = array.array("f", (rng.gauss(0.0, 0.02) for _ in range(1 << 16)))
    pool16 = array.array("H", struct.pack("<%de" % len(pool), *pool))
    with open(a.out, "wb") as f:
        f.write(head + meta + infos)
        pos = len(head) + len(meta) + len(infos)
        f.write(b"\0" * ((ALIGN - pos % ALIGN) % ALIGN))
        start = 0
        for (n, t, toff), (name, _, _) in zip(sizes, tensors):
            assert f.tell() - (pos + (ALIGN - pos % ALIGN) % ALIGN) == toff
            src = pool16 if t == F16 else pool
            if name.endswith("norm.weight"):
                out = array.array("f", [1.0]) * n
            else:
                k = rng.randrange(len(src))
                reps = (n + k) // len(src) + 1
                out = (src * reps)[k:k + n]
            f.write(out.tobytes())
            f.write(b"\0" * ((ALIGN - (len(out) * out.itemsize) % ALIGN) % ALIGN))
    print("%s: %d tensors, %d KiB (embd %d, %d layers, %d heads, %d kv heads, ff %d, vocab %d)"
          % (a.out, len(tensors), (off + pos) // 1024, ne, a.layers, a.heads, a.kv_heads, a.ff, nv))


if __name__ == "__main__":
    main()
