/* scenario — parse and check a scenario file into plans (see scenario.h). Reads files
 * only at load time; never touches the network. */
#include "scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "faults.h"
#include "field.h"
#include "gen.h"
#include "replay.h"

static const char *const top_keys[] = {"responses", "base_dir", "description", "lenient",
                                        NULL};

static hew_code load_one(const json_t *resp, const char *path, size_t index,
                         const char *base_dir, fp_plan *p, hew_err *err)
{
    if (!json_is_object(resp))
        return hew_err_set(err, HEW_E_INVALID, "%s: must be an object", path);
    hew_code rc;
    if (json_object_get(resp, "replay")) {
        rc = field_check_keys(resp, path, replay_keys, faults_keys, err);
        if (rc == HEW_OK)
            rc = replay_load(resp, path, base_dir, p, err);
    } else if (json_object_get(resp, "protocol")) {
        rc = field_check_keys(resp, path, gen_keys, faults_keys, err);
        if (rc == HEW_OK)
            rc = gen_load(resp, path, index, p, err);
    } else if (json_object_get(resp, "status") || json_object_get(resp, "body") ||
               json_object_get(resp, "body_file")) {
        rc = field_check_keys(resp, path, plain_keys, faults_keys, err);
        if (rc == HEW_OK)
            rc = plain_load(resp, path, base_dir, p, err);
    } else {
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: cannot tell what to send — give \"protocol\" (a generated "
                           "stream), \"replay\" (a body file) or \"status\" (a plain "
                           "response)",
                           path);
    }
    if (rc == HEW_OK)
        rc = faults_parse(resp, path, &p->faults, err);
    if (rc == HEW_OK)
        rc = faults_apply(p, path, err);
    return rc;
}

static char *dir_of(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        return strdup(".");
    if (slash == file)
        return strdup("/");
    return strndup(file, (size_t)(slash - file));
}

hew_code scenario_load(scenario *sc, const char *file, hew_err *err)
{
    memset(sc, 0, sizeof *sc);
    json_error_t je;
    json_t *root = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return hew_err_set(err, HEW_E_INVALID, "line %d, column %d: %s", je.line, je.column,
                           je.text);
    hew_code rc = HEW_OK;
    char *dir = dir_of(file);
    char *base = NULL;
    json_t *responses = json_object_get(root, "responses");
    if (!dir) {
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
    } else if (!json_is_object(root)) {
        rc = hew_err_set(err, HEW_E_INVALID,
                         "the scenario must be an object {\"responses\": [...]}");
    } else if (field_check_keys(root, "scenario", top_keys, NULL, err)) {
        rc = err->code;
    } else if (!json_is_array(responses)) {
        rc = hew_err_set(err, HEW_E_INVALID,
                         "responses: missing or not an array (the scenario is "
                         "{\"responses\": [...]}, one entry per request)");
    }
    if (rc == HEW_OK) {
        const char *bd = NULL;
        rc = field_string(root, "base_dir", "scenario", &bd, err);
        if (rc == HEW_OK)
            rc = field_bool(root, "lenient", "scenario", &sc->lenient, err);
        base = bd ? replay_resolve(dir, bd) : strdup(dir);
        if (rc == HEW_OK && !base)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    if (rc == HEW_OK) {
        size_t n = json_array_size(responses);
        sc->plans = calloc(n ? n : 1, sizeof *sc->plans);
        if (!sc->plans)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        for (size_t i = 0; rc == HEW_OK && i < n; i++) {
            char path[64];
            snprintf(path, sizeof path, "responses[%zu]", i);
            plan_init(&sc->plans[i]);
            sc->n = i + 1;
            rc = load_one(json_array_get(responses, i), path, i, base, &sc->plans[i], err);
        }
    }
    if (rc != HEW_OK)
        scenario_release(sc);
    free(base);
    free(dir);
    json_decref(root);
    return rc;
}

void scenario_release(scenario *sc)
{
    for (size_t i = 0; i < sc->n; i++)
        plan_release(&sc->plans[i]);
    free(sc->plans);
    sc->plans = NULL;
    sc->n = 0;
}
