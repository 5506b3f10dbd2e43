#!/bin/sh
# SPDX-License-Identifier: MIT
# Progress on a terminal (issue 14, item 13): report, export, view and plot of a large trace
# show the pass, the bytes read of the total, the rate and the time left on a TTY (script(1)
# gives them one), and print nothing of it when stderr is not a terminal.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script(1) is not installed"

# Progress shows once a pass has run 200 ms: the release build needs a large trace for that,
# the sanitizer build (several times slower) a fifth of it.
events=8000000
sanitized && events=1600000
"$TOOL" gen-synth "$events" s.mtap || fail "gen-synth failed"
for c in "report s.mtap" "export s.mtap --to csv -o csv" "view s.mtap -o v.html" "plot s.mtap --kind wss -o w.svg"; do
	rm -rf csv v.html w.svg
	script -qec "$MEMTAP $c >/dev/null" /dev/null >tty.txt 2>&1 || fail "memtap $c failed on a terminal: $(tail -c 300 tty.txt)"
	tr '\r' '\n' <tty.txt | grep -E -q 'pass [0-9]+: +[0-9]+% \(.* of .*, .*/s' ||
		fail "memtap $c showed no progress on a terminal: $(tr '\r' '\n' <tty.txt | tail -3)"
	rm -rf csv v.html w.svg
	$MEMTAP $c >/dev/null 2>err.txt || fail "memtap $c failed: $(cat err.txt)"
	grep -q "pass" err.txt && fail "memtap $c printed progress to a file: $(cat err.txt)"
done
ok "progress with rate and time left on a terminal, none otherwise"
