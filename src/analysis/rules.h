/* SPDX-License-Identifier: MIT */
/* Region-type rules (`memtap report --rules FILE`): allocation-stack symbols and mapping
 * paths -> region types, like mrm-trace's symbol rules. */
#ifndef MEMTAP_ANALYSIS_RULES_H
#define MEMTAP_ANALYSIS_RULES_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct mt_rule {
	char *symbol; /* POSIX extended regex on a stack frame's function name, or NULL */
	regex_t symbol_re;
	char *with; /* with symbol: another frame of the same stack must match this too, or NULL */
	regex_t with_re;
	char *path; /* fnmatch(3) glob on a mapping's path, or NULL */
	char *region_type;
	unsigned line; /* in the rules file */
	const char *source; /* the rules file, or "profile NAME" (owned by the rule set) */
};

/* A phase by symbol: a sample whose code is in a matching function belongs to the phase. */
struct mt_phase_rule {
	char *symbol;
	regex_t symbol_re;
	char *phase;
	unsigned line;
	const char *source;
};

struct mt_rules {
	struct mt_rule *v;
	size_t n;
	struct mt_phase_rule *ph;
	size_t nph;
	char **sources; /* the names the rules' source fields point to */
	size_t nsources;
	char **types; /* region types a file declared (types:) */
	size_t ntypes;
};

/* The region types a rule may give without declaring them: what LLM inference holds. */
extern const char *const mt_rule_types[];

/*
 * Reads a YAML rules file:
 *
 *   rules:
 *     - symbol: "llama_kv_cache"        # any frame of the allocation stack matches
 *       with: "ggml_backend_alloc"      # and (optional) another frame matches this
 *       region_type: kv_cache
 *     - path: "*.gguf"                  # a file mapping's path matches
 *       region_type: weight
 *   phases:
 *     - symbol: "llama_decode"          # a sample in a matching function
 *       phase: generation
 *
 * A region_type is one of mt_rule_types (weight, kv_cache, activation, ...) or one the file
 * declares first, in a list under a top-level "types:" key (before "rules:").
 *
 * 0, or -1 with "FILE:LINE:COLUMN: what was expected" in err (syntax errors, unknown keys,
 * bad regexes, missing or doubled keys), or -errno when the file cannot be read.
 */
int mt_rules_load(const char *path, struct mt_rules *rules, char *err, size_t errsize);
/* The same from n bytes of memory; name stands for the file in messages. */
int mt_rules_parse(const char *data, size_t n, const char *name, struct mt_rules *rules, char *err,
		   size_t errsize);
void mt_rules_release(struct mt_rules *rules);
/* Moves every rule of src after dst's (dst's rules are tried first); src is left empty.
 * 0 or -ENOMEM (then both are unchanged). */
int mt_rules_append(struct mt_rules *dst, struct mt_rules *src);
/* The first rule whose glob matches the mapping path, or NULL. */
const struct mt_rule *mt_rules_match_path(const struct mt_rules *rules, const char *path);
/* The first phase rule whose regex matches one of the function names, or NULL. */
const struct mt_phase_rule *mt_rules_match_phase(const struct mt_rules *rules,
						 const char *const *names, size_t n);
/* The first rule whose regex matches one of the function names, or NULL. */
const struct mt_rule *mt_rules_match_symbols(const struct mt_rules *rules, const char *const *names,
					     size_t n);

#endif
