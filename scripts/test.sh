#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole test suite, as CI runs it: install dependencies, lint, build with gcc (-Werror),
# with clang ASan+UBSan and with libFuzzer; run the sanitizer build's tests (all but those
# that LD_PRELOAD into other programs), a short fuzz smoke, and finally the full suite of
# the gcc build, whose CTest summary is the last thing printed.
set -eu
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)
T0=$(date +%s)
stage() { echo "== $* (at $(($(date +%s) - T0)) s)"; }
./scripts/install-deps.sh

stage "lint"
./scripts/lint.sh

stage "build: dev (gcc, -Werror)"
cmake --preset dev >/dev/null
cmake --build build -j "$JOBS"

stage "build: asan (clang, ASan+UBSan)"
cmake --preset asan >/dev/null
cmake --build build-asan -j "$JOBS"

# A plain user build never stops at a warning (MEMTAP_WERROR is off by default); CI builds the
# optimised product (not its tests) of both compilers with -Werror, since -O3 finds warnings
# -O2 and -O0 do not.
for preset in ci-release ci-clang; do
	stage "build: $preset (-O3, -Werror)"
	cmake --preset "$preset" >/dev/null
	cmake --build "build-$preset" -j "$JOBS"
done

stage "build: fuzz (clang, libFuzzer)"
cmake --preset fuzz >/dev/null
cmake --build build-fuzz -j "$JOBS" --target fuzz-reader fuzz-maps fuzz-access fuzz-rules fuzz-pqfooter fuzz-cfi fuzz-experiment fuzz-jsonl fuzz-tiers

status=0
stage "tests: ASan+UBSan build, all but preload"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	ctest --test-dir build-asan -LE 'preload|fuzz' -j "$JOBS" --output-on-failure || status=1

stage "fuzz smoke (${MEMTAP_FUZZ_SECONDS:-30} s per target)"
ctest --test-dir build-fuzz -R 'fuzz/smoke' -j "$JOBS" --output-on-failure || status=1

# The user-facing contract (command names, JSON keys), for every section built so far, when
# MEMTAP_CONTRACT_CHECK names the checker (it is not part of this repository).
CC_TOOL=${MEMTAP_CONTRACT_CHECK:-}
stage "contract check: core alloc access faults rss syscalls regions"
if [ -n "$CC_TOOL" ] && [ -x "$CC_TOOL" ]; then
	"$CC_TOOL" build/memtap core alloc access faults rss syscalls regions || status=1
else
	echo "contract check skipped: set MEMTAP_CONTRACT_CHECK to the checker"
fi

stage "tests: full suite (gcc build)"
ctest --test-dir build -j "$JOBS" --output-on-failure || status=1
stage "done"
exit $status
