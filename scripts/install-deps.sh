#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs every package memtap needs to build and test, from Debian 12 (idempotent: does
# nothing when all are present). Run as root, or with sudo available.
set -eu
# Build: compilers, CMake, and the libraries memtap links (zstd, elfutils' libelf/libdw;
# libunwind only for the unwinder cross-check test; Zydis 4 to decode sampled instructions;
# libmemkind for libmemtap-heap.so, the heap placement of experiments). Tests: the real programs and the
# peer tool they run under memtap (heaptrack, sqlite3, redis), stress-ng (a busy neighbour for
# the experiments' validity test), Slurm and munge (the single-node cluster of memtap run --slurm's test); Chromium for the view's
# browser tests, gnuplot for memtap plot's PNG output; the real inference engines of the
# engine tests: PyTorch (python3-torch) and node for llama.cpp (node-llama-cpp comes from npm,
# installed by the test itself); python3.11-dev's headers, against which a unit test checks
# the runtime's CPython 3.11 frame offsets. Install: pandoc makes the manual pages, dpkg-dev's
# dpkg-shlibdeps the package's dependencies; zsh checks its completion script.
PKGS="gcc clang libzydis-dev libclang-rt-14-dev cmake ninja-build pkg-config make git
zlib1g-dev libzstd-dev libelf-dev libdw-dev libyaml-dev libsqlite3-dev libunwind-dev libbpf-dev bpftool
libmemkind-dev
python3 python3-pandas procps clang-format perl linux-perf time
heaptrack sqlite3 redis-server redis-tools chromium gnuplot-nox stress-ng iperf3 strace tmux
slurmctld slurmd slurm-client munge
python3-numpy python3-torch nodejs python3.11-dev
pandoc zsh dpkg-dev"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: run as root (missing:$missing)" >&2; exit 1; }
	SUDO=sudo
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
