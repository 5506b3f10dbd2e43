#!/bin/sh
# SPDX-License-Identifier: MIT
# A root recording whose workload, as another user, runs a setuid-root program: the loader
# runs it in secure-execution mode (AT_SECURE) and ignores LD_PRELOAD, so memtap cannot trace
# it, and the runtime's variable (the socket's name and the recording's key) must not reach
# it, nor what it runs. Under ptrace the recorder put MEMTAP_RT into every exec'd image,
# this one included. The trace says the program was not traced, and why.
. "$(dirname "$0")/lib.sh"
need ptrace
[ "$(id -u)" = 0 ] || skip "needs root (a setuid-root program run by another user)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
chmod 755 "$T"
cp "$WORKLOADS/envcheck" suid
chown 0:0 suid
chmod 4755 suid
./suid | grep -q 'secure=0' || fail "envcheck as root: $(./suid)"
setpriv --reuid=65534 --regid=65534 --clear-groups ./suid | grep -q 'secure=1' ||
	skip "a setuid program does not run in secure-execution mode here (nosuid mount?)"

for follow in ptrace perf; do
	"$MEMTAP" record -q -o $follow.mtap --follow=$follow -- setpriv --reuid=65534 --regid=65534 \
		--clear-groups ./suid "$WORKLOADS/envcheck" >$follow.out 2>$follow.err ||
		fail "$follow: the recording failed: $(cat $follow.err)"
	cat $follow.out
	[ "$(grep -c 'secure=1.*memtap_rt=absent' $follow.out)" = 2 ] ||
		fail "$follow: memtap's variable reached the setuid program or its child"
	grep -q 'preload=-' $follow.out || fail "$follow: LD_PRELOAD reached the setuid program"
	"$MEMTAP" info $follow.mtap --format json >$follow.json || fail "$follow: info failed"
	check_json $follow.json '(lambda d: int(d["processes_untraced"]) >= 1 and ("secure-execution" in d["untraced"] or "setuid" in d["untraced"]))([c for c in j["collectors"] if c["name"] == "alloc"][0]["details"])' \
		"$follow: the setuid program is not counted as untraced, with its reason"
	ok "--follow=$follow: no memtap variable in the setuid program or its child; counted untraced"
done
