#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs one golden CLI case: run-case.sh MEMTAP DATA_DIR CASE_DIR
# CASE_DIR/cmd holds one shell command line using $MEMTAP; it runs in a scratch copy of
# DATA_DIR. Its stdout, stderr and exit status are compared with CASE_DIR/out, err and rc
# (a missing file means empty output, status 0). UPDATE_GOLDEN=1 rewrites them.
set -u
MEMTAP=$1 DATA=$2 CASE=$3
export MEMTAP
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cp -R "$DATA"/. "$T"/
(cd "$T" && sh -c "$(cat "$CASE/cmd")" >"$T/.out" 2>"$T/.err"; echo $? >"$T/.rc")
[ -f "$CASE/out" ] || : >"$T/.want_out"
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$T/.out" "$CASE/out"
	cp "$T/.err" "$CASE/err"
	cp "$T/.rc" "$CASE/rc"
	[ -s "$CASE/err" ] || rm -f "$CASE/err"
	[ "$(cat "$CASE/rc")" = 0 ] && rm -f "$CASE/rc"
	[ -s "$CASE/out" ] || rm -f "$CASE/out"
	exit 0
fi
fail=0
for f in out err; do
	want="$CASE/$f"
	[ -f "$want" ] || want=/dev/null
	if ! diff -u "$want" "$T/.$f" >"$T/.diff"; then
		echo "--- $f differs:"
		cat "$T/.diff"
		fail=1
	fi
done
want_rc=0
[ -f "$CASE/rc" ] && want_rc=$(cat "$CASE/rc")
got_rc=$(cat "$T/.rc")
if [ "$want_rc" != "$got_rc" ]; then
	echo "--- exit status: want $want_rc, got $got_rc"
	fail=1
fi
exit $fail
