/* SPDX-License-Identifier: MIT */
/* memtap plot: figures for papers (placeholder replaced below). */
#include "cli/commands.h"

const struct mt_command_spec mt_plot_spec = {
	.name = "plot", .usage = "FILE...", .summary = "x", .min_args = 1, .max_args = 64
};

int cmd_plot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 1;
}
