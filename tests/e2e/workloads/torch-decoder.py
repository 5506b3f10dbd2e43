# SPDX-License-Identifier: MIT
# A small decoder-only transformer on CPU (Debian's python3-torch) with random weights: greedy
# generation with a KV cache grown by torch.cat per token. No download, no model file.
# usage: torch-decoder.py [TOKENS]
import sys

import torch
torch.manual_seed(0)
torch.set_num_threads(2)
D, H, L, V = 256, 8, 4, 4096
class Block(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.ln1 = torch.nn.LayerNorm(D); s.ln2 = torch.nn.LayerNorm(D)
        s.qkv = torch.nn.Linear(D, 3 * D); s.o = torch.nn.Linear(D, D)
        s.f1 = torch.nn.Linear(D, 4 * D); s.f2 = torch.nn.Linear(4 * D, D)
    def forward(s, x, kv):
        q, k, v = s.qkv(s.ln1(x)).split(D, dim=-1)
        if kv is not None:
            k = torch.cat([kv[0], k], 0); v = torch.cat([kv[1], v], 0)
        qh = q.view(-1, H, D // H).transpose(0, 1); kh = k.view(-1, H, D // H).transpose(0, 1)
        vh = v.view(-1, H, D // H).transpose(0, 1)
        a = torch.softmax(qh @ kh.transpose(1, 2) / (D // H) ** 0.5, -1) @ vh
        x = x + s.o(a.transpose(0, 1).reshape(-1, D))
        x = x + s.f2(torch.relu(s.f1(s.ln2(x))))
        return x, (k, v)
emb = torch.nn.Embedding(V, D); blocks = [Block() for _ in range(L)]; head = torch.nn.Linear(D, V)
ntok = int(sys.argv[1]) if len(sys.argv) > 1 else 32
tok = [1, 2, 3]
with torch.no_grad():
    kvs = [None] * L; x = emb(torch.tensor(tok))
    for b in range(L): x, kvs[b] = blocks[b](x, kvs[b])
    for i in range(ntok):
        nxt = int(head(x[-1]).argmax()); tok.append(nxt)
        x = emb(torch.tensor([nxt]))
        for b in range(L): x, kvs[b] = blocks[b](x, kvs[b])
print(len(tok))
