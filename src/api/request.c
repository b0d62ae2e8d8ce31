/* request — api_build: validates the history, resolves the model and max_tokens, asks
 * the protocol's builder for the body and adds the URL and headers (see request.h).
 * Deterministic; never does I/O; the key only ever goes into the auth header. */
#include "api/request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/build_internal.h"
#include "api/message.h"
#include "base/buf.h"
#include "base/json.h"

#define DEFAULT_MAX_TOKENS 8192
#define MAX_TOKENS_CAP 32000

api_request api_request_defaults(void)
{
    api_request r;
    memset(&r, 0, sizeof r);
    return r;
}

void api_http_release(api_http *h)
{
    if (!h)
        return;
    free(h->url);
    for (size_t i = 0; h->headers && i < h->nheaders; i++)
        free(h->headers[i]);
    free(h->headers);
    free(h->body);
    memset(h, 0, sizeof *h);
}

/* ---- helpers for the builders -------------------------------------------------------- */

json_t *build_schema(const api_tool *t)
{
    if (json_is_object(t->input_schema))
        return json_deep_copy(t->input_schema);
    return json_pack("{s:s,s:{}}", "type", "object", "properties");
}

json_t *build_image_url(const json_t *image)
{
    const json_t *src = json_object_get(image, "source");
    const char *mt = json_string_value(json_object_get(src, "media_type"));
    const char *data = json_string_value(json_object_get(src, "data"));
    buf b = BUF_INIT(0);
    buf_printf(&b, "data:%s;base64,%s", mt ? mt : "image/png", data ? data : "");
    json_t *v = b.err ? NULL : json_stringn(b.data, b.len);
    buf_release(&b);
    return v;
}

