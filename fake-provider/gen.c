/* gen — parse a generated response entry and hand it to its protocol's generator (see
 * gen.h). Also the shared pieces: UTF-8-safe delta cutting and SSE event printing.
 * Never does I/O; never formats JSON by hand (jansson serialises every payload). */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"

typedef struct gen_protocol {
    const char *name;
    void (*build)(const gen_spec *s, fp_plan *p);
    const char *default_model;
    const char *content_type;
    const char *request_id_header; /* NULL: none */
    const char *stop_end;          /* natural stop reason without tool calls */
    const char *stop_tools;        /* natural stop reason with tool calls */
    const char *call_id_prefix;    /* default tool call id: PREFIX<number>_<k> */
} gen_protocol;

static const gen_protocol protocols[] = {
    {"anthropic", gen_anthropic, "claude-sonnet-4-5", "text/event-stream; charset=utf-8",
     "request-id", "end_turn", "tool_use", "toolu_fake_"},
    {"openai-chat", gen_openai_chat, "gpt-4o", "text/event-stream; charset=utf-8",
     "x-request-id", "stop", "tool_calls", "call_fake_"},
    {"openai-responses", gen_openai_responses, "gpt-5", "text/event-stream; charset=utf-8",
     "x-request-id", "completed", "completed", "call_fake_"},
    {"gemini", gen_gemini, "gemini-2.5-pro", "text/event-stream", NULL, "STOP", "STOP",
     "fake_"},
};

const char *const gen_keys[] = {"protocol", "model",     "id",          "text",
                                "deltas",   "reasoning", "reasoning_deltas", "signature",
                                "tool_calls", "usage",   "stop_reason", "delta_size",
                                "headers",  NULL};

static const char *const call_keys[] = {"id", "name", "arguments", "deltas",
                                        "thought_signature", NULL};
static const char *const usage_keys[] = {"input", "output", "cache_read", "cache_write",
                                         "reasoning", NULL};

#define MAX_TOKENS 1000000000000LL

void gen_pieces_release(gen_pieces *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        free(ps->v[i]);
    free(ps->v);
    free(ps->len);
    memset(ps, 0, sizeof *ps);
}

static bool pieces_add(gen_pieces *ps, const char *s, size_t len)
{
    char **v = realloc(ps->v, (ps->n + 1) * sizeof *v);
    if (!v)
        return false;
    ps->v = v;
    size_t *l = realloc(ps->len, (ps->n + 1) * sizeof *l);
    if (!l)
        return false;
    ps->len = l;
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, s, len);
    copy[len] = '\0';
    ps->v[ps->n] = copy;
    ps->len[ps->n] = len;
    ps->n++;
    return true;
}

static char *pieces_join(const gen_pieces *ps)
{
    buf b = BUF_INIT(PLAN_BODY_MAX);
    buf_puts(&b, "");
    for (size_t i = 0; i < ps->n; i++)
        buf_append(&b, ps->v[i], ps->len[i]);
    return buf_detach(&b, NULL);
}

bool gen_cut_utf8(const char *s, size_t len, size_t size, gen_pieces *out)
{
    size_t pos = 0;
    if (size == 0)
        size = 1;
    while (pos < len) {
        size_t end = len - pos <= size ? len : pos + size;
        /* back up while end sits on a continuation byte */
        while (end > pos && end < len && ((unsigned char)s[end] & 0xC0) == 0x80)
            end--;
        if (end == pos) { /* one character longer than size: take it whole */
            end = pos + 1;
            while (end < len && ((unsigned char)s[end] & 0xC0) == 0x80)
                end++;
        }
        if (!pieces_add(out, s + pos, end - pos))
            return false;
        pos = end;
    }
    return true;
}

static const gen_protocol *find_protocol(const char *name)
{
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++)
        if (strcmp(protocols[i].name, name) == 0)
            return &protocols[i];
    return NULL;
}

/* "text" (cut at delta_size) or explicit "deltas"; neither: no pieces. */
static hew_code load_pieces(const json_t *obj, const char *path, const char *whole_key,
                            const char *deltas_key, size_t size, gen_pieces *out,
                            hew_err *err)
{
    json_t *whole = json_object_get(obj, whole_key);
    json_t *deltas = json_object_get(obj, deltas_key);
    if (whole && deltas)
        return hew_err_set(err, HEW_E_INVALID, "%s: give either \"%s\" or \"%s\", not both",
                           path, whole_key, deltas_key);
    if (whole) {
        if (!json_is_string(whole))
            return hew_err_set(err, HEW_E_INVALID, "%s.%s: must be a string", path,
                               whole_key);
        if (!gen_cut_utf8(json_string_value(whole), json_string_length(whole), size, out))
            return hew_err_set(err, HEW_E_NOMEM, "%s.%s: out of memory", path, whole_key);
    } else if (deltas) {
        if (!json_is_array(deltas))
            return hew_err_set(err, HEW_E_INVALID, "%s.%s: must be an array of strings",
                               path, deltas_key);
        for (size_t i = 0; i < json_array_size(deltas); i++) {
            json_t *d = json_array_get(deltas, i);
            if (!json_is_string(d))
                return hew_err_set(err, HEW_E_INVALID, "%s.%s[%zu]: must be a string", path,
                                   deltas_key, i);
            if (!pieces_add(out, json_string_value(d), json_string_length(d)))
                return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);
        }
    }
    return HEW_OK;
}

