#!/bin/sh
# SPDX-License-Identifier: MIT
# View benchmark (issue 6): `memtap view` of a generated trace of N samples (default 10 M;
# mt-test-tool gen-synth): the seconds memtap takes, the page's size (must stay under 20 MB),
# and the time headless Chromium takes from opening the file to the page being drawn (must
# stay under 2 s), the median of 3 loads. Needs Debian's chromium and playwright-core from
# npm (installed into BUILD/npm-test as the tests do).
# usage: bench/view.sh [BUILD_DIR] [SAMPLES]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
N=${2:-10000000}
M=$B/memtap
NPM=$B/npm-test
[ -x "$M" ] || { echo "bench/view.sh: build first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$B/tests/mt-test-tool" gen-synth "$N" "$T/s.mtap"
/usr/bin/time -f "%e %M" -o "$T/time" "$M" view "$T/s.mtap" -o "$T/s.html" 2>"$T/err"
set -- $(cat "$T/time")
size=$(stat -c %s "$T/s.html")
printf 'memtap view: %s s, peak RSS %d MiB; page %.1f MB (%s)\n' "$1" $(($2 / 1024)) \
	"$(echo "$size / 1000000" | bc -l)" "$(sed 's/^memtap: //' "$T/err")"
if [ ! -x /usr/bin/chromium ] || [ ! -d "$NPM/node_modules/playwright-core" ]; then
	echo "render time not measured: needs /usr/bin/chromium and $NPM/node_modules/playwright-core"
	exit 0
fi
cp "$HERE/../tests/e2e/view-check.mjs" "$NPM/"
for i in 1 2 3; do
	node "$NPM/view-check.mjs" "$T/s.html" "" --no-interact |
		python3 -c 'import json, sys; j = json.load(sys.stdin); assert not j["errors"] and not j["requests"], j; print(j["ready_ms"])'
done | sort -n | sed -n 2p | xargs printf 'Chromium: drawn %s ms after opening the file (median of 3)\n'
