#!/bin/sh
# SPDX-License-Identifier: MIT
# Generates the x86-64 syscall name table from the installed kernel header (build time):
#   gen-syscall-names.sh UNISTD_64_H OUT.h
set -eu
in=$1
out=$2
{
	echo "/* Generated from $in by scripts/gen-syscall-names.sh: do not edit. */"
	echo "static const char *const mt_syscall_header_names[] = {"
	sed -n 's/^#define __NR_\([a-z0-9_]*\)[ 	]\{1,\}\([0-9]\{1,\}\)$/	[\2] = "\1",/p' "$in"
	echo "};"
} >"$out.tmp"
mv "$out.tmp" "$out"
