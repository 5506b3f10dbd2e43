#!/bin/sh
# SPDX-License-Identifier: MIT
# export --to perfetto writes Perfetto's protobuf trace: decoded by protobufjs (npm) against
# Perfetto's message definitions with nothing left undecoded, every event on a described
# track, slices balanced, and every counter value, instant and slice equal to the JSON
# form's (--perfetto-json) of the same trace; its system calls, RSS records and faults those of
# memtap report.
. "$(dirname "$0")/lib.sh"
need ptrace
command -v node >/dev/null || skip "node is not installed"
need_npm protobufjs@7.6.6

"$MEMTAP" record -q -f --syscalls -o t.mtap -- "$(dirname "$MEMTAP")/examples/toy-llm" 1 \
	>/dev/null 2>rec.err || fail "record toy-llm failed: $(cat rec.err)"
"$MEMTAP" export t.mtap --to perfetto --min-syscall-us 0 --min-alloc 65536 -o t.pb ||
	fail "export --to perfetto failed"
"$MEMTAP" export t.mtap --to perfetto --perfetto-json --min-syscall-us 0 --min-alloc 65536 \
	-o t.json || fail "export --perfetto-json failed"
"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
node "$SRC/tests/e2e/perfetto-check.mjs" "$NPM_DIR/node_modules" t.pb t.json \
	"$SRC/tests/e2e/perfetto-trace.proto" r.json || fail "the protobuf trace is wrong (above)"
ok "the protobuf trace decodes against Perfetto's definitions and equals the JSON form"
[ "$(wc -c <t.pb)" -lt "$(wc -c <t.json)" ] || fail "the protobuf trace is larger than the JSON"
ok "$(wc -c <t.pb) bytes of protobuf against $(wc -c <t.json) of JSON"
