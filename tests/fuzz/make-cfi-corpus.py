#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Seeds for fuzz-cfi: the .eh_frame_hdr and .eh_frame of a small shared object, with pcs in
# several of its functions. make-cfi-corpus.py SO OUTDIR (SO: e.g. a gcc -O2 -shared build).
import struct, subprocess, sys

so, out = sys.argv[1], sys.argv[2]
data = open(so, 'rb').read()
secs = {}
for line in subprocess.run(['readelf', '-SW', so], capture_output=True, text=True).stdout.splitlines():
    parts = line.replace('[ ', '[').split()
    if len(parts) > 5 and parts[1] in ('.eh_frame_hdr', '.eh_frame'):
        secs[parts[1]] = (int(parts[3], 16), int(parts[4], 16), int(parts[5], 16))
hva, hoff, hsz = secs['.eh_frame_hdr']
eva, eoff, esz = secs['.eh_frame']
lo, hi = min(hva, eva), max(hva + hsz, eva + esz)
mem = bytearray(hi - lo)
mem[hva - lo:hva - lo + hsz] = data[hoff:hoff + hsz]
mem[eva - lo:eva - lo + esz] = data[eoff:eoff + esz]
count = struct.unpack_from('<I', data, hoff + 8)[0]
for i in range(min(count, 6)):
    init = struct.unpack_from('<i', data, hoff + 12 + 8 * i)[0]
    for extra in (0, 3):
        seed = struct.pack('<qI', init + extra, hva - lo) + bytes(mem)
        open(f'{out}/seed-{i}-{extra}', 'wb').write(seed)
