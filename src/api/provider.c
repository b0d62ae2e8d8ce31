/* provider — the profile table and api_provider setup (see provider.h). Reads only the
 * environment variables named in the table; never prints or logs a key. */
#include "api/provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model.h"

static const api_profile profiles[] = {
    { .name = "anthropic", .protocol = API_PROTO_ANTHROPIC,
      .base_url = "https://api.anthropic.com", .key_env = "ANTHROPIC_API_KEY",
      .auth = API_AUTH_X_API_KEY, .key_required = true,
      .default_model = "claude-sonnet-4-5-20250929" },
    { .name = "openai", .protocol = API_PROTO_OPENAI_CHAT, .base_url = "https://api.openai.com/v1",
      .key_env = "OPENAI_API_KEY", .auth = API_AUTH_BEARER, .key_required = true,
      .default_model = "gpt-4.1" },
    { .name = "openai-compatible", .protocol = API_PROTO_OPENAI_CHAT, .base_url = "",
      .key_env = "OPENAI_COMPATIBLE_API_KEY", .auth = API_AUTH_BEARER, .key_required = false,
      .default_model = "" },
    { .name = "openrouter", .protocol = API_PROTO_OPENAI_CHAT,
      .base_url = "https://openrouter.ai/api/v1", .key_env = "OPENROUTER_API_KEY",
      .auth = API_AUTH_BEARER, .key_required = true,
      .default_model = "anthropic/claude-sonnet-4.5" },
    { .name = "deepseek", .protocol = API_PROTO_OPENAI_CHAT, .base_url = "https://api.deepseek.com/v1",
      .key_env = "DEEPSEEK_API_KEY", .auth = API_AUTH_BEARER, .key_required = true,
      .default_model = "deepseek-chat" },
    { .name = "gemini", .protocol = API_PROTO_GEMINI,
      .base_url = "https://generativelanguage.googleapis.com/v1beta", .key_env = "GEMINI_API_KEY",
      .key_env_fallback = "GOOGLE_API_KEY", .auth = API_AUTH_GOOG, .key_required = true,
      .default_model = "gemini-2.5-pro" },
    { .name = "xai", .protocol = API_PROTO_OPENAI_CHAT, .base_url = "https://api.x.ai/v1",
      .key_env = "XAI_API_KEY", .auth = API_AUTH_BEARER, .key_required = true,
      .default_model = "grok-4" },
    { .name = "groq", .protocol = API_PROTO_OPENAI_CHAT, .base_url = "https://api.groq.com/openai/v1",
      .key_env = "GROQ_API_KEY", .auth = API_AUTH_BEARER, .key_required = true,
      .default_model = "moonshotai/kimi-k2-instruct" },
};

const api_profile *api_profile_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof profiles / sizeof profiles[0]; i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

static hew_code copy_field(char *dst, size_t cap, const char *src, const char *what, hew_err *err)
{
    size_t n = strlen(src);
    if (n >= cap)
        return hew_err_set(err, HEW_E_INVALID, "the %s is too long (%zu bytes, at most %zu)",
                           what, n, cap - 1);
    memcpy(dst, src, n + 1);
    return HEW_OK;
}

/* Add an extra request header "Name: value". HEW_E_TOOBIG when full or too long. */
static hew_code api_provider_add_header(api_provider *p, const char *header, hew_err *err)
{
    if (p->nheaders >= API_PROVIDER_HEADERS_MAX)
        return hew_err_set(err, HEW_E_TOOBIG, "too many extra headers (at most %d)",
                           API_PROVIDER_HEADERS_MAX);
    if (!strchr(header, ':') || strpbrk(header, "\r\n"))
        return hew_err_set(err, HEW_E_INVALID, "a header must be one line 'Name: value'");
    if (copy_field(p->headers[p->nheaders], sizeof p->headers[0], header, "header", err))
        return HEW_E_TOOBIG;
    p->nheaders++;
    return HEW_OK;
}

hew_code api_provider_init(api_provider *p, const char *name, const api_provider_opts *opts,
                           hew_err *err)
{
    memset(p, 0, sizeof *p);
    const api_profile *prof = api_profile_find(name);
    if (!prof)
        return hew_err_set(err, HEW_E_INVALID,
                           "unknown provider '%s' — use anthropic, openai, openai-compatible, "
                           "openrouter, deepseek, gemini, xai or groq",
                           name ? name : "");
    api_provider_opts none = { 0 };
    if (!opts)
        opts = &none;
    p->profile = prof;
    p->protocol = prof->protocol;
    p->auth = prof->auth;
    if (opts->protocol && !api_protocol_parse(opts->protocol, &p->protocol))
        return hew_err_set(err, HEW_E_INVALID,
                           "unknown protocol '%s' — use anthropic, openai-chat, "
                           "openai-responses or gemini",
                           opts->protocol);
    const char *base = opts->base_url && *opts->base_url ? opts->base_url : prof->base_url;
    if (!*base)
        return hew_err_set(err, HEW_E_INVALID,
                           "provider %s needs a base URL (e.g. http://localhost:11434/v1 for "
                           "Ollama, http://localhost:8080/v1 for llama.cpp)",
                           prof->name);
    if (copy_field(p->base_url, sizeof p->base_url, base, "base URL", err))
        return HEW_E_INVALID;
    size_t bl = strlen(p->base_url);
    while (bl > 0 && p->base_url[bl - 1] == '/')
        p->base_url[--bl] = '\0';
    if (strstr(p->base_url, ".azure.com") || strstr(p->base_url, ".azure.us"))
        p->auth = API_AUTH_AZURE;

    const char *model = opts->model && *opts->model ? opts->model : prof->default_model;
    if (copy_field(p->model, sizeof p->model, model, "model name", err))
        return HEW_E_INVALID;
    if (!*p->model)
        return hew_err_set(err, HEW_E_INVALID, "provider %s needs a model name", prof->name);
    /* OpenAI serves some models through the Responses API only (the codex and -pro ones:
     * model.h, responses_only): they go there by themselves unless a protocol was chosen. */
    if (!opts->protocol && strcmp(prof->name, "openai") == 0 &&
        api_model_lookup(prof->name, p->model).responses_only)
        p->protocol = API_PROTO_OPENAI_RESPONSES;

    const char *key = opts->api_key;
    const char *from = "the config";
    if (!key || !*key) {
        key = prof->key_env ? getenv(prof->key_env) : NULL;
        from = prof->key_env;
        if ((!key || !*key) && prof->key_env_fallback) {
            key = getenv(prof->key_env_fallback);
            from = prof->key_env_fallback;
        }
    }
    if (key && *key) {
        if (strpbrk(key, "\r\n"))
            return hew_err_set(err, HEW_E_INVALID, "the API key from %s contains a line break",
                               from);
        if (copy_field(p->api_key, sizeof p->api_key, key, "API key", err))
            return HEW_E_INVALID;
    } else if (prof->key_required) {
        return hew_err_set(err, HEW_E_INVALID,
                           "no API key for %s: set %s in the environment or give a key in the "
                           "config",
                           prof->name, prof->key_env);
    }
    if (strcmp(prof->name, "openrouter") == 0) {
        api_provider_add_header(p, "HTTP-Referer: https://github.com/hew-agent/hew", NULL);
        api_provider_add_header(p, "X-Title: hew", NULL);
    }
    return HEW_OK;
}
