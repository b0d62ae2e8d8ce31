/* lib_model_json — hew_model_json and hew_models_json (include/hew.h): the provider's
 * default resolved to its name and marked, a dated name finding its family, an unknown
 * name with what hew assumes (the 128k window, no prices), model_info applied and a bad
 * one refused, an unknown provider refused; the list holds the provider's own models
 * only (every vendor's for openrouter), each known, with its window. */
#include <jansson.h>
#include <string.h>

#include "check.h"
#include "hew.h"

static json_t *model(const char *provider, const char *name, const char *info)
{
    hew_options o;
    hew_options_init(&o);
    o.provider = provider;
    o.model = name;
    o.model_info = info;
    char *text = NULL, err[256] = "";
    if (hew_model_json(&o, &text, err, sizeof err) != HEW_OK)
        return NULL;
    json_t *j = json_loads(text, 0, NULL);
    hew_free(text);
    return j;
}

static void test_model(void)
{
    json_t *j = model("anthropic", NULL, NULL);
    REQUIRE(j != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "model")), "claude-sonnet-4-5-20250929");
    CHECK(json_is_true(json_object_get(j, "provider_default")));
    CHECK(json_is_true(json_object_get(j, "known")));
    CHECK_STR(json_string_value(json_object_get(j, "family")), "claude-sonnet-4-5");
    CHECK(json_integer_value(json_object_get(j, "context_window")) == 200000);
    CHECK(json_is_true(json_object_get(j, "prices")));
    CHECK(json_number_value(json_object_get(j, "input_price")) == 3);
    json_decref(j);

    j = model("openai", "gpt-9-turbo", NULL);
    REQUIRE(j != NULL);
    CHECK(!json_is_true(json_object_get(j, "known")));
    CHECK(!json_is_true(json_object_get(j, "provider_default")));
    CHECK(json_integer_value(json_object_get(j, "context_window")) == 128000);
    CHECK(!json_is_true(json_object_get(j, "prices")));
    CHECK(json_object_get(j, "input_price") == NULL);
    json_decref(j);

    j = model("openai", "gpt-9-turbo", "{\"context_window\": 65536}");
    REQUIRE(j != NULL);
    CHECK(json_integer_value(json_object_get(j, "context_window")) == 65536);
    json_decref(j);

    CHECK(model("openai", "x", "{\"context_window\": -1}") == NULL);
    CHECK(model("no-such-provider", NULL, NULL) == NULL);
    char *text = NULL;
    CHECK(hew_model_json(NULL, NULL, NULL, 0) == HEW_E_INVALID);
    CHECK(hew_model_json(NULL, &text, NULL, 0) == HEW_OK); /* the defaults: anthropic's */
    CHECK(text && strstr(text, "claude-sonnet-4-5-20250929"));
    hew_free(text);
}

static void test_models(void)
{
    static const struct {
        const char *provider, *has, *lacks;
    } cases[] = {
        { "anthropic", "claude-opus-4-5", "gpt-4.1" },
        { "openai", "gpt-4.1", "claude-opus-4-5" },
        { "gemini", "gemini-2.5-pro", "grok-4" },
        { "xai", "grok-4", "deepseek-chat" },
        { "openrouter", "grok-4", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hew_options o;
        hew_options_init(&o);
        o.provider = cases[i].provider;
        char *text = NULL;
        REQUIRE(hew_models_json(&o, &text, NULL, 0) == HEW_OK);
        json_t *arr = json_loads(text, 0, NULL);
        hew_free(text);
        REQUIRE(json_is_array(arr) && json_array_size(arr) > 0);
        int has = 0, lacks = 1;
        size_t k;
        json_t *m;
        json_array_foreach(arr, k, m) {
            const char *id = json_string_value(json_object_get(m, "model"));
            CHECK(json_is_true(json_object_get(m, "known")));
            CHECK(json_integer_value(json_object_get(m, "context_window")) > 0);
            has |= strcmp(id, cases[i].has) == 0;
            if (cases[i].lacks && strcmp(id, cases[i].lacks) == 0)
                lacks = 0;
        }
        CHECK(has && lacks);
        json_decref(arr);
    }
}

int main(void)
{
    RUN(test_model);
    RUN(test_models);
    return check_report();
}
