#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes a libbpf skeleton header for a BPF object (build time):
#   bpf-skeleton.sh BPFTOOL OBJECT NAME OUT.h
set -eu
"$1" gen skeleton "$2" name "$3" >"$4.tmp"
mv "$4.tmp" "$4"
