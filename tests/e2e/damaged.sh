#!/bin/sh
# SPDX-License-Identifier: MIT
# A real trace cut at many offsets, and with bytes flipped: info, dump and report never crash,
# say what happened in one line, and exit 0 (readable prefix) or 1 (no usable header).
. "$(dirname "$0")/lib.sh"
need ptrace

"$MEMTAP" record -q -o full.mtap -- sh -c 'ls / >/dev/null; echo x | cat >/dev/null' || fail "record"
size=$(stat -c %s full.mtap)
full_events=$("$MEMTAP" dump full.mtap | wc -l)
off=0
step=$((size / 150 + 1))
while [ $off -lt "$size" ]; do
	head -c $off full.mtap >cut.mtap
	for cmd in info dump report; do
		"$MEMTAP" $cmd cut.mtap >out 2>err
		rc=$?
		if [ $off -lt 96 ]; then
			[ $rc = 1 ] || fail "$cmd at cut $off: exit $rc, want 1"
		else
			[ $rc = 0 ] || fail "$cmd at cut $off: exit $rc, want 0"
			grep -q "'cut.mtap'" err || fail "$cmd at cut $off: no warning naming the file"
		fi
		[ "$(wc -l <err)" -le 1 ] || { cat err; fail "$cmd at cut $off: more than one stderr line"; }
	done
	n=$(wc -l <out)
	[ "$n" -le "$full_events" ] || fail "cut $off: more events than the whole trace"
	off=$((off + step))
done
ok "cut at $((size / step)) offsets of $size bytes: no crash, one line, prefix readable"

python3 - full.mtap <<'PY' || fail "could not write damaged copies"
import random
data = bytearray(open("full.mtap", "rb").read())
rnd = random.Random(42)
for i in range(40):
    d = bytearray(data)
    for _ in range(1 + i % 4):
        p = rnd.randrange(96, len(d))
        d[p] ^= 1 << rnd.randrange(8)
    open("flip%02d.mtap" % i, "wb").write(d)
PY
for f in flip*.mtap; do
	for cmd in info dump report; do
		"$MEMTAP" $cmd "$f" >out 2>err
		rc=$?
		[ $rc -le 1 ] || fail "$cmd $f: exit $rc"
		[ "$(wc -l <err)" -le 1 ] || { cat err; fail "$cmd $f: more than one stderr line"; }
	done
	"$MEMTAP" info "$f" >/dev/null 2>err
	[ -s err ] || fail "info $f: flipped bits went unnoticed"
done
ok "40 traces with flipped bits: each reported, none crashed"
