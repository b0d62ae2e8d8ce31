/* api_models — provider profiles (keys from the environment or given, base URL
 * overrides, the errors a user sees), the model table (dated and vendor-prefixed names,
 * safe defaults, config descriptions) and cost (no cached token counted twice, tiers,
 * provider-reported cost wins), plus the message validator and the request shapes that
 * only the builders see (OpenRouter cache_control and reasoning, DeepSeek
 * reasoning_content, OpenAI reasoning models, Gemini ids, Anthropic thinking). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/cost.h"
#include "api/message.h"
#include "api/model.h"
#include "api/provider.h"
#include "api/request.h"
#include "base/json.h"
#include "check.h"

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static void test_profiles(void)
{
    api_provider p;
    hew_err err = HEW_ERR_INIT;
    unsetenv("ANTHROPIC_API_KEY");
    CHECK_INT(api_provider_init(&p, "anthropic", NULL, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "ANTHROPIC_API_KEY") != NULL);
    setenv("ANTHROPIC_API_KEY", "sk-ant-env", 1);
    CHECK_INT(api_provider_init(&p, "anthropic", NULL, &err), HEW_OK);
    CHECK_STR(p.api_key, "sk-ant-env");
    CHECK_STR(p.base_url, "https://api.anthropic.com");
    CHECK_INT(p.protocol, API_PROTO_ANTHROPIC);
    api_provider_opts o = { .api_key = "explicit", .base_url = "http://127.0.0.1:9/" };
    CHECK_INT(api_provider_init(&p, "anthropic", &o, &err), HEW_OK);
    CHECK_STR(p.api_key, "explicit");
    CHECK_STR(p.base_url, "http://127.0.0.1:9");
    unsetenv("ANTHROPIC_API_KEY");

    static const char *const envs[][2] = {
        { "openai", "OPENAI_API_KEY" },         { "openrouter", "OPENROUTER_API_KEY" },
        { "deepseek", "DEEPSEEK_API_KEY" },     { "gemini", "GEMINI_API_KEY" },
        { "xai", "XAI_API_KEY" },               { "groq", "GROQ_API_KEY" },
    };
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        setenv(envs[i][1], "k-env", 1);
        CHECK_INT(api_provider_init(&p, envs[i][0], NULL, &err), HEW_OK);
        CHECK_STR(p.api_key, "k-env");
        unsetenv(envs[i][1]);
    }
    setenv("GOOGLE_API_KEY", "g-fallback", 1);
    CHECK_INT(api_provider_init(&p, "gemini", NULL, &err), HEW_OK);
    CHECK_STR(p.api_key, "g-fallback");
    unsetenv("GOOGLE_API_KEY");

    CHECK_INT(api_provider_init(&p, "openai-compatible", NULL, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "base URL") != NULL);
    api_provider_opts local = { .base_url = "http://localhost:11434/v1", .model = "qwen3" };
    CHECK_INT(api_provider_init(&p, "openai-compatible", &local, &err), HEW_OK);
    CHECK_STR(p.api_key, "");
    CHECK_INT(api_provider_init(&p, "nope", NULL, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "openrouter") != NULL);
    api_provider_opts bad = { .api_key = "k", .protocol = "smtp" };
    CHECK_INT(api_provider_init(&p, "openai", &bad, &err), HEW_E_INVALID);
    api_provider_opts resp = { .api_key = "k", .protocol = "openai-responses" };
    CHECK_INT(api_provider_init(&p, "openai", &resp, &err), HEW_OK);
    CHECK_INT(p.protocol, API_PROTO_OPENAI_RESPONSES);
    api_provider_opts crlf = { .api_key = "k\r\nX-Evil: 1" };
    CHECK_INT(api_provider_init(&p, "openai", &crlf, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "k\r") == NULL); /* the key is never echoed */
}

