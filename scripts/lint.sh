#!/bin/sh
# SPDX-License-Identifier: MIT
# Static checks that need no build: formatting, banned functions, file headers.
# lint.sh [--fix]   (--fix rewrites files with clang-format)
set -u
cd "$(dirname "$0")/.."
fail=0
files=$(git ls-files --cached --others --exclude-standard '*.c' '*.h' 2>/dev/null || find src tests include examples -name '*.[ch]')
if command -v clang-format >/dev/null; then
	if [ "${1:-}" = --fix ]; then
		clang-format -i $files
	else
		for f in $files; do
			if ! clang-format --dry-run --Werror "$f" 2>/dev/null; then
				echo "lint: $f is not clang-formatted (scripts/lint.sh --fix)"
				fail=1
			fi
		done
	fi
else
	echo "lint: clang-format not installed; formatting not checked"
fi
# Functions that invite overflows or hidden global state (git's banned.h list).
if grep -nE '(^|[^_a-z0-9])(strcpy|strcat|strncpy|sprintf|vsprintf|strtok|gmtime|localtime|asctime|ctime)[[:space:]]*\(' $files; then
	echo "lint: banned function above (use mt_strlcpy, snprintf, strtok_r, gmtime_r, ...)"
	fail=1
fi
for f in $files; do
	if ! head -1 "$f" | grep -q 'SPDX-License-Identifier'; then
		echo "lint: $f lacks an SPDX line"
		fail=1
	fi
done
# Include directions: a layer includes only itself and the layers below it
# (docs/architecture.md); the build enforces the same through its link dependencies.
allowed() {
	case $1 in
	common) echo "common" ;;
	format) echo "common format" ;;
	rt) echo "common format rt" ;;
	heap) echo "heap" ;;
	decode) echo "common decode" ;;
	record) echo "common format decode record" ;;
	analysis) echo "common format decode analysis" ;;
	export) echo "common format decode analysis export" ;;
	lib) echo "common format decode analysis export lib" ;;
	exp) echo "common format decode record analysis export exp" ;;
	cli) echo "common format decode record analysis export lib exp cli" ;;
	esac
}
for f in $(echo "$files" | tr ' ' '\n' | grep '^src/'); do
	layer=$(echo "$f" | cut -d/ -f2)
	ok=$(allowed "$layer")
	for inc in $(grep -o '^#include "[a-z]*/' "$f" | sed 's/#include "//; s|/||' | sort -u); do
		case " $ok " in
		*" $inc "*) ;;
		*)
			echo "lint: $f includes $inc/, above its layer $layer (docs/architecture.md)"
			fail=1
			;;
		esac
	done
done
[ $fail = 0 ] && echo "lint: ok ($(echo $files | wc -w) files)"
exit $fail
