#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's engine commands run after either of the README's two set-up commands
# (issue 35): examples/engines/find-memtap.sh finds memtap on PATH, else in build-release/
# (scripts/demo.sh) or build/ (scripts/test.sh), the newer when both exist, and says in one
# line when there is none; then torch.sh runs end to end from this source tree with memtap
# off PATH, finding the build CTest runs from.
. "$(dirname "$0")/lib.sh"

# The finder alone, in trees laid out as each set-up command leaves them.
tree() { # DIR BUILD...: a tree with examples/engines and a memtap in each BUILD folder
	mkdir -p "$1/examples/engines"
	cp "$SRC/examples/engines/find-memtap.sh" "$1/examples/engines/"
	shift
	for b in "$@"; do
		mkdir -p "$(dirname "$b")"
		printf '#!/bin/sh\n' >"$b" && chmod +x "$b"
	done
}
found() { # DIR [ARG]: the memtap the finder picks in DIR, with PATH holding no memtap
	(HERE=$1/examples/engines && . "$HERE/find-memtap.sh" && PATH=/usr/bin:/bin find_memtap "${2:-}" && echo "$M")
}
tree demo demo/build-release/memtap
[ "$(found "$PWD/demo")" = "$PWD/demo/build-release/memtap" ] || fail "the demo's build-release/ was not found"
tree ci ci/build/memtap
[ "$(found "$PWD/ci")" = "$PWD/ci/build/memtap" ] || fail "the test suite's build/ was not found"
tree both both/build/memtap both/build-release/memtap
touch -d '1 hour ago' both/build/memtap
[ "$(found "$PWD/both")" = "$PWD/both/build-release/memtap" ] || fail "the newer build was not taken"
[ "$(found "$PWD/both" /bin/true)" = /bin/true ] || fail "the memtap given was not taken"
tree none
found "$PWD/none" >none.out 2>none.err && fail "no memtap, yet the finder went on"
[ "$(wc -l <none.err)" = 1 ] && grep -q "no memtap at .*scripts/demo.sh" none.err ||
	fail "no memtap: not one line naming what to do: $(cat none.err)"
ok "find-memtap.sh: build-release/, build/, the newer, the one given, one line when none"

/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || skip "python3-torch is not installed (apt-get install python3-torch)"
need perf-ring
# This source tree with memtap off PATH: torch.sh must find CTest's build by itself.
case "$(dirname "$MEMTAP")" in
"$SRC/build" | "$SRC/build-release") ;;
*) skip "this build ($MEMTAP) is not one of the README's folders" ;;
esac
TMPDIR=$PWD PATH=/usr/bin:/bin sh "$SRC/examples/engines/torch.sh" 4 >torch.out 2>torch.err ||
	fail "torch.sh failed: $(tail -3 torch.err)"
grep -q "weight .*profile model-files" torch.out || fail "torch.sh printed no weight candidate: $(tail -5 torch.out)"
ok "examples/engines/torch.sh found $(dirname "$MEMTAP") and printed the candidates"
