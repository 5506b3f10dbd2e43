#!/bin/sh
# SPDX-License-Identifier: MIT
# Load, the short form (issue 36; bench/soak.sh runs 10 minutes): redis-server recorded with
# every default collector for MEMTAP_LOAD_SECONDS (12) under redis-benchmark. The recording
# ends with the server, its trace reads, at most 1 % of the events are lost (each counted by
# its collector; 0 here), and
# the recorder's resident memory at the end is within 1.5x (+ 16 MiB) of its size at half
# time (tests/soak/load.sh prints the figures).
. "$(dirname "$0")/lib.sh"
need ptrace
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null || skip "redis is not installed"
sh "$SRC/tests/soak/load.sh" "$MEMTAP" "${MEMTAP_LOAD_SECONDS:-12}" >load.out 2>load.err || fail "load.sh failed: $(cat load.out load.err)"
cat load.out
read -r _ name secs r10 r50 r100 mbmin events lost by <load.out
[ "$name" = redis ] || fail "no figures: $(cat load.out load.err)"
[ "$events" -gt 100000 ] || fail "only $events events in $secs s of redis-benchmark"
[ "$r100" -le $((r50 * 3 / 2 + 16384)) ] || fail "the recorder grew from $r50 kB at half time to $r100 kB"
[ "$lost" -le $((events / 100)) ] || fail "$lost events lost of $events: $by"
ok "redis under load for $secs s: $events events, $lost lost (counted), recorder $r50 -> $r100 kB"
