#!/bin/sh
# SPDX-License-Identifier: MIT
# The short form of the soak suite (issue 36; the long one is bench/soak.sh): random SIGKILLs
# to the recorder, to the program and to both at a random moment of recordings of CPython
# and sqlite3, and recordings into a tmpfs that fills at a random point (one trial with the
# disk full at the start). Every trial: the program's output and exit status are the bare
# run's (or it died of the SIGKILL sent to it), the trace reads to its last complete chunk
# and says so in one line, or is complete, or is absent after a one-line error — never empty,
# never unreadable; nothing crashes or hangs (tests/soak/soak.py says each outcome).
. "$(dirname "$0")/lib.sh"
need ptrace
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
python3 "$SRC/tests/soak/soak.py" --memtap "$MEMTAP" --trials "${MEMTAP_SOAK_TRIALS:-3}" \
	--disk "${MEMTAP_SOAK_DISK:-3}" --programs python,sqlite --json soak.json >soak.out 2>soak.err
rc=$?
cat soak.out
[ $rc = 0 ] || fail "soak trials failed: $(cat soak.err)"
ok "every kill and full disk survived"
