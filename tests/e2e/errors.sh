#!/bin/sh
# SPDX-License-Identifier: MIT
# Commands that cannot run, existing outputs, and usage errors.
. "$(dirname "$0")/lib.sh"

"$MEMTAP" record -q -o n.mtap -- /nonexistent/cmd 2>n.err
[ $? = 127 ] || fail "missing command: not 127"
[ -e n.mtap ] && fail "a trace was left for a command that never ran"
grep -q "cannot run '/nonexistent/cmd': No such file or directory" n.err || fail "message"
[ "$(wc -l <n.err)" = 1 ] || fail "more than one line for a missing command"
ok "missing command: 127, one line, no trace"

printf 'not a program\n' >plain.txt
"$MEMTAP" record -q -o p.mtap -- ./plain.txt 2>/dev/null
[ $? = 126 ] || fail "non-executable: not 126"
ok "non-executable: 126"

echo keep >x.mtap
"$MEMTAP" record -q -o x.mtap -- true 2>x.err
[ $? = 1 ] || fail "overwrite not refused"
[ "$(cat x.mtap)" = keep ] || fail "existing file was changed"
grep -q -- "--force" x.err || fail "no hint about --force"
"$MEMTAP" record -q -f -o x.mtap -- true || fail "--force did not overwrite"
"$MEMTAP" info x.mtap >/dev/null || fail "forced trace unreadable"
ok "existing output refused without --force, replaced with it"

"$MEMTAP" record -q 2>u.err
[ $? = 2 ] || fail "record without a command: not 2"
grep -q "memtap record -h" u.err || fail "no hint"
"$MEMTAP" record --ring-pages 3 -- true 2>/dev/null
[ $? = 2 ] || fail "bad --ring-pages: not 2"
ok "usage errors exit 2 with a hint"