static void test_model_table(void)
{
    api_model m = api_model_lookup("anthropic", "claude-sonnet-4-5-20250929");
    CHECK(m.known);
    CHECK_STR(m.id, "claude-sonnet-4-5");
    CHECK_INT(m.context_window, 200000);
    CHECK(m.thinking && m.images && m.native_tools);
    m = api_model_lookup("openrouter", "anthropic/claude-sonnet-4.5");
    CHECK_STR(m.id, "claude-sonnet-4-5");
    m = api_model_lookup("openai", "gpt-4.1-mini-2025-04-14");
    CHECK_STR(m.id, "gpt-4.1-mini");
    m = api_model_lookup("openai", "gpt-5-2025-08-07");
    CHECK_STR(m.id, "gpt-5");
    CHECK(m.reasoning_effort);
    m = api_model_lookup("openrouter", "openai/gpt-4o-mini");
    CHECK_STR(m.id, "gpt-4o-mini");
    m = api_model_lookup("gemini", "gemini-2.5-flash-lite");
    CHECK_STR(m.id, "gemini-2.5-flash-lite");
    m = api_model_lookup("groq", "moonshotai/kimi-k2-instruct");
    CHECK(m.known);

    m = api_model_lookup("openai-compatible", "my-local-llama");
    CHECK(!m.known);
    CHECK_INT(m.context_window, 128000); /* Cline's default (context-window-utils.ts) */
    CHECK(!m.images && !m.thinking && !m.native_tools);
    CHECK(m.price.input == 0);

    json_t *desc = json_pack("{s:i,s:i,s:f,s:f,s:b}", "context_window", 131072, "max_output",
                             8192, "input_price", 0.5, "output_price", 1.5, "native_tools", 1);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(api_model_from_json(desc, &m, &err), HEW_OK);
    CHECK_INT(m.context_window, 131072);
    CHECK(m.native_tools && m.known);
    json_decref(desc);
    desc = json_pack("{s:s}", "context_window", "big");
    CHECK_INT(api_model_from_json(desc, &m, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "context_window") != NULL);
    json_decref(desc);
    /* next_gen (automatic condensing by default) can be described; a misspelt key is
     * refused with the key and the ones there are. */
    desc = json_pack("{s:b}", "next_gen", 1);
    CHECK_INT(api_model_from_json(desc, &m, &err), HEW_OK);
    CHECK(m.next_gen);
    json_decref(desc);
    desc = json_pack("{s:i}", "max_ouptut", 100);
    CHECK_INT(api_model_from_json(desc, &m, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "max_ouptut: unknown key") && strstr(err.msg, "max_output"));
    json_decref(desc);
}

/* The models OpenAI serves only through the Responses API (issue #18): marked in the
 * table (a codex name it does not list too), and the openai provider speaks Responses for
 * them unless a protocol was chosen; no other provider or model changes. */
static void test_responses_only(void)
{
    static const char *const only[] = { "gpt-5-codex", "gpt-5.1-codex", "gpt-5.1-codex-mini",
                                        "gpt-5.1-codex-max", "codex-mini-latest", "o3-pro",
                                        "o1-pro-2025-03-19", "gpt-5-pro", "gpt-7-codex" };
    static const char *const both[] = { "gpt-5", "gpt-5.1", "gpt-4.1", "o3", "o1",
                                        "gpt-5-mini", "claude-sonnet-4-5" };
    for (size_t i = 0; i < sizeof only / sizeof only[0]; i++)
        CHECK(api_model_lookup("openai", only[i]).responses_only ||
              !fprintf(stderr, "%s\n", only[i]));
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++)
        CHECK(!api_model_lookup("openai", both[i]).responses_only ||
              !fprintf(stderr, "%s\n", both[i]));
    api_model m = api_model_lookup("openai", "gpt-5.1-codex-mini");
    CHECK(m.known && m.context_window == 400000 && near(m.price.input, 0.25));
    CHECK(!api_model_lookup("openai", "gpt-7-codex").known);
    /* Claude 5 thinks adaptively and refuses a budget: the table offers none */
    m = api_model_lookup("anthropic", "claude-sonnet-5-5");
    CHECK(m.known && !m.thinking && m.context_window == 1000000 && near(m.price.input, 2));
    CHECK(near(api_model_lookup("anthropic", "claude-opus-5-5").price.output, 20));
    CHECK(api_model_lookup("anthropic", "claude-opus-4-6-20260205").thinking);

    api_provider p;
    hew_err err = HEW_ERR_INIT;
    setenv("OPENAI_API_KEY", "sk-test", 1);
    api_provider_opts o = { .model = "gpt-5-codex" };
    CHECK_INT(api_provider_init(&p, "openai", &o, &err), HEW_OK);
    CHECK_INT(p.protocol, API_PROTO_OPENAI_RESPONSES);
    o.protocol = "openai-chat"; /* a chosen protocol wins */
    CHECK_INT(api_provider_init(&p, "openai", &o, &err), HEW_OK);
    CHECK_INT(p.protocol, API_PROTO_OPENAI_CHAT);
    api_provider_opts plain = { .model = "gpt-5" };
    CHECK_INT(api_provider_init(&p, "openai", &plain, &err), HEW_OK);
    CHECK_INT(p.protocol, API_PROTO_OPENAI_CHAT);
    setenv("OPENROUTER_API_KEY", "sk-or", 1); /* OpenRouter serves them over Chat */
    api_provider_opts orr = { .model = "openai/gpt-5-codex" };
    CHECK_INT(api_provider_init(&p, "openrouter", &orr, &err), HEW_OK);
    CHECK_INT(p.protocol, API_PROTO_OPENAI_CHAT);
}

