/* SPDX-License-Identifier: MIT */
/* The option parser and help printer. */
#include "options.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strutil.h"

int mt_usage_error(const struct mt_command_spec *spec, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mt_err("%s (see 'memtap %s -h')", msg, spec->name);
	return 2;
}

static void choices_str(const struct mt_option *o, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; o->choices[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", o->choices[i]);
}

static int set_value(const struct mt_command_spec *spec, const struct mt_option *o, const char *arg)
{
	char list[256];
	uint64_t v;

	switch (o->type) {
	case MT_OPT_FLAG:
		*(bool *)o->dest = true;
		break;
	case MT_OPT_STRING:
		*(const char **)o->dest = arg ? arg : "";
		break;
	case MT_OPT_U64:
		if (mt_parse_u64(arg, &v) < 0)
			return mt_usage_error(spec, "invalid number '%s' for --%s", arg, o->name);
		*(uint64_t *)o->dest = v;
		break;
	case MT_OPT_SIZE:
		if (mt_parse_size(arg, &v) < 0)
			return mt_usage_error(spec,
					      "invalid size '%s' for --%s (e.g. 4096, 64K, 2M)",
					      arg, o->name);
		*(uint64_t *)o->dest = v;
		break;
	case MT_OPT_LIST: {
		struct mt_optlist *l = o->dest;

		if (l->n == MT_OPTLIST_MAX)
			return mt_usage_error(spec, "--%s given more than %d times", o->name,
					      MT_OPTLIST_MAX);
		l->v[l->n++] = arg ? arg : "";
		break;
	}
	case MT_OPT_CHOICE:
		if (!arg) { /* --name alone (MT_OPTF_OPTIONAL_ARG): the first choice */
			*(int *)o->dest = 0;
			break;
		}
		for (int i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], arg)) {
				*(int *)o->dest = i;
				goto done;
			}
		}
		choices_str(o, list, sizeof(list));
		return mt_usage_error(spec, "invalid value '%s' for --%s (one of: %s)", arg,
				      o->name, list);
	}
done:
	if (o->seen)
		*o->seen = true;
	return 0;
}

static const struct mt_option *find_long(const struct mt_option *opts, const char *name, size_t n,
					 bool *negated)
{
	*negated = false;
	for (const struct mt_option *o = opts; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
	if (n > 3 && !strncmp(name, "no-", 3)) {
		for (const struct mt_option *o = opts; o->name; o++) {
			if ((o->flags & MT_OPTF_NEGATABLE) && strlen(o->name) == n - 3 &&
			    !strncmp(o->name, name + 3, n - 3)) {
				*negated = true;
				return o;
			}
		}
	}
	return NULL;
}

int mt_opts_parse(const struct mt_command_spec *spec, int argc, char **argv, int *nargs)
{
	int npos = 0, i, r;
	bool only_args = false;

	for (i = 1; i < argc; i++) {
		char *a = argv[i];
		const struct mt_option *o = NULL;
		const char *val = NULL;

		if (only_args || a[0] != '-' || !a[1]) {
			argv[npos++] = a;
			if (spec->flags & MT_CMD_STOP_AT_ARG)
				only_args = true;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			mt_opts_help(spec, stdout);
			return 1;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			bool neg;

			o = find_long(spec->opts, name, eq ? (size_t)(eq - name) : strlen(name),
				      &neg);
			if (!o)
				return mt_usage_error(spec, "unknown option '--%.*s'",
						      (int)(eq ? eq - name : (long)strlen(name)),
						      name);
			if (neg) {
				if (eq)
					return mt_usage_error(
						spec, "option '--no-%s' takes no value", o->name);
				if (o->type == MT_OPT_CHOICE)
					*(int *)o->dest = -1; /* --no-name: none of the choices */
				else
					*(bool *)o->dest = false;
				if (o->seen)
					*o->seen = true;
				continue;
			}
			if (o->type == MT_OPT_FLAG) {
				if (eq)
					return mt_usage_error(spec, "option '--%s' takes no value",
							      o->name);
				r = set_value(spec, o, NULL);
				if (r)
					return r;
				continue;
			}
			if (eq)
				val = eq + 1;
			else if (o->flags & MT_OPTF_OPTIONAL_ARG)
				val = NULL;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return mt_usage_error(spec, "option '--%s' needs a value (%s)",
						      o->name, o->arg);
		} else {
			for (const struct mt_option *p = spec->opts; p->name; p++)
				if (p->short_name && p->short_name == a[1])
					o = p;
			if (!o)
				return mt_usage_error(spec, "unknown option '-%c'", a[1]);
			if (o->type == MT_OPT_FLAG) {
				if (a[2])
					return mt_usage_error(spec, "option '-%c' takes no value",
							      a[1]);
				r = set_value(spec, o, NULL);
				if (r)
					return r;
				continue;
			}
			if (a[2])
				val = a + 2;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return mt_usage_error(spec, "option '-%c' needs a value (%s)", a[1],
						      o->arg);
		}
		r = set_value(spec, o, val);
		if (r)
			return r;
	}
	if (npos < spec->min_args)
		return mt_usage_error(spec, "missing %s",
				      spec->min_args == 1 && npos == 0 ? "argument" : "arguments");
	if (spec->max_args >= 0 && npos > spec->max_args)
		return mt_usage_error(spec, "unexpected argument '%s'", argv[spec->max_args]);
	argv[npos] = NULL;
	*nargs = npos;
	return 0;
}

void mt_opts_help(const struct mt_command_spec *spec, FILE *f)
{
	const struct mt_option *o;
	int w = 0;

	fprintf(f, "usage: memtap %s %s\n\n%s\n", spec->name, spec->usage, spec->summary);
	if (spec->description)
		fprintf(f, "\n%s", spec->description);
	for (o = spec->opts; o->name; o++) {
		int len = (int)strlen(o->name) + (o->arg ? (int)strlen(o->arg) + 1 : 0) +
			  (o->flags & MT_OPTF_OPTIONAL_ARG ? 2 : 0) +
			  (o->flags & MT_OPTF_NEGATABLE ? 5 : 0);

		if (len > w)
			w = len;
	}
	fprintf(f, "\noptions:\n");
	for (o = spec->opts; o->name; o++) {
		char left[128];

		if ((o->flags & MT_OPTF_OPTIONAL_ARG) && (o->flags & MT_OPTF_NEGATABLE))
			snprintf(left, sizeof(left), "[no-]%s[=%s]", o->name, o->arg);
		else if (o->flags & MT_OPTF_OPTIONAL_ARG)
			snprintf(left, sizeof(left), "%s[=%s]", o->name, o->arg);
		else if (o->flags & MT_OPTF_NEGATABLE)
			snprintf(left, sizeof(left), "[no-]%s", o->name);
		else if (o->arg)
			snprintf(left, sizeof(left), "%s %s", o->name, o->arg);
		else
			snprintf(left, sizeof(left), "%s", o->name);
		if (o->short_name)
			fprintf(f, "  -%c, --%-*s  %s", o->short_name, w, left, o->help);
		else
			fprintf(f, "      --%-*s  %s", w, left, o->help);
		if (o->type == MT_OPT_CHOICE) {
			char list[256];

			choices_str(o, list, sizeof(list));
			fprintf(f, " (%s; default %s)", list,
				*(int *)o->dest >= 0 ? o->choices[*(int *)o->dest] : "none");
		}
		if (o->type == MT_OPT_LIST)
			fprintf(f, " (repeatable, up to %d)", MT_OPTLIST_MAX);
		fputc('\n', f);
	}
	fprintf(f, "  -h, --%-*s  show this help\n", w, "help");
}
