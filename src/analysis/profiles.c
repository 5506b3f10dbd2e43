/* SPDX-License-Identifier: MIT */
/*
 * The built-in engine profiles (docs/metrics.md, "Region types"). Each is a rule set in the
 * --rules format, parsed by the same parser; a rule names its profile as its source, so the
 * report can say which rule typed a region. Symbol rules match any frame of a region's
 * allocation stack (C++ names demangled, as llama.cpp's libllama exports them in .dynsym);
 * path rules match a file mapping's path.
 */
#include "analysis/profiles.h"

#include <stdio.h>
#include <string.h>

#include "analysis/rules.h"
#include "common/strutil.h"

/* llama.cpp / ggml (checked with node-llama-cpp 3.22.1, libllama 0.5.0): the KV cache's
 * buffers come from the llama_kv_cache constructor through ggml_backend_alloc_ctx_tensors
 * (its other allocations — cell bookkeeping, vectors — are the runtime's);
 * the compute graph's buffers from the graph allocator reserving for the scheduler; weights
 * are the mapped GGUF file, or buffers the model loader fills when mmap is off. */
static const char llama_cpp[] =
	"rules:\n"
	"  - symbol: \"^llama_kv_cache\"\n"
	"    with: \"^ggml_backend_alloc_ctx_tensors|^ggml_backend_buft_alloc_buffer\"\n"
	"    region_type: kv_cache\n"
	"  - symbol: \"^llama_memory_recurrent\"\n"
	"    with: \"^ggml_backend_alloc_ctx_tensors|^ggml_backend_buft_alloc_buffer\"\n"
	"    region_type: kv_cache\n"
	"  - symbol: \"^llama_kv_cache|^llama_memory_recurrent\"\n"
	"    region_type: runtime\n"
	"  - symbol: \"^llama_model_loader::load_all_data|^llama_model::load_tensors\"\n"
	"    region_type: weight\n"
	"  - symbol: \"^ggml_gallocr_(reserve|alloc)|^ggml_backend_sched_(reserve|alloc)\"\n"
	"    region_type: activation\n"
	"  - symbol: \"^ggml_backend_sched_new|^ggml_threadpool_new\"\n"
	"    region_type: runtime\n";

/* PyTorch with Hugging Face's conventions, by the Python frames of the allocation stacks
 * (CPython 3.11): the KV cache's tensors are allocated in the cache classes' update (the
 * dynamic cache's torch.cat) or constructor (the static cache's preallocation); what the
 * model's forward methods allocate otherwise are activations; what loading allocates
 * (copies of the weights) is weight. */
static const char pytorch[] =
	"rules:\n"
	"  - symbol: \"^([A-Za-z]*Cache)[.](update|__init__|lazy_initialization|_update)$\"\n"
	"    region_type: kv_cache\n"
	"  - symbol: \"^(PreTrainedModel[.])?(from_pretrained|load_state_dict|_load_state_dict_into_"
	"meta_model|_load_pretrained_model)$|^Module[.]load_state_dict$\"\n"
	"    region_type: weight\n"
	"  - symbol: \"[.]forward$\"\n"
	"    region_type: activation\n";

/* Model files, whatever the engine: a mapping of one is weights. */
static const char model_files[] = "rules:\n"
				  "  - path: \"*.gguf\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*.safetensors\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*.npy\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*.npz\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*.pt\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*.pth\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*.ggml\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*.onnx\"\n"
				  "    region_type: weight\n"
				  "  - path: \"*model*.bin\"\n"
				  "    region_type: weight\n";

const struct mt_profile mt_profiles[] = {
	{ "llama.cpp", "llama.cpp and ggml: KV cache, compute buffers, loaded weights", llama_cpp },
	{ "pytorch",
	  "PyTorch / Hugging Face by Python frames: *Cache.update/__init__ kv_cache, forward "
	  "activation, loading weight",
	  pytorch },
	{ "model-files",
	  "mappings of model files (.gguf, .safetensors, .npy, .pt, *model*.bin, ...)",
	  model_files },
	{ NULL, NULL, NULL },
};

const struct mt_profile *mt_profile_find(const char *name)
{
	for (const struct mt_profile *p = mt_profiles; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

int mt_profiles_add(struct mt_rules *rules, const char *list, char *err, size_t errsize)
{
	/* every name must be known (or all, or none) */
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), p);
		if (strcmp(name, "all") && strcmp(name, "none") && !mt_profile_find(name)) {
			snprintf(err, errsize,
				 "--profiles: no profile '%s' (memtap rules lists them)", name);
			return -1;
		}
		p += len + (p[len] == ',');
	}
	for (const struct mt_profile *p = mt_profiles; p->name; p++) {
		struct mt_rules pr;
		char source[96], perr[256];

		if (!mt_list_has(list, p->name))
			continue;
		snprintf(source, sizeof(source), "profile %s", p->name);
		if (mt_rules_parse(p->yaml, strlen(p->yaml), source, &pr, perr, sizeof(perr)) < 0) {
			snprintf(err, errsize, "built-in profile %s: %s", p->name, perr);
			return -1;
		}
		if (mt_rules_append(rules, &pr) < 0) {
			mt_rules_release(&pr);
			snprintf(err, errsize, "out of memory");
			return -1;
		}
	}
	return 0;
}