static void test_cost(void)
{
    api_model m = api_model_lookup("anthropic", "claude-sonnet-4-5");
    /* Anthropic usage: 2095 uncached + 12800 cache read + 0 write, 87 out. */
    api_usage u = { 14895, 2095, 12800, 0, 87, -1, -1 };
    CHECK(near(api_cost_usd(&m, &u), (2095 * 3 + 12800 * 0.3 + 87 * 15) / 1e6));
    /* OpenAI-style usage: the total includes the cached tokens; they are priced once. */
    api_model g = api_model_lookup("openai", "gpt-4.1");
    api_usage o = { 3217, 273, 2944, -1, 71, 0, -1 };
    CHECK(near(api_cost_usd(&g, &o), (273 * 2 + 2944 * 0.5 + 71 * 8) / 1e6));
    /* Only a total known: uncached = total - cache. */
    api_usage t = { 3217, -1, 2944, -1, 71, -1, -1 };
    CHECK(near(api_cost_usd(&g, &t), (273 * 2 + 2944 * 0.5 + 71 * 8) / 1e6));
    /* Long-context tier. */
    api_usage big = { 300000, 300000, 0, 0, 1000, -1, -1 };
    CHECK(near(api_cost_usd(&m, &big), (300000 * 6 + 1000 * 22.5) / 1e6));
    /* The provider's own figure wins. */
    api_usage rep = { 100, 100, 0, 0, 10, -1, 0.0042 };
    CHECK(near(api_cost_usd(&m, &rep), 0.0042));
    /* Unknown usage or unknown prices: no cost. */
    api_usage none = API_USAGE_UNKNOWN;
    CHECK(api_cost_usd(&m, &none) < 0);
    api_model unknown = api_model_lookup(NULL, "mystery");
    CHECK(api_cost_usd(&unknown, &u) < 0);
    /* A missing cache price falls back to the input price, never to zero. */
    api_model dk = api_model_lookup("deepseek", "deepseek-chat");
    api_usage w = { 1000, 0, 0, 1000, 0, -1, -1 };
    CHECK(near(api_cost_usd(&dk, &w), 1000 * 0.28 / 1e6));
}

static void test_validate(void)
{
    hew_err err = HEW_ERR_INIT;
    json_t *h = json_array();
    json_array_append_new(h, api_msg_user_text("hi"));
    json_t *a = json_array();
    json_array_append_new(a, api_msg_tool_use("t1", "read_file", NULL));
    json_array_append_new(h, api_msg_new("assistant", a));
    json_t *u = json_array();
    json_array_append_new(u, api_msg_tool_result("t1", "ok", false));
    json_array_append_new(u, api_msg_image("image/png", "iVBORw0KGgo="));
    json_array_append_new(h, api_msg_new("user", u));
    CHECK_INT(api_msg_validate(h, &err), HEW_OK);

    json_t *bad = json_deep_copy(h);
    json_object_set_new(json_array_get(json_object_get(json_array_get(bad, 2), "content"), 0),
                        "tool_use_id", json_string("t2"));
    CHECK_INT(api_msg_validate(bad, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "messages[2].content[0]") && strstr(err.msg, "t2"));
    json_decref(bad);
    bad = json_pack("[{s:s,s:s}]", "role", "system", "content", "x");
    CHECK_INT(api_msg_validate(bad, &err), HEW_E_INVALID);
    json_decref(bad);
    bad = json_pack("[{s:s,s:[{s:s}]}]", "role", "user", "content", "type", "video");
    CHECK_INT(api_msg_validate(bad, &err), HEW_E_INVALID);
    json_decref(bad);
    json_decref(h);
}

