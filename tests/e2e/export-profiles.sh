#!/bin/sh
# SPDX-License-Identifier: MIT
# export --to pprof and --to speedscope read by independent readers (npm's pprof-format, and
# speedscope's own file-format schema through ajv), their totals equal to memtap report's,
# for a program whose sites are known, in both allocation modes; a trace without allocations
# is refused in one line.
. "$(dirname "$0")/lib.sh"
need ptrace
command -v node >/dev/null || skip "node is not installed"
need_npm pprof-format@2.3.2 speedscope@1.25.0 ajv@8.20.0

for mode in events sites; do
	"$MEMTAP" record -q -o $mode.mtap --alloc=$mode -- "$WORKLOADS/alloc-exact" >/dev/null ||
		fail "record ($mode) failed"
	"$MEMTAP" report $mode.mtap --format json >$mode.json || fail "report failed"
	"$MEMTAP" export $mode.mtap --to pprof -o $mode.pb.gz || fail "export --to pprof failed"
	"$MEMTAP" export $mode.mtap --to speedscope -o $mode.speedscope.json ||
		fail "export --to speedscope failed"
	node "$SRC/tests/e2e/export-profiles.mjs" "$NPM_DIR/node_modules" $mode.pb.gz \
		$mode.speedscope.json $mode.json mid_alloc 1000 || fail "--alloc=$mode: the profiles are wrong (above)"
done
ok "pprof and speedscope of both allocation modes"

"$MEMTAP" record -q -o n.mtap --no-alloc -- true || fail "record failed"
"$MEMTAP" export n.mtap --to pprof -o n.pb.gz 2>err.txt
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q "no allocation events to profile" err.txt &&
	[ ! -e n.pb.gz ] || fail "pprof of a trace without allocations: rc $rc, $(cat err.txt)"
ok "a trace without allocations: one line, exit 1, no file"
