#!/bin/sh
# SPDX-License-Identifier: MIT
# Damaged traces through every reading command, the short form (issue 36; the long one is
# bench/mutate.sh): a fresh recording of real programs with the syscall collector too, and
# the stored traces, each damaged MEMTAP_MUTANTS times (flips, zeroed, repeated, cut and
# inserted ranges, cuts, splices) and read by info, dump, report (text, JSON, metrics,
# placement), syscalls, export to every format, view, plot and diff; event-trace files
# damaged through `memtap events`, a running recording's live file through `memtap top
# --once`. Each run ends within 10 s by itself with exit 0, 1 or 2, never a signal or a
# sanitizer report, and a failure says so on stderr (tests/soak/mutate.py). In the
# sanitizer stage this is the check that matters.
. "$(dirname "$0")/lib.sh"
need ptrace
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
"$MEMTAP" record -q -o fresh.mtap --syscalls -- sh -c \
	'ls / >/dev/null; sqlite3 :memory: "create table t(a); insert into t values (1); select * from t;"' >/dev/null ||
	fail "record failed"
# a live file of a running recording, for memtap top
"$MEMTAP" record -q -o live.mtap -- python3 -c 'import time; x = [bytearray(999) for i in range(999)]; time.sleep(1.6)' &
mp=$!
live=${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/memtap}
live=${live:-/tmp/memtap-$(id -u)}
sleep 1.2
cp "$live/$mp.live" sample.live || fail "no live file at $live/$mp.live"
wait $mp || fail "the live recording failed"
seed=${MEMTAP_MUTATE_SEED:-$(date +%s)}
python3 "$SRC/tests/soak/mutate.py" --memtap "$MEMTAP" --mutants "${MEMTAP_MUTANTS:-4}" --seed "$seed" \
	--traces "$PWD/fresh.mtap,$SRC/tests/data/small.mtap,$SRC/tests/data/v2.mtap" \
	--events "$SRC/tests/fuzz/corpus/jsonl/sway.jsonl,$SRC/tests/fuzz/corpus/jsonl/edge.jsonl" \
	--live "$PWD/sample.live" --json mutate.json >mutate.out 2>mutate.err
rc=$?
cat mutate.out
[ $rc = 0 ] || fail "damaged traces failed a command (seed $seed): $(cat mutate.err)"
ok "every damaged trace read by every command: no crash, hang or sanitizer report"