static json_t *build_body(const char *profile, const char *model, const json_t *history,
                          long thinking, const char *effort)
{
    api_provider p;
    api_provider_opts o = { .api_key = "k", .model = model };
    if (api_provider_init(&p, profile, &o, NULL) != HEW_OK)
        return NULL;
    api_request r = api_request_defaults();
    r.system = "sys";
    r.messages = history;
    r.thinking_budget = thinking;
    r.reasoning_effort = effort;
    r.has_temperature = true;
    r.temperature = 0;
    /* native tools offered: the history's tool blocks go as tool blocks */
    json_t *schema = json_pack("{s:s, s:{}}", "type", "object", "properties");
    api_tool list = { "list", "List files.", schema };
    r.tools = &list;
    r.ntools = 1;
    api_http h;
    hew_code rc = api_build(&p, &r, &h, NULL);
    json_decref(schema);
    if (rc != HEW_OK)
        return NULL;
    json_t *body = json_loads(h.body, 0, NULL);
    api_http_release(&h);
    return body;
}

static const char *js(const json_t *root, const char *path)
{
    const char *s = json_string_value(json_path_get(root, path));
    return s ? s : "(none)";
}

/* Gemini: a schema within OpenAPI's subset goes as "parameters" (hew's own tools); one
 * with JSON Schema beyond it (an MCP server's) as "parametersJsonSchema", unchanged. */
static void test_gemini_schemas(void)
{
    json_t *plain = json_pack("{s:s,s:{s:{s:s,s:s}},s:[s]}", "type", "object", "properties",
                              "path", "type", "string", "description", "where", "required",
                              "path");
    json_t *rich = json_pack("{s:s,s:s,s:{s:{s:s,s:{s:s}}},s:b}", "$schema",
                             "http://json-schema.org/draft-07/schema#", "type", "object",
                             "properties", "tags", "type", "array", "items", "type", "string",
                             "additionalProperties", 0);
    api_tool tools[2] = { { "read_file", "Read a file.", plain },
                          { "srv__tag", "Tag things.", rich } };
    api_provider p;
    api_provider_opts o = { .api_key = "k", .model = "gemini-2.5-pro" };
    REQUIRE(api_provider_init(&p, "gemini", &o, NULL) == HEW_OK);
    json_t *hist = json_array();
    json_array_append_new(hist, api_msg_user_text("hi"));
    api_request r = api_request_defaults();
    r.messages = hist;
    r.tools = tools;
    r.ntools = 2;
    api_http h;
    REQUIRE(api_build(&p, &r, &h, NULL) == HEW_OK);
    json_t *body = json_loads(h.body, 0, NULL);
    const json_t *d0 = json_path_get(body, "tools[0].functionDeclarations[0]");
    const json_t *d1 = json_path_get(body, "tools[0].functionDeclarations[1]");
    CHECK(json_object_get(d0, "parameters") && !json_object_get(d0, "parametersJsonSchema"));
    CHECK(json_object_get(d1, "parametersJsonSchema") && !json_object_get(d1, "parameters"));
    CHECK(json_equal(json_object_get(d1, "parametersJsonSchema"), rich));
    json_decref(body);
    api_http_release(&h);
    json_decref(hist);
    json_decref(plain);
    json_decref(rich);
}

