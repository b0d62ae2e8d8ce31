/* provider — provider profiles: which wire protocol a provider speaks, where it lives,
 * how it authenticates and where its key comes from. One table row per profile
 * (provider.c): anthropic, openai, openai-compatible, openrouter, deepseek, gemini, xai,
 * groq. Every field can be overridden (the base URL is how tests point hew at the fake
 * provider; the protocol lets "openai" use the Responses API, which it also picks by itself
 * for the models OpenAI serves only there: model.h, responses_only). Keys come from the usual
 * environment variables or are given explicitly. It must never log or print a key, and
 * never send one to a host other than the profile's (an explicit base URL counts). */
#ifndef HEW_API_PROVIDER_H
#define HEW_API_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include "api/chunk.h"
#include "base/err.h"

typedef enum api_auth {
    API_AUTH_BEARER,    /* Authorization: Bearer KEY */
    API_AUTH_X_API_KEY, /* x-api-key: KEY (Anthropic) */
    API_AUTH_GOOG,      /* x-goog-api-key: KEY (Gemini) */
    API_AUTH_AZURE      /* api-key: KEY (Azure OpenAI) */
} api_auth;

/* A row of the profile table (static data). */
typedef struct api_profile {
    const char *name;             /* "anthropic" */
    api_protocol protocol;
    const char *base_url;         /* default base URL ("" for openai-compatible) */
    const char *key_env;          /* environment variable of the key, or NULL */
    const char *key_env_fallback; /* a second variable (GOOGLE_API_KEY), or NULL */
    api_auth auth;
    bool key_required;            /* false for local servers (Ollama, llama.cpp) */
    const char *default_model;
} api_profile;

/* The profile called name, or NULL. */
const api_profile *api_profile_find(const char *name);

#define API_PROVIDER_HEADERS_MAX 16

/* A configured provider: a profile plus overrides. Value type; owns nothing but its
 * fixed buffers, so it can be copied freely. */
typedef struct api_provider {
    const api_profile *profile;
    api_protocol protocol;   /* the profile's, or an override */
    api_auth auth;
    char base_url[512];      /* no trailing '/' */
    char api_key[512];       /* "" when none */
    char model[192];
    /* extra "Name: value" headers (OpenRouter's HTTP-Referer/X-Title, Azure, custom) */
    char headers[API_PROVIDER_HEADERS_MAX][256];
    size_t nheaders;
    long connect_timeout_ms; /* 0: net/http defaults */
    long idle_timeout_ms;
    long deadline_ms;
    struct net_record *record; /* NULL, or where every exchange is saved (net/record.h) */
} api_provider;

/* Options for api_provider_init; zero/NULL fields take the profile's defaults. */
typedef struct api_provider_opts {
    const char *base_url;    /* override */
    const char *api_key;     /* explicit key (wins over the environment) */
    const char *model;
    const char *protocol;    /* "openai-responses" etc., override */
} api_provider_opts;

/* Set p up from the profile called name and opts, reading the key from the environment
 * when none is given. Errors (HEW_E_INVALID): unknown profile (the message lists them),
 * openai-compatible without a base URL, a key that is required but missing ("set
 * ANTHROPIC_API_KEY or give a key in the config"), an unknown protocol, a value too long. */
hew_code api_provider_init(api_provider *p, const char *name, const api_provider_opts *opts,
                           hew_err *err);


#endif
