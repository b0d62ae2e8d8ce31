/* mode — the table of the modes' names (see mode.h). Holds no state. */
#include "tools/mode.h"

#include <string.h>

static const struct {
    const char *name;
    const char *title;
} modes[MODE_COUNT] = {
    [MODE_ACT] = { "act", "ACT" },
    [MODE_PLAN] = { "plan", "PLAN" },
};

const char *mode_name(mode_kind m)
{
    return (unsigned)m < MODE_COUNT ? modes[m].name : modes[MODE_ACT].name;
}

const char *mode_title(mode_kind m)
{
    return (unsigned)m < MODE_COUNT ? modes[m].title : modes[MODE_ACT].title;
}

bool mode_parse(const char *name, mode_kind *out)
{
    for (unsigned i = 0; name && i < MODE_COUNT; i++)
        if (strcmp(name, modes[i].name) == 0) {
            *out = (mode_kind)i;
            return true;
        }
    return false;
}

mode_kind mode_or(const char *name, mode_kind def)
{
    mode_kind m = def;
    mode_parse(name, &m);
    return m;
}
