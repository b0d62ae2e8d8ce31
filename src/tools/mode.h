/* mode — the agent's two modes, ACT (the model uses every tool) and PLAN (it explores and
 * discusses a plan first), as an enum with the one table of their names. Names are what
 * the store, the events, the prompt and the public API (hew_options.mode,
 * hew_task_set_mode) carry; inside hew a mode is a mode_kind, compared as a value. Never
 * compare a mode's name as a string anywhere else: parse it here. */
#ifndef HEW_TOOLS_MODE_H
#define HEW_TOOLS_MODE_H

#include <stdbool.h>

typedef enum mode_kind {
    MODE_ACT,
    MODE_PLAN,
} mode_kind;

#define MODE_COUNT 2

/* "act" / "plan" (a static string); "act" for a value out of range. */
const char *mode_name(mode_kind m);

/* The same name in capitals as the prompt words it: "ACT" / "PLAN". */
const char *mode_title(mode_kind m);

/* The mode a name stands for (exact, lower case). false (and *out untouched) when name is
 * NULL or no mode's name. */
bool mode_parse(const char *name, mode_kind *out);

/* The mode a stored or optional name stands for, def when it names none (NULL, empty or
 * unknown). */
mode_kind mode_or(const char *name, mode_kind def);

#endif
