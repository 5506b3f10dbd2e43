/* SPDX-License-Identifier: MIT */
/*
 * A toy LLM-inference loop with the memory behaviour of a real one, labelled for memtap:
 *
 *   weights      a model file mapped read-only, loaded (touched) once, then read by every
 *                layer of every token: written once, retained for the whole run;
 *   kv_cache     one 16 KiB block per 4 tokens, each page written once by its token and read
 *                by every later token's attention, evicted after WINDOW blocks (a sliding
 *                window): short-lived;
 *   activation   one buffer per layer, rewritten by every token: never write-once.
 *
 * Phases: weight_load, generation, teardown. Usage: toy-llm [SECONDS] [WEIGHTS_FILE]
 * (default 12 s of generation; the weights file is created, 8 MiB, and removed after).
 * Include memtap.h only: without memtap the label calls do nothing.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <memtap/memtap.h>

#define WEIGHTS (8u << 20)
#define LAYERS 4
#define DIM 4096 /* floats per activation buffer: 16 KiB */
#define BLOCK 16384 /* bytes per KV block: 4 tokens of one page each */
#define TOKENS_PER_BLOCK 4
#define WINDOW 2 /* KV blocks kept */
#define STEP_NS 25000000ull /* one token every 25 ms */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const float *make_weights(const char *path)
{
	float *buf = malloc(1 << 20);
	const float *w;
	int fd;

	if (!buf)
		return NULL;
	for (size_t i = 0; i < (1 << 20) / sizeof(float); i++)
		buf[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (unsigned k = 0; k < WEIGHTS >> 20; k++)
		if (write(fd, buf, 1 << 20) != 1 << 20) {
			close(fd);
			free(buf);
			return NULL;
		}
	free(buf);
	w = mmap(NULL, WEIGHTS, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	return w == MAP_FAILED ? NULL : w;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 12.0;
	char tmp[] = "/tmp/toy-llm-XXXXXX";
	const char *path = argc > 2 ? argv[2] : NULL;
	const float *w;
	float *act[LAYERS];
	unsigned char *kv[1024] = { 0 };
	uint64_t t0, deadline;
	double sum = 0;
	unsigned tokens = 0, nblocks = 0;
	char name[64];

	if (!path) {
		int fd = mkstemp(tmp);

		if (fd < 0)
			return 1;
		close(fd);
		path = tmp;
	}
	memtap_phase("weight_load");
	w = make_weights(path);
	if (!w)
		return 1;
	memtap_label(w, WEIGHTS, "weight", "toy.gguf");
	for (size_t i = 0; i < WEIGHTS / sizeof(float); i += 1024) /* load: touch every page */
		sum += w[i];
	for (int l = 0; l < LAYERS; l++) {
		act[l] = aligned_alloc(4096, DIM * sizeof(float));
		if (!act[l])
			return 1;
		memset(act[l], 0, DIM * sizeof(float));
		snprintf(name, sizeof(name), "layer%d.act", l);
		memtap_label(act[l], DIM * sizeof(float), "activation", name);
	}

	memtap_phase("generation");
	t0 = now_ns();
	deadline = t0 + (uint64_t)(seconds * 1e9);
	while (now_ns() < deadline && nblocks < 1024) {
		unsigned b = tokens / TOKENS_PER_BLOCK, slot = tokens % TOKENS_PER_BLOCK;
		float *row;

		if (slot == 0) { /* a new KV block; the oldest beyond the window goes */
			kv[b] = aligned_alloc(4096, BLOCK);
			if (!kv[b])
				return 1;
			snprintf(name, sizeof(name), "kv.block%u", b);
			memtap_label(kv[b], BLOCK, "kv_cache", name);
			nblocks = b + 1;
			if (b >= WINDOW) {
				memtap_unlabel(kv[b - WINDOW]);
				free(kv[b - WINDOW]);
				kv[b - WINDOW] = NULL;
			}
		}
		for (int l = 0; l < LAYERS; l++) {
			const float *wl = w + (size_t)l * (WEIGHTS / sizeof(float) / LAYERS);
			float *a = act[l], *prev = act[l ? l - 1 : LAYERS - 1];

			/* a matrix-vector product over this layer's weights: reads every weight page */
			for (size_t i = 0; i < DIM; i++) {
				float acc = prev[i];

				for (size_t k = 0; k < 8; k++)
					acc += wl[(i * 64 + k * 4099) %
						  (WEIGHTS / sizeof(float) / LAYERS)];
				a[i] = acc * 0.5f; /* the activation is rewritten in full */
			}
			/* attention: read every live KV block */
			for (unsigned j = b >= WINDOW ? b - WINDOW + 1 : 0; j <= b; j++)
				for (size_t i = 0; i < BLOCK; i += 256)
					sum += kv[j][i];
		}
		row = (float *)(kv[b] + (size_t)slot * 4096); /* this token's K/V: one page, once */
		for (size_t i = 0; i < 4096 / sizeof(float); i++)
			row[i] = act[LAYERS - 1][i % DIM];
		tokens++;
		while (now_ns() < t0 + (uint64_t)tokens * STEP_NS)
			sum += act[tokens % LAYERS][tokens % DIM] * 1e-9; /* keep the core busy */
	}

	memtap_phase("teardown");
	for (unsigned j = 0; j < nblocks; j++)
		if (kv[j]) {
			memtap_unlabel(kv[j]);
			free(kv[j]);
		}
	for (int l = 0; l < LAYERS; l++) {
		memtap_unlabel(act[l]);
		free(act[l]);
	}
	memtap_unlabel(w);
	munmap((void *)w, WEIGHTS);
	if (path == tmp)
		unlink(tmp);
	memtap_phase(NULL);
	printf("toy-llm: %u tokens, %u KV blocks, checksum %.3f\n", tokens, nblocks, sum);
	return 0;
}
