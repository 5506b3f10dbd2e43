# SPDX-License-Identifier: MIT
# Sourced by the engine scripts: sets M to the memtap to run — the one given ($1), else memtap
# on PATH, else the build the README's commands made (build-release/ by scripts/demo.sh,
# build/ by scripts/test.sh; the newer of the two when both exist).
find_memtap() {
	if [ -n "${1:-}" ]; then
		M=$1
	elif command -v memtap >/dev/null; then
		M=$(command -v memtap)
	else
		top=$(cd "$HERE/../.." && pwd)
		M=""
		for b in "$top/build-release/memtap" "$top/build/memtap"; do
			[ -x "$b" ] || continue
			if [ -z "$M" ] || [ "$b" -nt "$M" ]; then M=$b; fi
		done
		[ -n "$M" ] || M=$top/build-release/memtap
	fi
	[ -x "$M" ] || {
		echo "$(basename "$0"): no memtap at $M (run ./scripts/demo.sh to build it, or pass its path)" >&2
		exit 2
	}
}
