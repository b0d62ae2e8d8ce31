/* scenario — load a scenario file: {"responses": [...]} where each entry is a generated
 * stream ("protocol"), a replayed body ("replay") or a plain response ("status"), plus
 * delivery faults. Every entry becomes a ready plan at load time, so a bad scenario
 * fails at start with an error naming the JSON path (responses[2].protocol: ...), never
 * in the middle of a test. The format is documented in docs/fake-provider.md.
 *
 * Never does network I/O; reads only the scenario and the files it names. */
#ifndef HEW_FAKE_SCENARIO_H
#define HEW_FAKE_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "plan.h"

typedef struct scenario {
    fp_plan *plans; /* one per response, in order (owned) */
    size_t n;
    bool lenient;   /* "lenient": true — requests are not validated (see validate.h) */
} scenario;

/* Load file. On error sc is empty and err holds "responses[i].key: what is wrong". */
hew_code scenario_load(scenario *sc, const char *file, hew_err *err);

void scenario_release(scenario *sc);

#endif
