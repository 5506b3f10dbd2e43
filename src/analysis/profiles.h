/* SPDX-License-Identifier: MIT */
/* Built-in engine profiles: rule sets that type the regions of known inference engines. */
#ifndef MEMTAP_ANALYSIS_PROFILES_H
#define MEMTAP_ANALYSIS_PROFILES_H

#include <stddef.h>

struct mt_rules;

struct mt_profile {
	const char *name; /* "llama.cpp", ... */
	const char *about; /* one line */
	const char *yaml; /* its rules, in the --rules format */
};

/* The profiles, in the order their rules are tried; NULL-terminated. */
extern const struct mt_profile mt_profiles[];

const struct mt_profile *mt_profile_find(const char *name);

/*
 * Appends the rules of the profiles named in list ("all", "none", or names separated by
 * commas) to rules, after what rules holds (rules from a --rules file are tried first).
 * 0, or -1 with the reason in err (an unknown name).
 */
int mt_profiles_add(struct mt_rules *rules, const char *list, char *err, size_t errsize);

#endif
