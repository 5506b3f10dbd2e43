#!/bin/sh
# SPDX-License-Identifier: MIT
# Keeps docs/man in step with the option tables: check-docs.sh MEMTAP DOCS_MAN_DIR
# Every command listed by `memtap --help` must have docs/man/memtap-CMD.md whose block after
# "## Synopsis" is exactly `memtap CMD -h`. UPDATE_GOLDEN=1 rewrites those blocks.
set -u
MEMTAP=$1 DIR=$2
fail=0
cmds=$("$MEMTAP" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" {print $1}')
[ -n "$cmds" ] || { echo "no commands found in memtap --help"; exit 1; }
for c in $cmds; do
	page="$DIR/memtap-$c.md"
	if [ ! -f "$page" ]; then
		echo "missing $page"
		fail=1
		continue
	fi
	"$MEMTAP" "$c" -h >/tmp/check-docs.$$.help
	awk '/^## Synopsis/{s=1; next} s && /^```/{if (inb) exit; inb=1; next} inb{print}' "$page" \
		>/tmp/check-docs.$$.doc
	if ! diff -u /tmp/check-docs.$$.doc /tmp/check-docs.$$.help; then
		if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
			awk -v help=/tmp/check-docs.$$.help '
				/^## Synopsis/ {print; s=1; next}
				s == 1 && /^```/ {print; while ((getline l < help) > 0) print l; s=2; next}
				s == 2 && /^```/ {print; s=3; next}
				s == 2 {next}
				{print}' "$page" >"$page.new" && mv "$page.new" "$page"
			echo "updated $page"
		else
			echo "$page is out of step with 'memtap $c -h' (UPDATE_GOLDEN=1 rewrites it)"
			fail=1
		fi
	fi
done
# memtap(1): its synopsis is `memtap --help`
"$MEMTAP" --help >/tmp/check-docs.$$.help
awk '/^## Synopsis/{s=1; next} s && /^```/{if (inb) exit; inb=1; next} inb{print}' \
	"$DIR/memtap.md" >/tmp/check-docs.$$.doc 2>/dev/null
if ! diff -u /tmp/check-docs.$$.doc /tmp/check-docs.$$.help; then
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		awk -v help=/tmp/check-docs.$$.help '
			/^## Synopsis/ {print; s=1; next}
			s == 1 && /^```/ {print; while ((getline l < help) > 0) print l; s=2; next}
			s == 2 && /^```/ {print; s=3; next}
			s == 2 {next}
			{print}' "$DIR/memtap.md" >"$DIR/memtap.md.new" && mv "$DIR/memtap.md.new" "$DIR/memtap.md"
		echo "updated $DIR/memtap.md"
	else
		echo "$DIR/memtap.md is out of step with 'memtap --help' (UPDATE_GOLDEN=1 rewrites it)"
		fail=1
	fi
fi
rm -f /tmp/check-docs.$$.help /tmp/check-docs.$$.doc
exit $fail