json_t *build_clean_block(const json_t *block, const char *drop)
{
    json_t *o = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)block, k, v) {
        if (strncmp(k, "hew_", 4) == 0 || (drop && strcmp(k, drop) == 0))
            continue;
        if (json_object_set(o, k, v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static const json_t *find_tool_use(const json_t *messages, const char *id)
{
    size_t i, k;
    json_t *m, *b;
    json_array_foreach(messages, i, m) {
        json_array_foreach(json_object_get(m, "content"), k, b) {
            if (strcmp(api_msg_block_type(b), "tool_use") == 0) {
                const char *bid = json_string_value(json_object_get(b, "id"));
                if (bid && id && strcmp(bid, id) == 0)
                    return b;
            }
        }
    }
    return NULL;
}

const char *build_tool_name(const json_t *messages, const char *id)
{
    return json_string_value(json_object_get(find_tool_use(messages, id), "name"));
}

bool build_tool_id_synthesized(const json_t *messages, const char *id)
{
    return json_is_true(json_object_get(find_tool_use(messages, id), "hew_synthesized_id"));
}

json_t *build_json_text(const json_t *v)
{
    json_t *empty = v ? NULL : json_object();
    char *s = json_dumps(v ? v : empty, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(empty);
    if (!s)
        return NULL;
    json_t *out = json_string(s);
    free(s);
    return out;
}

json_t *build_tool_output(const json_t *block, const char *kind_key, const char *kind,
                          const char *id_key, const char *text_key, hew_code *st)
{
    char *text = api_msg_tool_result_text(block);
    if (!text) {
        *st = HEW_E_NOMEM;
        return NULL;
    }
    json_t *o = json_object();
    json_obj_put(o, kind_key, json_string(kind), st);
    json_obj_put(o, id_key, json_incref(json_object_get(block, "tool_use_id")), st);
    json_obj_put(o, text_key, json_string_lossy(text, strlen(text)), st);
    free(text);
    return o;
}

/* ---- URL and headers ------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *make_url(const api_provider *p)
{
    buf b = BUF_INIT(4096);
    buf_puts(&b, p->base_url);
    switch (p->protocol) {
    case API_PROTO_ANTHROPIC:
        buf_puts(&b, ends_with(p->base_url, "/v1") ? "/messages" : "/v1/messages");
        break;
    case API_PROTO_OPENAI_CHAT:
        buf_puts(&b, "/chat/completions");
        break;
    case API_PROTO_OPENAI_RESPONSES:
        buf_puts(&b, "/responses");
        break;
    case API_PROTO_GEMINI: {
        /* The model goes into the path: keep it to URL-safe characters. */
        buf_puts(&b, "/models/");
        for (const char *s = p->model; *s; s++) {
            unsigned char c = (unsigned char)*s;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_')
                buf_putc(&b, (char)c);
            else
                buf_printf(&b, "%%%02X", c);
        }
        buf_puts(&b, ":streamGenerateContent?alt=sse");
        break;
    }
    }
    return buf_detach(&b, NULL);
}

static void add_header(api_http *h, hew_code *st, const char *fmt, const char *a, const char *b2)
{
    if (*st != HEW_OK)
        return;
    buf b = BUF_INIT(8192);
    buf_printf(&b, fmt, a, b2);
    char *s = buf_detach(&b, NULL);
    char **grown = s ? realloc(h->headers, (h->nheaders + 2) * sizeof *grown) : NULL;
    if (!grown) {
        free(s);
        *st = HEW_E_NOMEM;
        return;
    }
    h->headers = grown;
    h->headers[h->nheaders++] = s;
    h->headers[h->nheaders] = NULL;
}

static long resolve_max_tokens(const api_request *r, const api_model *m)
{
    if (r->max_tokens > 0)
        return r->max_tokens;
    if (!m->known)
        return DEFAULT_MAX_TOKENS;
    return m->max_output < MAX_TOKENS_CAP ? (long)m->max_output : MAX_TOKENS_CAP;
}

hew_code api_build(const api_provider *p, const api_request *r, api_http *out, hew_err *err)
{
    memset(out, 0, sizeof *out);
    if (api_msg_validate(r->messages, err) != HEW_OK)
        return HEW_E_INVALID;
    for (size_t i = 0; i < r->ntools; i++)
        if (!r->tools[i].name || !*r->tools[i].name)
            return hew_err_set(err, HEW_E_INVALID, "tools[%zu]: a tool needs a name", i);
    /* No native tools: tool blocks of an earlier model go as text (Anthropic refuses
     * tool_use/tool_result blocks in a request that defines no tools). */
    api_request textual;
    json_t *as_text = NULL;
    if (r->ntools == 0) {
        as_text = api_msg_tools_as_text(r->messages);
        if (!as_text)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory while building the request");
        textual = *r;
        textual.messages = as_text;
        r = &textual;
    }
    build_ctx c = { .p = p, .r = r };
    c.model = r->model ? *r->model
                       : api_model_lookup(p->profile ? p->profile->name : NULL, p->model);
    c.max_tokens = resolve_max_tokens(r, &c.model);
    if (r->thinking_budget > 0 && c.max_tokens <= r->thinking_budget)
        c.max_tokens = r->thinking_budget + 1024; /* Anthropic: max_tokens > budget_tokens */

    json_t *body = NULL;
    switch (p->protocol) {
    case API_PROTO_ANTHROPIC:
        body = build_anthropic(&c, err);
        break;
    case API_PROTO_OPENAI_CHAT:
        body = build_openai_chat(&c, err);
        break;
    case API_PROTO_OPENAI_RESPONSES:
        body = build_openai_responses(&c, err);
        break;
    case API_PROTO_GEMINI:
        body = build_gemini(&c, err);
        break;
    }
    if (!body) {
        json_decref(as_text);
        return err && err->code ? err->code : HEW_E_NOMEM;
    }
    out->body = json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(body);
    json_decref(as_text);
    out->url = make_url(p);
    if (!out->body || !out->url) {
        api_http_release(out);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory while building the request");
    }
    out->body_len = strlen(out->body);

    hew_code st = HEW_OK;
    add_header(out, &st, "%s%s", "Content-Type: application/json", "");
    add_header(out, &st, "%s%s", "Accept: text/event-stream", "");
    if (p->api_key[0]) {
        switch (p->auth) {
        case API_AUTH_BEARER:
            add_header(out, &st, "Authorization: Bearer %s%s", p->api_key, "");
            break;
        case API_AUTH_X_API_KEY:
            add_header(out, &st, "x-api-key: %s%s", p->api_key, "");
            break;
        case API_AUTH_GOOG:
            add_header(out, &st, "x-goog-api-key: %s%s", p->api_key, "");
            break;
        case API_AUTH_AZURE:
            add_header(out, &st, "api-key: %s%s", p->api_key, "");
            break;
        }
    }
    if (p->protocol == API_PROTO_ANTHROPIC)
        add_header(out, &st, "%s%s", "anthropic-version: 2023-06-01", "");
    for (size_t i = 0; i < p->nheaders; i++)
        add_header(out, &st, "%s%s", p->headers[i], "");
    if (st != HEW_OK) {
        api_http_release(out);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory while building the request");
    }
    return HEW_OK;
}