static void test_builder_details(void)
{
    json_t *h = json_array();
    json_array_append_new(h, api_msg_user_text("first"));
    json_t *a = json_array();
    json_array_append_new(a, api_msg_thinking("why", 3, NULL)); /* unsigned */
    json_array_append_new(a, api_msg_tool_use("t1", "list", json_object()));
    json_array_append_new(h, api_msg_new("assistant", a));
    json_t *u = json_array();
    json_array_append_new(u, api_msg_tool_result("t1", "a.c", false));
    json_array_append_new(h, api_msg_new("user", u));

    json_t *b = build_body("anthropic", "claude-sonnet-4-5", h, 4096, NULL);
    REQUIRE(b);
    /* unsigned thinking dropped: the tool loop has no thinking block left, so this
     * request goes without thinking (test_anthropic_refusals_avoided) */
    CHECK(json_object_get(b, "thinking") == NULL);
    CHECK(json_integer_value(json_object_get(b, "max_tokens")) > 4096);
    CHECK(json_is_number(json_object_get(b, "temperature"))); /* no thinking: it may go */
    CHECK_STR(js(b, "messages[1].content[0].type"), "tool_use");
    json_decref(b);

    b = build_body("openrouter", "anthropic/claude-sonnet-4.5", h, 2048, NULL);
    REQUIRE(b);
    CHECK_STR(js(b, "messages[0].content[0].cache_control.type"), "ephemeral");
    CHECK_STR(js(b, "messages[1].content[0].cache_control.type"), "ephemeral");
    CHECK_INT(json_integer_value(json_path_get(b, "reasoning.max_tokens")), 2048);
    json_decref(b);

    b = build_body("deepseek", "deepseek-reasoner", h, 0, NULL);
    REQUIRE(b);
    CHECK_STR(js(b, "messages[2].reasoning_content"), "why"); /* current tool-calling turn */
    CHECK(json_path_get(b, "max_tokens") != NULL);
    json_decref(b);

    b = build_body("openai", "o4-mini", h, 0, "high");
    REQUIRE(b);
    CHECK_STR(js(b, "messages[0].role"), "developer");
    CHECK_STR(js(b, "reasoning_effort"), "high");
    CHECK(json_object_get(b, "temperature") == NULL);
    json_decref(b);

    b = build_body("xai", "grok-4", h, 0, NULL);
    REQUIRE(b);
    CHECK_STR(js(b, "messages[0].role"), "system");
    json_decref(b);

    /* Gemini: made-up ids never travel; signatures do. */
    json_t *g = json_array();
    json_array_append_new(g, api_msg_user_text("go"));
    json_t *ga = json_array();
    json_t *tu = api_msg_tool_use("call_x_0", "list", json_object());
    json_object_set_new(tu, "hew_synthesized_id", json_true());
    json_object_set_new(tu, "thought_signature", json_string("SIG"));
    json_array_append_new(ga, tu);
    json_array_append_new(g, api_msg_new("assistant", ga));
    json_t *gu = json_array();
    json_array_append_new(gu, api_msg_tool_result("call_x_0", "boom", true));
    json_array_append_new(g, api_msg_new("user", gu));
    b = build_body("gemini", "gemini-2.5-flash", g, 1024, NULL);
    REQUIRE(b);
    CHECK(json_path_get(b, "contents[1].parts[0].functionCall.id") == NULL);
    CHECK_STR(js(b, "contents[1].parts[0].thoughtSignature"), "SIG");
    CHECK_STR(js(b, "contents[2].parts[0].functionResponse.name"), "list");
    CHECK_STR(js(b, "contents[2].parts[0].functionResponse.response.error"), "boom");
    CHECK(json_path_get(b, "contents[2].parts[0].functionResponse.id") == NULL);
    CHECK_INT(json_integer_value(json_path_get(b, "generationConfig.thinkingConfig.thinkingBudget")),
              1024);
    json_decref(b);
    json_decref(g);
    json_decref(h);
}

/* Anthropic refuses whitespace-only text blocks, and, with thinking on, a last assistant
 * message in a tool loop that does not start with a thinking block: such a request goes
 * without thinking (the conversation came from a model or session without it). */
