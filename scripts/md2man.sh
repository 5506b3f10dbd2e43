#!/bin/sh
# SPDX-License-Identifier: MIT
# One docs/man page as a troff manual page: md2man.sh PANDOC IN.md OUT.1 VERSION
# The page's first line ("# memtap-record(1)") becomes pandoc's title header.
set -eu
name=$(basename "$2" .md)
mkdir -p "$(dirname "$3")"
sed '1{/^# /d;}' "$2" | "$1" --standalone --from markdown --to man --shift-heading-level-by=-1 \
	--metadata title="$(echo "$name" | tr '[:lower:]' '[:upper:]')" --metadata section=1 \
	--metadata header="memtap manual" --metadata footer="memtap $4" --metadata date="" \
	-o "$3.tmp"
mv "$3.tmp" "$3"
