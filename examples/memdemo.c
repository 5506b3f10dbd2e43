/* SPDX-License-Identifier: MIT */
/* memtap's bundled example: a small program with recognisable memory behaviour. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * What it does, so that the trace can be checked against it:
 *  - "weights": writes an 8 MiB file, maps it read-only and reads it twice (file-backed,
 *    read-mostly, long-lived);
 *  - "kv cache": a table that grows by 1 MiB blocks, written once and read many times;
 *  - "activations": short-lived 256 KiB scratch buffers, written and freed at once;
 *  - two worker threads, and a child process that runs `sh -c 'echo ...'`.
 */

#define WEIGHTS (8u << 20)
#define BLOCK (1u << 20)
#define NBLOCKS 16

static unsigned char *kv[NBLOCKS];

static void *worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint64_t sum = 0;

	for (int round = 0; round < 4; round++)
		for (int b = 0; b < NBLOCKS; b++)
			for (size_t i = id; i < BLOCK; i += 4096)
				sum += kv[b][i];
	return (void *)(uintptr_t)sum;
}

int main(void)
{
	char path[] = "/tmp/memdemo-weights-XXXXXX";
	unsigned char *w;
	uint64_t sum = 0;
	pthread_t t[2];
	int fd = mkstemp(path);
	pid_t child;

	if (fd < 0 || ftruncate(fd, WEIGHTS) < 0)
		return perror("weights"), 1;
	w = mmap(NULL, WEIGHTS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED)
		return perror("mmap"), 1;
	for (size_t i = 0; i < WEIGHTS; i++)
		w[i] = (unsigned char)(i * 31);
	munmap(w, WEIGHTS);
	w = mmap(NULL, WEIGHTS, PROT_READ, MAP_PRIVATE, fd, 0);
	if (w == MAP_FAILED)
		return perror("mmap"), 1;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < WEIGHTS; i += 64)
			sum += w[i];

	for (int b = 0; b < NBLOCKS; b++) {
		unsigned char *act = malloc(256 << 10);

		kv[b] = malloc(BLOCK);
		if (!kv[b] || !act)
			return 1;
		memset(act, b, 256 << 10);
		memcpy(kv[b], act, 256 << 10);
		memset(kv[b] + (256 << 10), b + 1, BLOCK - (256 << 10));
		free(act);
	}
	for (uintptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (uintptr_t)r;
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		execlp("sh", "sh", "-c", "echo memdemo: child process says hello", (char *)NULL);
		_exit(127);
	}
	waitpid(child, NULL, 0);
	for (int b = 0; b < NBLOCKS; b++)
		free(kv[b]);
	munmap(w, WEIGHTS);
	close(fd);
	unlink(path);
	printf("memdemo: checksum %llu\n", (unsigned long long)sum);
	return 0;
}
