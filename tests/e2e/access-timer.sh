#!/bin/sh
# SPDX-License-Identifier: MIT
# The ground-truth access test with --access=timer (cpu-clock samples, decoded).
. "$(dirname "$0")/lib.sh"
need perf-ring vm-readv regs-sw
access_truth timer 0.2
