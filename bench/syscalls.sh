#!/bin/sh
# SPDX-License-Identifier: MIT
# Syscall-tracing benchmark (issue 8): wall-time ratios from interleaved runs of
# `dd if=/dev/zero of=/dev/null bs=1 count=400000` and `find /usr -type f`, bare, under
# memtap without and with --syscalls (allocation, access, fault and RSS collectors off, so
# the difference is the syscall collector's) recording every call (BPF records where BPF
# loads) and counting in the kernel (--syscalls=summary, BPF), and under strace -f -c; then
# the calls and lost events memtap recorded.
# usage: bench/syscalls.sh [BUILD_DIR] [ROUNDS]   (defaults: build, 7)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-7}
M=$B/memtap
[ -x "$M" ] || { echo "bench/syscalls.sh: build first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R="$M record -q -f --no-alloc --access=off --no-faults --no-rss"

for w in "dd if=/dev/zero of=/dev/null bs=1 count=400000" "find /usr -type f"; do
	echo "== $w: wall time, $ROUNDS interleaved rounds"
	set -- bare="$w" \
		memtap-no-syscalls="$R -o $T/n.mtap -- $w" \
		memtap-syscalls="$R --syscalls -o $T/s.mtap -- $w" \
		memtap-summary="$R --syscalls=summary -o $T/b.mtap -- $w"
	command -v strace >/dev/null && set -- "$@" strace-c="strace -f -c -o $T/st.txt $w"
	python3 "$HERE/interleave.py" --rounds "$ROUNDS" "$@"
	"$M" info "$T/s.mtap" --format json | python3 -c '
import json, sys
c = [c for c in json.load(sys.stdin)["collectors"] if c["name"] == "syscalls"][0]
print("  recorded %s calls, %d lost events" % (c["details"]["calls"], c["lost"]))'
	echo
done
