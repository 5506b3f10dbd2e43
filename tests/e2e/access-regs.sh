#!/bin/sh
# SPDX-License-Identifier: MIT
# The ground-truth access test with --access=regs (hardware cycle samples, decoded):
# skipped where the machine exposes no PMU (memtap probe says why).
. "$(dirname "$0")/lib.sh"
need perf-ring vm-readv regs-hw
access_truth regs 0.2