static void test_anthropic_refusals_avoided(void)
{
    json_t *h = json_array();
    json_array_append_new(h, api_msg_user_text("first"));
    json_t *a = json_array();
    json_array_append_new(a, api_msg_text(" \n\t", 3));
    json_array_append_new(a, api_msg_tool_use("t1", "list", json_object()));
    json_array_append_new(h, api_msg_new("assistant", a));
    json_t *u = json_array();
    json_array_append_new(u, api_msg_tool_result("t1", "a.c", false));
    json_array_append_new(u, api_msg_text("  ", 2));
    json_array_append_new(h, api_msg_new("user", u));
    json_t *b = build_body("anthropic", "claude-sonnet-4-5", h, 4096, NULL);
    REQUIRE(b);
    CHECK_STR(js(b, "messages[1].content[0].type"), "tool_use"); /* the blank text left out */
    CHECK_INT(json_array_size(json_path_get(b, "messages[2].content")), 1);
    CHECK(json_object_get(b, "thinking") == NULL); /* the tool loop has no thinking block */
    json_decref(b);
    /* the same loop with a signed thinking block first: thinking goes */
    json_t *signed_a = json_array();
    json_array_append_new(signed_a, api_msg_thinking("why", 3, "sig"));
    json_array_append_new(signed_a, api_msg_tool_use("t1", "list", json_object()));
    json_array_set_new(h, 1, api_msg_new("assistant", signed_a));
    b = build_body("anthropic", "claude-sonnet-4-5", h, 4096, NULL);
    REQUIRE(b);
    CHECK_STR(js(b, "thinking.type"), "enabled");
    CHECK_INT(json_integer_value(json_path_get(b, "thinking.budget_tokens")), 4096);
    CHECK(json_integer_value(json_object_get(b, "max_tokens")) > 4096);
    CHECK(json_object_get(b, "temperature") == NULL); /* dropped with thinking */
    CHECK_STR(js(b, "messages[1].content[0].signature"), "sig");
    json_decref(b);
    json_decref(h);

    /* another provider's ids: made to match ^[a-zA-Z0-9_-]+$, call and result alike */
    h = json_array();
    json_array_append_new(h, api_msg_user_text("first"));
    a = json_array();
    json_array_append_new(a, api_msg_tool_use("functions.list:0", "list", json_object()));
    json_array_append_new(h, api_msg_new("assistant", a));
    u = json_array();
    json_array_append_new(u, api_msg_tool_result("functions.list:0", "a.c", false));
    json_array_append_new(h, api_msg_new("user", u));
    b = build_body("anthropic", "claude-sonnet-4-5", h, 0, NULL);
    REQUIRE(b);
    CHECK_STR(js(b, "messages[1].content[0].id"), "functions_list_0");
    CHECK_STR(js(b, "messages[2].content[0].tool_use_id"), "functions_list_0");
    json_decref(b);
    json_decref(h);
}

/* A request with no native tools (XML tool mode, after a switch from a model with native
 * tools): the history's tool calls and results travel as text, for every protocol. */
static void test_tools_as_text(void)
{
    json_t *h = json_array();
    json_array_append_new(h, api_msg_user_text("first"));
    json_t *a = json_array();
    json_array_append_new(a, api_msg_text("Looking.", 8));
    json_array_append_new(a, api_msg_tool_use("t1", "read_file",
                                              json_pack("{s:s, s:i}", "path", "a.c", "n", 3)));
    json_array_append_new(h, api_msg_new("assistant", a));
    json_t *u = json_array();
    json_array_append_new(u, api_msg_tool_result("t1", "[read_file for 'a.c'] Result:\nint x;", false));
    json_array_append_new(u, api_msg_text("more", 4));
    json_array_append_new(h, api_msg_new("user", u));
    json_t *plain = api_msg_tools_as_text(h);
    REQUIRE(plain);
    CHECK_STR(js(plain, "[1].content[1].type"), "text");
    CHECK_STR(js(plain, "[1].content[1].text"), "<read_file>\n<path>a.c</path>\n<n>3</n>\n</read_file>");
    CHECK_STR(js(plain, "[2].content[0].text"), "[read_file for 'a.c'] Result:\nint x;");
    CHECK_STR(js(plain, "[2].content[1].text"), "more");
    CHECK_INT(json_array_size(json_path_get(h, "[1].content")), 2); /* the history untouched */
    CHECK_STR(js(h, "[1].content[1].type"), "tool_use");
    json_decref(plain);
    static const char *const protos[] = { "anthropic", "openai", "gemini" };
    for (size_t i = 0; i < 3; i++) {
        api_provider p;
        api_provider_opts o = { .api_key = "k", .model = "m" };
        REQUIRE(api_provider_init(&p, protos[i], &o, NULL) == HEW_OK);
        api_request r = api_request_defaults();
        r.messages = h;
        api_http out;
        REQUIRE(api_build(&p, &r, &out, NULL) == HEW_OK);
        CHECK(strstr(out.body, "tool_use") == NULL && strstr(out.body, "tool_call") == NULL &&
              strstr(out.body, "functionCall") == NULL && strstr(out.body, "\"tool\"") == NULL);
        CHECK(strstr(out.body, "<read_file>") != NULL);
        api_http_release(&out);
    }
    json_decref(h);
}

int main(void)
{
    RUN(test_profiles);
    RUN(test_model_table);
    RUN(test_responses_only);
    RUN(test_cost);
    RUN(test_validate);
    RUN(test_builder_details);
    RUN(test_gemini_schemas);
    RUN(test_tools_as_text);
    RUN(test_anthropic_refusals_avoided);
    return check_report();
}
