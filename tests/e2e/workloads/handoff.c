/* SPDX-License-Identifier: MIT */
/*
 * A message queue whose messages are freed by another thread than the one that allocated
 * them (the --alloc=sites fold and record --max-size must see each allocation before its
 * free, whichever thread's rows reach the recorder first). P producers allocate N messages
 * each (16 to 2,032 bytes) and, every EVERY messages (default 1,000), a 64 KiB batch buffer;
 * C consumers free both. Before exiting, stash() leaks 100 blocks of 1,000 bytes. Prints the
 * known answer as JSON and exits with STATUS.
 * usage: handoff P N C [STATUS [EVERY]]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 4096

static void *ring[RING];
static size_t head, tail; /* head: next to take, tail: next to put */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t can_put = PTHREAD_COND_INITIALIZER, can_take = PTHREAD_COND_INITIALIZER;
static long per_producer, every = 1000;
static int producers_left;

static void put(void *p)
{
	pthread_mutex_lock(&mu);
	while (tail - head == RING)
		pthread_cond_wait(&can_put, &mu);
	ring[tail++ % RING] = p;
	pthread_cond_signal(&can_take);
	pthread_mutex_unlock(&mu);
}

/* NULL when every producer is done and the ring is empty. */
static void *take(void)
{
	void *p = NULL;

	pthread_mutex_lock(&mu);
	while (head == tail && producers_left)
		pthread_cond_wait(&can_take, &mu);
	if (head != tail) {
		p = ring[head++ % RING];
		pthread_cond_signal(&can_put);
	}
	pthread_mutex_unlock(&mu);
	return p;
}

static size_t message_size(long i)
{
	return 16 + (size_t)(i * 37 % 127) * 16;
}

__attribute__((noinline)) static void *produce_message(long i)
{
	char *m = malloc(message_size(i));

	if (m)
		m[0] = (char)i;
	return m;
}

__attribute__((noinline)) static void *produce_batch(void)
{
	char *b = malloc(64 << 10);

	if (b)
		memset(b, 1, 4096);
	return b;
}

static void *producer(void *arg)
{
	(void)arg;
	for (long i = 0; i < per_producer; i++) {
		put(produce_message(i));
		if (i % every == every - 1)
			put(produce_batch());
	}
	pthread_mutex_lock(&mu);
	producers_left--;
	pthread_cond_broadcast(&can_take);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *consumer(void *arg)
{
	void *p;

	(void)arg;
	while ((p = take()))
		free(p);
	return NULL;
}

__attribute__((noinline)) static void stash(void **keep)
{
	for (int i = 0; i < 100; i++)
		keep[i] = malloc(1000);
}

int main(int argc, char **argv)
{
	static void *keep[100];
	pthread_t th[64];
	int np, nc, status;
	unsigned long long bytes = 0;

	if (argc < 4)
		return 2;
	np = atoi(argv[1]);
	per_producer = atol(argv[2]);
	nc = atoi(argv[3]);
	status = argc > 4 ? atoi(argv[4]) : 0;
	every = argc > 5 ? atol(argv[5]) : 1000;
	if (np < 1 || nc < 1 || np + nc > 64 || per_producer < 1 || every < 1)
		return 2;
	producers_left = np;
	for (int i = 0; i < nc; i++)
		pthread_create(&th[np + i], NULL, consumer, NULL);
	for (int i = 0; i < np; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (int i = 0; i < np + nc; i++)
		pthread_join(th[i], NULL);
	stash(keep);
	for (long i = 0; i < per_producer; i++)
		bytes += message_size(i);
	printf("{\"messages\": %lld, \"message_bytes\": %llu, \"batches\": %lld, "
	       "\"batch_bytes\": %lld, \"leaked_blocks\": 100, \"leaked_bytes\": 100000}\n",
	       (long long)np * per_producer, bytes * (unsigned long long)np,
	       (long long)np * (per_producer / every),
	       (long long)np * (per_producer / every) << 16);
	return status;
}
