/* model — the table of known models and the lookup (see model.h). Data and pure
 * functions; never does I/O, never invents a price. */
#include "api/model.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define K 1000
#define M 1000000

/* id is matched as a prefix of the normalized model name; the longest match wins. */
static const api_model table[] = {
    /* Anthropic (platform.claude.com/docs/en/models/<id>/overview, 2026). From Claude 5
     * on, thinking is adaptive and a manual budget is refused (400): thinking = false, so
     * hew sends none. Cache prices: reads 0.1x, 5-minute writes 1.25x of the input. */
    { .id = "claude-opus-5-5", .context_window = 1000 * K, .max_output = 128000,
      .price = { 4, 20, 0.4, 5 }, .images = true, .native_tools = true, .next_gen = true },
    { .id = "claude-opus-5", .context_window = 1000 * K, .max_output = 128000,
      .price = { 5, 25, 0.5, 6.25 }, .images = true, .native_tools = true, .next_gen = true },
    { .id = "claude-sonnet-5-5", .context_window = 1000 * K, .max_output = 128000,
      .price = { 2, 10, 0.2, 2.5 }, .images = true, .native_tools = true, .next_gen = true },
    { .id = "claude-sonnet-5", .context_window = 1000 * K, .max_output = 128000,
      .price = { 2, 10, 0.2, 2.5 }, .images = true, .native_tools = true, .next_gen = true },
    { .id = "claude-opus-4-6", .context_window = 1000 * K, .max_output = 128000,
      .price = { 5, 25, 0.5, 6.25 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-sonnet-4-6", .context_window = 1000 * K, .max_output = 128000,
      .price = { 3, 15, 0.3, 3.75 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-opus-4-5", .context_window = 200 * K, .max_output = 64000,
      .price = { 5, 25, 0.5, 6.25 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-opus-4-1", .context_window = 200 * K, .max_output = 32000,
      .price = { 15, 75, 1.5, 18.75 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-opus-4", .context_window = 200 * K, .max_output = 32000,
      .price = { 15, 75, 1.5, 18.75 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-sonnet-4-5", .context_window = 200 * K, .max_output = 64000,
      .price = { 3, 15, 0.3, 3.75 }, .tier_above = 200 * K, .tier = { 6, 22.5, 0.6, 7.5 },
      .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-sonnet-4", .context_window = 200 * K, .max_output = 64000,
      .price = { 3, 15, 0.3, 3.75 }, .tier_above = 200 * K, .tier = { 6, 22.5, 0.6, 7.5 },
      .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-3-7-sonnet", .context_window = 200 * K, .max_output = 64000,
      .price = { 3, 15, 0.3, 3.75 }, .images = true, .thinking = true, .native_tools = true },
    { .id = "claude-haiku-4-5", .context_window = 200 * K, .max_output = 64000,
      .price = { 1, 5, 0.1, 1.25 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "claude-3-5-haiku", .context_window = 200 * K, .max_output = 8192,
      .price = { 0.8, 4, 0.08, 1 }, .images = true, .native_tools = true },
    /* OpenAI: the models only the Responses API serves (developers.openai.com/api/docs/
     * models/<id>: "available in the Responses API only"); a codex name not listed finds
     * is Responses-only too (api_model_lookup) */
    { .id = "gpt-5-codex", .context_window = 400 * K, .max_output = 128000,
      .price = { 1.25, 10, 0.125, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true, .responses_only = true },
    { .id = "gpt-5.1-codex-mini", .context_window = 400 * K, .max_output = 128000,
      .price = { 0.25, 2, 0.025, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true, .responses_only = true },
    { .id = "gpt-5.1-codex", .context_window = 400 * K, .max_output = 128000,
      .price = { 1.25, 10, 0.125, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true, .responses_only = true },
    { .id = "gpt-5.2-codex", .context_window = 400 * K, .max_output = 128000,
      .price = { 1.75, 14, 0.175, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true, .responses_only = true },
    { .id = "gpt-5.3-codex", .context_window = 400 * K, .max_output = 128000,
      .price = { 1.75, 14, 0.175, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true, .responses_only = true },
    { .id = "codex-mini", .context_window = 200 * K, .max_output = 100000,
      .price = { 1.5, 6, 0.375, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .responses_only = true },
    { .id = "gpt-5-pro", .context_window = 400 * K, .max_output = 272000,
      .price = { 15, 120, 0, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true, .responses_only = true },
    { .id = "o3-pro", .context_window = 200 * K, .max_output = 100000,
      .price = { 20, 80, 0, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .responses_only = true },
    { .id = "o1-pro", .context_window = 200 * K, .max_output = 100000,
      .price = { 150, 600, 0, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .responses_only = true },
    /* OpenAI */
    { .id = "gpt-5.2", .context_window = 400 * K, .max_output = 128000,
      .price = { 1.75, 14, 0.175, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true },
    { .id = "gpt-5.1", .context_window = 400 * K, .max_output = 128000,
      .price = { 1.25, 10, 0.125, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true, .next_gen = true },
    { .id = "gpt-5-nano", .context_window = 400 * K, .max_output = 128000,
      .price = { 0.05, 0.4, 0.005, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true,
      .next_gen = true },
    { .id = "gpt-5-mini", .context_window = 400 * K, .max_output = 128000,
      .price = { 0.25, 2, 0.025, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true,
      .next_gen = true },
    { .id = "gpt-5-chat", .context_window = 128 * K, .max_output = 16384,
      .price = { 1.25, 10, 0.125, 0 }, .images = true, .native_tools = true,
      .next_gen = true },
    { .id = "gpt-5", .context_window = 400 * K, .max_output = 128000,
      .price = { 1.25, 10, 0.125, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true,
      .next_gen = true },
    { .id = "gpt-4.1-nano", .context_window = 1047576, .max_output = 32768,
      .price = { 0.1, 0.4, 0.025, 0 }, .images = true, .native_tools = true },
    { .id = "gpt-4.1-mini", .context_window = 1047576, .max_output = 32768,
      .price = { 0.4, 1.6, 0.1, 0 }, .images = true, .native_tools = true },
    { .id = "gpt-4.1", .context_window = 1047576, .max_output = 32768,
      .price = { 2, 8, 0.5, 0 }, .images = true, .native_tools = true },
    { .id = "gpt-4o-mini", .context_window = 128 * K, .max_output = 16384,
      .price = { 0.15, 0.6, 0.075, 0 }, .images = true, .native_tools = true },
    { .id = "gpt-4o", .context_window = 128 * K, .max_output = 16384,
      .price = { 2.5, 10, 1.25, 0 }, .images = true, .native_tools = true },
    { .id = "o4-mini", .context_window = 200 * K, .max_output = 100000,
      .price = { 1.1, 4.4, 0.275, 0 }, .images = true, .thinking = true, .native_tools = true,
      .reasoning_effort = true },
    { .id = "o3-mini", .context_window = 200 * K, .max_output = 100000,
      .price = { 1.1, 4.4, 0.55, 0 }, .thinking = true, .native_tools = true,
      .reasoning_effort = true },
    { .id = "o3", .context_window = 200 * K, .max_output = 100000, .price = { 2, 8, 0.5, 0 },
      .images = true, .thinking = true, .native_tools = true, .reasoning_effort = true },
    { .id = "o1", .context_window = 200 * K, .max_output = 100000, .price = { 15, 60, 7.5, 0 },
      .images = true, .thinking = true, .native_tools = true, .reasoning_effort = true },
    /* Google */
    { .id = "gemini-3-pro", .context_window = 1048576, .max_output = 65536,
      .price = { 2, 12, 0.2, 0 }, .tier_above = 200 * K, .tier = { 4, 18, 0.4, 0 },
      .images = true, .thinking = true, .native_tools = true, .next_gen = true },
    { .id = "gemini-2.5-pro", .context_window = 1048576, .max_output = 65536,
      .price = { 1.25, 10, 0.31, 0 }, .tier_above = 200 * K, .tier = { 2.5, 15, 0.625, 0 },
      .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "gemini-2.5-flash-lite", .context_window = 1048576, .max_output = 65536,
      .price = { 0.1, 0.4, 0.025, 0 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "gemini-2.5-flash", .context_window = 1048576, .max_output = 65536,
      .price = { 0.3, 2.5, 0.075, 0 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "gemini-2.0-flash", .context_window = 1048576, .max_output = 8192,
      .price = { 0.1, 0.4, 0.025, 0 }, .images = true, .native_tools = true },
    /* DeepSeek (V3.2 prices; cache hits are "cache read") */
    { .id = "deepseek-chat", .context_window = 128 * K, .max_output = 8192,
      .price = { 0.28, 0.42, 0.028, 0 }, .native_tools = true,
      .next_gen = true },
    { .id = "deepseek-reasoner", .context_window = 128 * K, .max_output = 64000,
      .price = { 0.28, 0.42, 0.028, 0 }, .thinking = true, .native_tools = true,
      .next_gen = true },
    /* xAI */
    { .id = "grok-code-fast", .context_window = 256 * K, .max_output = 10000,
      .price = { 0.2, 1.5, 0.02, 0 }, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "grok-4", .context_window = 256 * K, .max_output = 32768,
      .price = { 3, 15, 0.75, 0 }, .images = true, .thinking = true, .native_tools = true,
      .next_gen = true },
    /* Groq */
    { .id = "moonshotai/kimi-k2-instruct", .context_window = 131072, .max_output = 16384,
      .price = { 1, 3, 0, 0 }, .native_tools = true },
    { .id = "openai/gpt-oss-120b", .context_window = 131072, .max_output = 65536,
      .price = { 0.15, 0.75, 0, 0 }, .thinking = true, .native_tools = true,
      .next_gen = true },
    { .id = "llama-3.3-70b-versatile", .context_window = 131072, .max_output = 32768,
      .price = { 0.59, 0.79, 0, 0 }, .native_tools = true },
};

/* An unknown model: Cline's default window, 128 000 tokens — getContextWindowInfo in
 * cline/cline src/core/context/context-management/context-window-utils.ts takes
 * `api.getModel().info.contextWindow || 128_000` (and openAiModelInfoSaneDefaults says
 * 128_000 too); context_max_allowed then keeps 98 000 of it. */
static const api_model defaults = {
    .id = "", .context_window = 128 * K, .max_output = 4096, .native_tools = false,
};

/* Lowercase, and '.' between digits becomes '-' ("claude-sonnet-4.5" → "claude-sonnet-4-5"),
 * so OpenRouter's names meet the table's. */
static void normalize(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; in[i] && o + 1 < cap; i++) {
        char c = (char)tolower((unsigned char)in[i]);
        if (c == '.' && i > 0 && isdigit((unsigned char)in[i - 1]) &&
            isdigit((unsigned char)in[i + 1]) && strncmp(in, "gpt-", 4) != 0 &&
            strstr(in, "/gpt-") == NULL && strncmp(in, "gemini", 6) != 0 &&
            strstr(in, "/gemini") == NULL)
            c = '-';
        out[o++] = c;
    }
    out[o] = '\0';
}

static const api_model *longest_prefix(const char *name)
{
    const api_model *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t n = strlen(table[i].id);
        if (n > best_len && strncmp(name, table[i].id, n) == 0) {
            best = &table[i];
            best_len = n;
        }
    }
    return best;
}

const api_model *api_model_table(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const char *api_model_vendor(const api_model *m)
{
    static const struct {
        const char *prefix, *vendor;
    } vendors[] = {
        { "claude-", "anthropic" }, { "gpt-5", "openai" },     { "gpt-4", "openai" },
        { "o1", "openai" },         { "o3", "openai" },        { "o4", "openai" },
        { "codex", "openai" },      { "gemini-", "gemini" },   { "deepseek-", "deepseek" },
        { "grok-", "xai" },
    };
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (strncmp(m->id, vendors[i].prefix, strlen(vendors[i].prefix)) == 0)
            return vendors[i].vendor;
    return "groq"; /* the rest of the table: the open models Groq serves */
}

api_model api_model_lookup(const char *provider, const char *model)
{
    (void)provider;
    api_model m = defaults;
    if (!model || !*model)
        return m;
    char norm[256];
    normalize(model, norm, sizeof norm);
    const api_model *hit = longest_prefix(norm);
    if (!hit) {
        /* "anthropic/claude-…", "models/gemini-…", "accounts/x/models/…": try after the
         * last '/'. */
        const char *slash = strrchr(norm, '/');
        if (slash)
            hit = longest_prefix(slash + 1);
    }
    if (hit) {
        m = *hit;
        m.known = true;
    } else if (strstr(norm, "codex")) {
        m.responses_only = true; /* a codex model the table does not list yet */
    }
    return m;
}

static hew_code num(const json_t *desc, const char *key, double *out, hew_err *err)
{
    const json_t *v = json_object_get(desc, key);
    if (!v || json_is_null(v))
        return HEW_OK;
    if (!json_is_number(v) || json_number_value(v) < 0)
        return hew_err_set(err, HEW_E_INVALID, "model.%s: expected a number >= 0", key);
    *out = json_number_value(v);
    return HEW_OK;
}

static hew_code flag(const json_t *desc, const char *key, bool *out, hew_err *err)
{
    const json_t *v = json_object_get(desc, key);
    if (!v || json_is_null(v))
        return HEW_OK;
    if (!json_is_boolean(v))
        return hew_err_set(err, HEW_E_INVALID, "model.%s: expected true or false", key);
    *out = json_is_true(v);
    return HEW_OK;
}

hew_code api_model_from_json(const json_t *desc, api_model *m, hew_err *err)
{
    if (!json_is_object(desc))
        return hew_err_set(err, HEW_E_INVALID, "model: expected an object");
    static const char *const keys[] = { "context_window",   "max_output",       "input_price",
                                        "output_price",     "cache_read_price",
                                        "cache_write_price", "images",          "thinking",
                                        "native_tools",     "reasoning_effort", "next_gen" };
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)desc, key, val) {
        size_t i = 0;
        while (i < sizeof keys / sizeof keys[0] && strcmp(keys[i], key) != 0)
            i++;
        if (i == sizeof keys / sizeof keys[0])
            return hew_err_set(err, HEW_E_INVALID,
                               "model: %s: unknown key (use context_window, max_output, "
                               "input_price, output_price, cache_read_price, "
                               "cache_write_price, images, thinking, native_tools, "
                               "reasoning_effort, next_gen)",
                               key);
    }
    double cw = (double)m->context_window, mo = (double)m->max_output;
    hew_code rc;
    if ((rc = num(desc, "context_window", &cw, err)) || (rc = num(desc, "max_output", &mo, err)) ||
        (rc = num(desc, "input_price", &m->price.input, err)) ||
        (rc = num(desc, "output_price", &m->price.output, err)) ||
        (rc = num(desc, "cache_read_price", &m->price.cache_read, err)) ||
        (rc = num(desc, "cache_write_price", &m->price.cache_write, err)) ||
        (rc = flag(desc, "images", &m->images, err)) ||
        (rc = flag(desc, "thinking", &m->thinking, err)) ||
        (rc = flag(desc, "native_tools", &m->native_tools, err)) ||
        (rc = flag(desc, "reasoning_effort", &m->reasoning_effort, err)) ||
        (rc = flag(desc, "next_gen", &m->next_gen, err)))
        return rc;
    if (cw < 1 || mo < 1)
        return hew_err_set(err, HEW_E_INVALID, "model: context_window and max_output must be >= 1");
    m->context_window = (int64_t)cw;
    m->max_output = (int64_t)mo;
    m->known = true;
    return HEW_OK;
}
