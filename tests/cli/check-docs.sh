#!/bin/sh
# SPDX-License-Identifier: MIT
# Keeps docs/man in step with the option tables: check-docs.sh MEMTAP DOCS_MAN_DIR
# Every command listed by `memtap --help` must have docs/man/memtap-CMD.md whose block after
# "## Synopsis" is exactly `memtap CMD -h`, and docs/man/memtap.md's is `memtap --help`.
# UPDATE_GOLDEN=1 rewrites those blocks.
set -u
MEMTAP=$1 DIR=$2
fail=0
HELP=/tmp/check-docs.$$.help DOC=/tmp/check-docs.$$.doc

# check PAGE ARGS...: PAGE's Synopsis block against `memtap ARGS...`
check() {
	page=$1
	shift
	if [ ! -f "$page" ]; then
		echo "missing $page"
		fail=1
		return
	fi
	"$MEMTAP" "$@" >"$HELP"
	awk '/^## Synopsis/{s=1; next} s && /^```/{if (inb) exit; inb=1; next} inb{print}' "$page" >"$DOC"
	diff -u "$DOC" "$HELP" && return
	if [ "${UPDATE_GOLDEN:-0}" != 1 ]; then
		echo "$page is out of step with 'memtap $*' (UPDATE_GOLDEN=1 rewrites it)"
		fail=1
		return
	fi
	awk -v help="$HELP" '
		/^## Synopsis/ {print; s=1; next}
		s == 1 && /^```/ {print; while ((getline l < help) > 0) print l; s=2; next}
		s == 2 && /^```/ {print; s=3; next}
		s == 2 {next}
		{print}' "$page" >"$page.new" && mv "$page.new" "$page"
	echo "updated $page"
}

cmds=$("$MEMTAP" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" {print $1}')
[ -n "$cmds" ] || { echo "no commands found in memtap --help"; exit 1; }
for c in $cmds; do
	check "$DIR/memtap-$c.md" "$c" -h
done
check "$DIR/memtap.md" --help
rm -f "$HELP" "$DOC"
exit $fail