static hew_code load_call(const json_t *c, const char *path, const gen_protocol *proto,
                          const gen_spec *s, size_t k, gen_call *call, hew_err *err)
{
    if (!json_is_object(c))
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: must be an object {\"id\", \"name\", \"arguments\"}", path);
    if (field_check_keys(c, path, call_keys, NULL, err))
        return err->code;
    const char *id = NULL;
    if (field_string(c, "id", path, &id, err) || field_string(c, "name", path, &call->name, err) ||
        field_string(c, "thought_signature", path, &call->thought_signature, err))
        return err->code;
    if (!call->name)
        return hew_err_set(err, HEW_E_INVALID, "%s: missing \"name\" (the tool's name)", path);
    if (id)
        snprintf(call->id, sizeof call->id, "%s", id);
    else
        snprintf(call->id, sizeof call->id, "%s%zu_%zu", proto->call_id_prefix, s->number, k);

    json_t *args = json_object_get(c, "arguments");
    json_t *deltas = json_object_get(c, "deltas");
    if (args && deltas)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: give either \"arguments\" or \"deltas\", not both", path);
    if (deltas) {
        if (load_pieces(c, path, "arguments", "deltas", s->delta_size, &call->deltas, err))
            return err->code;
        call->args = pieces_join(&call->deltas);
    } else {
        if (!args)
            call->args = strdup("{}");
        else if (json_is_string(args))
            call->args = strdup(json_string_value(args));
        else if (json_is_object(args) || json_is_array(args))
            call->args = json_dumps(args, JSON_COMPACT | JSON_PRESERVE_ORDER);
        else
            return hew_err_set(err, HEW_E_INVALID,
                               "%s.arguments: must be a JSON object or a raw string", path);
        if (call->args &&
            !gen_cut_utf8(call->args, strlen(call->args), s->delta_size, &call->deltas))
            return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);
    }
    if (!call->args)
        return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);
    call->args_json = json_loads(call->args, JSON_DECODE_ANY, NULL);
    if (proto->build == gen_gemini && !json_is_object(call->args_json))
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.arguments: gemini sends whole functionCall args, so they must "
                           "be a JSON object",
                           path);
    return HEW_OK;
}

static hew_code load_usage(const json_t *resp, const char *path, gen_usage *u, hew_err *err)
{
    json_t *o = json_object_get(resp, "usage");
    if (!o)
        return HEW_OK;
    char upath[300];
    snprintf(upath, sizeof upath, "%s.usage", path);
    if (!json_is_object(o))
        return hew_err_set(err, HEW_E_INVALID, "%s: must be an object", upath);
    if (field_check_keys(o, upath, usage_keys, NULL, err))
        return err->code;
    u->given = true;
    if (field_uint(o, "input", upath, MAX_TOKENS, &u->input, NULL, err) ||
        field_uint(o, "output", upath, MAX_TOKENS, &u->output, NULL, err) ||
        field_uint(o, "cache_read", upath, MAX_TOKENS, &u->cache_read, NULL, err) ||
        field_uint(o, "cache_write", upath, MAX_TOKENS, &u->cache_write, NULL, err) ||
        field_uint(o, "reasoning", upath, MAX_TOKENS, &u->reasoning, NULL, err))
        return err->code;
    return HEW_OK;
}

static void spec_release(gen_spec *s)
{
    gen_pieces_release(&s->text);
    gen_pieces_release(&s->reasoning);
    free(s->text_all);
    free(s->reasoning_all);
    for (size_t i = 0; i < s->ncalls; i++) {
        free(s->calls[i].args);
        json_decref(s->calls[i].args_json);
        gen_pieces_release(&s->calls[i].deltas);
    }
    free(s->calls);
}

