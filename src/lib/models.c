/* models — hew_models_json: the models hew's table knows for a provider, for a front end
 * that offers a choice (hew acp's model selector). Which names belong to which provider
 * is a table here (the model table itself is keyed by name only); providers that route
 * to many vendors under names of their own (openrouter, openai-compatible) list none. */
#include <string.h>

#include "api/model.h"
#include "hew.h"
#include "lib/lib_store.h"

static const struct {
    const char *provider;
    const char *prefixes[6];
} families[] = {
    { "anthropic", { "claude-", NULL } },
    { "openai", { "gpt-", "o1", "o3", "o4", "codex-", NULL } },
    { "gemini", { "gemini-", NULL } },
    { "deepseek", { "deepseek-", NULL } },
    { "xai", { "grok-", NULL } },
    { "groq", { "moonshotai/", "openai/gpt-oss", "llama-", NULL } },
};

#define MODELS_MAX 128

hew_code hew_models_json(const char *provider, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    const char *names[MODELS_MAX];
    size_t n = 0;
    for (size_t i = 0; provider && i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].provider, provider) == 0)
            n = api_model_names(families[i].prefixes, names, MODELS_MAX);
    if (n > MODELS_MAX)
        n = MODELS_MAX;
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    *out = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    if (!*out)
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    return HEW_OK;
}
