/* modelname — the model a session uses, as the terminal shows it: the real name (the
 * provider's default resolved: "claude-sonnet-4-5-20250929 (provider default)"), its
 * context window (for the status line's "42% context"), the models hew knows for the
 * provider (/model with no argument) and what hew assumes about a model it does not know
 * (/model NAME). Built on hew_model_json / hew_models_json; every name is sanitised
 * (a name may come from a project's config file). */
#ifndef HEW_CLI_MODELNAME_H
#define HEW_CLI_MODELNAME_H

#include "hew.h"

/* "NAME" or "NAME (provider default)" for the model o names; a new string (free()), never
 * NULL ("?" when out of memory or the provider is unknown). */
char *modelname_label(const hew_options *o);

/* The context window of the model o names (what hew assumes for an unknown one), in
 * tokens; 0 when it cannot be told. */
long long modelname_window(const hew_options *o);

/* 1 when hew knows the model o names, else 0. When unknown and why is not NULL: *why gets
 * a new line (free()) saying what hew assumes about it: "hew does not know "x": it assumes
 * a 128,000-token context window, no images, no thinking and no prices (no cost shown)". */
int modelname_known(const hew_options *o, char **why);

/* The models hew knows for o's provider, one a line ("  claude-sonnet-4-5   200k context ·
 * $3/$15"), the one current names (NULL: o's) marked with "●" and bold when color; a
 * new string (free()), or NULL when out of memory. */
char *modelname_list(const hew_options *o, const char *current, int color);

#endif