static hew_code load_spec(const json_t *resp, const char *path, const gen_protocol *proto,
                          gen_spec *s, hew_err *err)
{
    if (field_string(resp, "model", path, &s->model, err) ||
        field_string(resp, "id", path, &s->id, err) ||
        field_string(resp, "signature", path, &s->signature, err) ||
        field_string(resp, "stop_reason", path, &s->stop_reason, err))
        return err->code;
    if (!s->model)
        s->model = proto->default_model;
    long long size = 8;
    if (field_uint(resp, "delta_size", path, 1 << 20, &size, NULL, err))
        return err->code;
    if (size == 0)
        return hew_err_set(err, HEW_E_INVALID, "%s.delta_size: must be at least 1", path);
    s->delta_size = (size_t)size;
    if (load_pieces(resp, path, "text", "deltas", s->delta_size, &s->text, err) ||
        load_pieces(resp, path, "reasoning", "reasoning_deltas", s->delta_size,
                    &s->reasoning, err))
        return err->code;
    s->text_all = pieces_join(&s->text);
    s->reasoning_all = pieces_join(&s->reasoning);
    if (!s->text_all || !s->reasoning_all)
        return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);

    json_t *calls = json_object_get(resp, "tool_calls");
    if (calls && !json_is_array(calls))
        return hew_err_set(err, HEW_E_INVALID, "%s.tool_calls: must be an array", path);
    size_t n = json_array_size(calls);
    s->calls = calloc(n ? n : 1, sizeof *s->calls);
    if (!s->calls)
        return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);
    for (size_t k = 0; k < n; k++) {
        char cpath[300];
        snprintf(cpath, sizeof cpath, "%s.tool_calls[%zu]", path, k);
        s->ncalls = k + 1;
        if (load_call(json_array_get(calls, k), cpath, proto, s, k, &s->calls[k], err))
            return err->code;
    }
    if (load_usage(resp, path, &s->usage, err))
        return err->code;
    if (!s->stop_reason)
        s->stop_reason = s->ncalls ? proto->stop_tools : proto->stop_end;
    if (proto->build == gen_openai_responses && strcmp(s->stop_reason, "completed") != 0 &&
        strcmp(s->stop_reason, "incomplete") != 0 && strcmp(s->stop_reason, "failed") != 0)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.stop_reason: openai-responses ends with \"completed\", "
                           "\"incomplete\" or \"failed\", not \"%s\"",
                           path, s->stop_reason);
    return HEW_OK;
}

hew_code gen_load(const json_t *resp, const char *path, size_t index, fp_plan *p,
                  hew_err *err)
{
    const char *name = NULL;
    if (field_string(resp, "protocol", path, &name, err))
        return err->code;
    const gen_protocol *proto = name ? find_protocol(name) : NULL;
    if (!proto)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.protocol: unknown protocol \"%s\" — use anthropic, "
                           "openai-chat, openai-responses or gemini",
                           path, name ? name : "");
    gen_spec s;
    memset(&s, 0, sizeof s);
    s.number = index + 1;
    hew_code rc = load_spec(resp, path, proto, &s, err);
    if (rc == HEW_OK) {
        plan_set_header(p, "content-type", proto->content_type);
        if (proto->build != gen_gemini)
            plan_set_header(p, "cache-control", "no-cache");
        if (proto->request_id_header) {
            char rid[64];
            snprintf(rid, sizeof rid, "req_fake_%zu", s.number);
            plan_set_header(p, proto->request_id_header, rid);
        }
        rc = field_headers(resp, "headers", path, p, err);
    }
    if (rc == HEW_OK) {
        p->status = 200;
        p->chunked = true;
        snprintf(p->label, sizeof p->label, "generated %s", proto->name);
        proto->build(&s, p);
    }
    spec_release(&s);
    return rc;
}

/* Compact JSON with ": " after each key (Google's style): add a space after every
 * colon that is outside a string. */
static void append_gemini_style(buf *b, const char *json)
{
    bool in_str = false;
    for (const char *c = json; *c; c++) {
        buf_putc(b, *c);
        if (in_str) {
            if (*c == '\\' && c[1]) {
                buf_putc(b, *++c);
            } else if (*c == '"') {
                in_str = false;
            }
        } else if (*c == '"') {
            in_str = true;
        } else if (*c == ':') {
            buf_putc(b, ' ');
        }
    }
}

void gen_event(fp_plan *p, const char *name, json_t *data, gen_style style, bool crlf)
{
    const char *eol = crlf ? "\r\n" : "\n";
    size_t flags = JSON_PRESERVE_ORDER | (style == GEN_SPACED ? 0 : JSON_COMPACT);
    char *json = data ? json_dumps(data, flags) : NULL;
    json_decref(data);
    if (!json) {
        p->body.err = HEW_E_NOMEM;
        return;
    }
    buf b = BUF_INIT(PLAN_BODY_MAX);
    if (name)
        buf_printf(&b, "event: %s%s", name, eol);
    buf_puts(&b, "data: ");
    if (style == GEN_GEMINI)
        append_gemini_style(&b, json);
    else
        buf_puts(&b, json);
    buf_puts(&b, eol);
    buf_puts(&b, eol);
    free(json);
    if (b.err)
        p->body.err = b.err;
    else
        plan_add_event(p, b.data, b.len);
    buf_release(&b);
}

void gen_event_raw(fp_plan *p, const char *text)
{
    buf b = BUF_INIT(4096);
    buf_printf(&b, "data: %s\n\n", text);
    if (b.err)
        p->body.err = b.err;
    else
        plan_add_event(p, b.data, b.len);
    buf_release(&b);
}
