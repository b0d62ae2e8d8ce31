/* turn — accumulates chunks into one assistant turn (see turn.h). Appends only; parses
 * tool arguments only when asked; every buffer capped. Never prints. */
#include "api/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "base/json.h"
#include "base/limits.h"
#include "base/log.h"
#include "sys/spill.h"

_Static_assert(API_TURN_MAX >= LIMITS_STREAM_LINE,
               "a turn's buffers hold a tool call that came whole in the longest line");

void api_turn_init(api_turn *t)
{
    memset(t, 0, sizeof *t);
    buf_init(&t->text, API_TURN_MAX);
    buf_init(&t->reasoning, API_TURN_MAX);
    api_usage u = API_USAGE_UNKNOWN;
    t->usage = u;
    api_error_init(&t->error);
}

void api_turn_release(api_turn *t)
{
    buf_release(&t->text);
    spill_close(t->text_spill);
    buf_release(&t->reasoning);
    for (size_t i = 0; i < t->nblocks; i++) {
        api_turn_reasoning *b = &t->blocks[i];
        buf_release(&b->text);
        free(b->signature);
        free(b->opaque);
        free(b->item_id);
        json_decref(b->details);
    }
    free(t->blocks);
    for (size_t i = 0; i < t->ncalls; i++) {
        free(t->calls[i].id);
        free(t->calls[i].name);
        free(t->calls[i].thought_signature);
        buf_release(&t->calls[i].args);
    }
    free(t->calls);
    memset(t, 0, sizeof *t);
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* Replace *slot with a copy of s[0..n). */
static void set_copy(api_turn *t, char **slot, const char *s, size_t n)
{
    char *p = dup_n(s, n);
    if (!p) {
        t->oom = HEW_E_NOMEM;
        return;
    }
    free(*slot);
    *slot = p;
}

static api_turn_reasoning *block_at(api_turn *t, int block)
{
    if (block < 0)
        block = 0;
    while (t->nblocks <= (size_t)block) {
        if (t->nblocks >= 4096) {
            t->oom = HEW_E_TOOBIG;
            return NULL;
        }
        api_turn_reasoning *nb = realloc(t->blocks, (t->nblocks + 1) * sizeof *nb);
        if (!nb) {
            t->oom = HEW_E_NOMEM;
            return NULL;
        }
        t->blocks = nb;
        memset(&nb[t->nblocks], 0, sizeof nb[0]);
        buf_init(&nb[t->nblocks].text, API_TURN_MAX);
        t->nblocks++;
    }
    return &t->blocks[block];
}

static api_turn_call *call_at(api_turn *t, int index)
{
    if (index < 0 || index >= 4096) {
        t->oom = HEW_E_TOOBIG;
        return NULL;
    }
    while (t->ncalls <= (size_t)index) {
        api_turn_call *nc = realloc(t->calls, (t->ncalls + 1) * sizeof *nc);
        if (!nc) {
            t->oom = HEW_E_NOMEM;
            return NULL;
        }
        t->calls = nc;
        api_turn_call *c = &nc[t->ncalls];
        memset(c, 0, sizeof *c);
        buf_init(&c->args, API_TURN_MAX);
        c->id = dup_n("", 0);
        c->name = dup_n("", 0);
        if (!c->id || !c->name)
            t->oom = HEW_E_NOMEM;
        t->ncalls++;
    }
    return &t->calls[index];
}

void api_turn_spill_to(api_turn *t, const char *dir)
{
    t->spill_dir = dir && *dir ? dir : NULL;
}

size_t api_turn_text_len(const api_turn *t)
{
    return t->text_front + t->text.len;
}

/* All but the text's last API_TURN_SPILL_KEEP bytes go to the spill file. A failure
 * stops spilling for this turn (the text stays in memory); what is on disk stays
 * readable. */
static void spill_front(api_turn *t)
{
    hew_err err = HEW_ERR_INIT;
    if (!t->text_spill && spill_open(t->spill_dir, &t->text_spill, &err) != HEW_OK) {
        hew_log(HEW_LOG_WARN, "api", "a long answer stays in memory: %s", err.msg);
        t->spill_dir = NULL;
        return;
    }
    size_t n = t->text.len - API_TURN_SPILL_KEEP;
    if (spill_append(t->text_spill, t->text.data, n, &err) != HEW_OK) {
        hew_log(HEW_LOG_WARN, "api", "a long answer stays in memory: %s", err.msg);
        t->spill_dir = NULL;
        return;
    }
    buf_consume(&t->text, n);
    t->text_front += n;
}

int api_turn_add(void *ud, const api_chunk *c)
{
    api_turn *t = ud;
    switch (c->kind) {
    case API_CHUNK_TEXT:
        if (t->text_front > API_TURN_MAX - t->text.len ||
            c->len > API_TURN_MAX - t->text.len - t->text_front) {
            if (!t->text.err)
                t->text.err = HEW_E_TOOBIG; /* the cap holds for the whole text */
            break;
        }
        buf_append(&t->text, c->text, c->len);
        if (t->spill_dir && t->text.len >= API_TURN_SPILL_AT && !t->text.err)
            spill_front(t);
        break;
    case API_CHUNK_REASONING: {
        const api_reasoning *r = &c->reasoning;
        api_turn_reasoning *b = block_at(t, r->block);
        if (c->len) {
            buf_append(&t->reasoning, c->text, c->len);
            if (b)
                buf_append(&b->text, c->text, c->len);
        }
        if (!b)
            break;
        if (r->signature)
            set_copy(t, &b->signature, r->signature, r->signature_len);
        if (r->opaque)
            set_copy(t, &b->opaque, r->opaque, r->opaque_len);
        if (r->redacted)
            b->redacted = true;
        if (r->item_id)
            set_copy(t, &b->item_id, r->item_id, strlen(r->item_id));
        if (r->details) {
            json_error_t je;
            json_t *d = json_loadb(r->details, r->details_len, 0, &je);
            if (d) {
                if (!b->details)
                    b->details = json_array();
                if (json_array_append_new(b->details, d) != 0)
                    t->oom = HEW_E_NOMEM;
            }
        }
        break;
    }
    case API_CHUNK_TOOL_DELTA: {
        api_turn_call *k = call_at(t, c->tool.index);
        if (!k)
            break;
        if (c->tool.id && (!k->id[0] || !k->id_synthesized)) {
            set_copy(t, &k->id, c->tool.id, strlen(c->tool.id));
            k->id_synthesized = c->tool.id_synthesized;
        }
        if (c->tool.name && c->tool.name[0])
            set_copy(t, &k->name, c->tool.name, strlen(c->tool.name));
        if (c->tool.thought_signature)
            set_copy(t, &k->thought_signature, c->tool.thought_signature,
                     c->tool.thought_signature_len);
        buf_append(&k->args, c->tool.args, c->tool.args_len);
        break;
    }
    case API_CHUNK_USAGE:
        t->usage = c->usage;
        t->have_usage = true;
        break;
    case API_CHUNK_END:
        t->ended = true;
        t->complete = true;
        t->stop = c->end.stop;
        snprintf(t->stop_raw, sizeof t->stop_raw, "%s", c->end.raw ? c->end.raw : "");
        t->tool_args_truncated = c->end.tool_args_truncated;
        break;
    case API_CHUNK_ERROR:
        t->ended = true;
        t->failed = true;
        t->stop = API_STOP_ERROR;
        if (c->error)
            t->error = *c->error;
        break;
    }
    if (!t->oom) {
        if (t->text.err)
            t->oom = t->text.err;
        else if (t->reasoning.err)
            t->oom = t->reasoning.err;
    }
    return 0;
}

/* Call i's arguments as a new JSON object: "" gives {}; NULL when they are not a JSON
 * object (invalid, or cut off) — such a call must not be executed. */
static json_t *api_turn_call_input(const api_turn *t, size_t i)
{
    if (i >= t->ncalls || t->calls[i].args.err)
        return NULL;
    const buf *a = &t->calls[i].args;
    size_t k = 0;
    while (k < a->len && (a->data[k] == ' ' || a->data[k] == '\n' || a->data[k] == '\t' ||
                          a->data[k] == '\r'))
        k++;
    if (k == a->len)
        return json_object();
    json_error_t je;
    /* JSON_ALLOW_NUL: a \u0000 in an argument is valid JSON and goes back as sent. */
    json_t *v = json_loadb(a->data, a->len, JSON_ALLOW_NUL, &je);
    if (v && !json_is_object(v)) {
        json_decref(v);
        return NULL;
    }
    return v;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string_lossy(s, strlen(s)) : json_null();
}

/* Bytes [off, off + n) of the whole text (spilled, then in memory) appended to out. */
static hew_code text_range(const api_turn *t, size_t off, size_t n, buf *out, hew_err *err)
{
    if (off < t->text_front) {
        size_t k = t->text_front - off < n ? t->text_front - off : n;
        hew_code rc = spill_read(t->text_spill, off, k, out, err);
        if (rc != HEW_OK)
            return rc;
        off += k;
        n -= k;
    }
    if (n) {
        size_t at = off - t->text_front;
        buf_append(out, t->text.data + at, n < t->text.len - at ? n : t->text.len - at);
    }
    return out->err ? hew_err_set(err, out->err, "out of memory") : HEW_OK;
}

/* The text as blocks of at most API_TURN_TEXT_PART bytes, each cut before a character's
 * first byte (the next one starts with it), read part by part: a long text is never
 * whole twice. */
static void push_text(const api_turn *t, json_t *content, hew_code *st)
{
    size_t total = api_turn_text_len(t), off = 0;
    buf part = BUF_INIT(0);
    hew_err err = HEW_ERR_INIT;
    while (off < total && *st == HEW_OK) {
        size_t want = total - off < API_TURN_TEXT_PART ? total - off : API_TURN_TEXT_PART;
        buf_reset(&part);
        /* 3 bytes more: where the next character starts */
        if (text_range(t, off, want + 3, &part, &err) != HEW_OK) {
            hew_log(HEW_LOG_ERROR, "api", "the answer's text cannot be read back: %s",
                    err.msg);
            *st = err.code;
            break;
        }
        size_t k = want;
        if (off + want < total) {
            while (k > want - 3 && ((unsigned char)part.data[k] & 0xC0) == 0x80)
                k--;
            if (((unsigned char)part.data[k] & 0xC0) == 0x80)
                k = want; /* not UTF-8 here anyway: cut where the size says */
        }
        json_arr_push(content, api_msg_text(part.data, k), st);
        off += k;
    }
    buf_release(&part);
}

json_t *api_turn_to_message(const api_turn *t)
{
    json_t *content = json_array();
    hew_code st = content ? HEW_OK : HEW_E_NOMEM;
    for (size_t i = 0; i < t->nblocks && st == HEW_OK; i++) {
        const api_turn_reasoning *b = &t->blocks[i];
        json_t *blk;
        if (b->redacted) {
            blk = api_msg_redacted_thinking(b->opaque ? b->opaque : "");
        } else {
            blk = api_msg_thinking(b->text.data ? b->text.data : "", b->text.len,
                                   b->signature);
            if (blk && b->item_id)
                json_obj_put(blk, "hew_item_id", str_or_null(b->item_id), &st);
            if (blk && b->opaque)
                json_obj_put(blk, "hew_encrypted", str_or_null(b->opaque), &st);
            if (blk && b->details)
                json_obj_put(blk, "hew_reasoning_details", json_incref(b->details), &st);
        }
        json_arr_push(content, blk, &st);
    }
    if (st == HEW_OK)
        push_text(t, content, &st);
    for (size_t i = 0; i < t->ncalls && st == HEW_OK; i++) {
        const api_turn_call *k = &t->calls[i];
        json_t *input = t->tool_args_truncated ? NULL : api_turn_call_input(t, i);
        bool invalid = !input;
        if (!input)
            input = json_object();
        json_t *blk = api_msg_tool_use(k->id, k->name, input);
        if (blk && invalid)
            json_obj_put(blk, "hew_invalid_input",
                         json_string_lossy(k->args.data ? k->args.data : "", k->args.len), &st);
        if (blk && k->id_synthesized)
            json_obj_put(blk, "hew_synthesized_id", json_true(), &st);
        if (blk && k->thought_signature)
            json_obj_put(blk, "thought_signature", str_or_null(k->thought_signature), &st);
        json_arr_push(content, blk, &st);
    }
    if (st != HEW_OK) {
        json_decref(content);
        return NULL;
    }
    return api_msg_new("assistant", content);
}

static json_t *count(int64_t v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

json_t *api_error_debug_json(const api_error *e)
{
    json_t *o = json_object();
    hew_code st = o ? HEW_OK : HEW_E_NOMEM;
    json_obj_put(o, "category", json_string(api_error_category_name(e->category)), &st);
    json_obj_put(o, "retryable", json_boolean(e->retryable), &st);
    json_obj_put(o, "retry_after_seconds",
                 e->retry_after_seconds >= 0 ? json_real(e->retry_after_seconds) : json_null(),
                 &st);
    json_obj_put(o, "context_window_exceeded", json_boolean(e->context_window_exceeded), &st);
    json_obj_put(o, "message", json_string_lossy(e->message, strlen(e->message)), &st);
    json_obj_put(o, "provider_message",
                 json_string_lossy(e->provider_message, strlen(e->provider_message)), &st);
    json_obj_put(o, "code", json_string_lossy(e->code, strlen(e->code)), &st);
    json_obj_put(o, "http_status", json_integer(e->http_status), &st);
    if (e->affordable_max_tokens >= 0)
        json_obj_put(o, "affordable_max_tokens", json_integer(e->affordable_max_tokens), &st);
    if (st != HEW_OK) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *api_turn_debug_json(const api_turn *t)
{
    json_t *o = json_object();
    hew_code st = o ? HEW_OK : HEW_E_NOMEM;
    buf whole = BUF_INIT(0); /* the text, with a spilled start read back */
    hew_err err = HEW_ERR_INIT;
    if (text_range(t, 0, api_turn_text_len(t), &whole, &err) != HEW_OK && st == HEW_OK)
        st = err.code;
    json_obj_put(o, "text", json_string_lossy(whole.data ? whole.data : "", whole.len), &st);
    buf_release(&whole);
    json_obj_put(o, "reasoning",
                 json_string_lossy(t->reasoning.data ? t->reasoning.data : "", t->reasoning.len),
                 &st);
    json_t *calls = json_array();
    for (size_t i = 0; i < t->ncalls && calls; i++) {
        const api_turn_call *k = &t->calls[i];
        json_t *c = json_object();
        hew_code cst = c ? HEW_OK : HEW_E_NOMEM;
        /* The id as the wire gave it: null when hew had to make one up (Gemini). */
        json_obj_put(c, "id", k->id_synthesized || !k->id[0] ? json_null() : str_or_null(k->id),
                     &cst);
        json_obj_put(c, "name", str_or_null(k->name), &cst);
        json_obj_put(c, "arguments",
                     json_string_lossy(k->args.data ? k->args.data : "", k->args.len), &cst);
        if (cst != HEW_OK)
            st = cst;
        json_arr_push(calls, c, &st);
    }
    json_obj_put(o, "tool_calls", calls, &st);
    if (t->have_usage) {
        json_t *u = json_object();
        json_obj_put(u, "input_tokens_total", count(t->usage.input_total), &st);
        json_obj_put(u, "input_tokens_uncached", count(t->usage.input_uncached), &st);
        json_obj_put(u, "cache_read_tokens", count(t->usage.cache_read), &st);
        json_obj_put(u, "cache_write_tokens", count(t->usage.cache_write), &st);
        json_obj_put(u, "output_tokens", count(t->usage.output), &st);
        json_obj_put(u, "reasoning_tokens", count(t->usage.reasoning), &st);
        if (t->usage.cost_usd >= 0)
            json_obj_put(u, "cost_usd", json_real(t->usage.cost_usd), &st);
        json_obj_put(o, "usage", u, &st);
    } else {
        json_obj_put(o, "usage", json_null(), &st);
    }
    json_obj_put(o, "stop_reason", t->ended ? json_string(api_stop_name(t->stop)) : json_null(),
                 &st);
    json_obj_put(o, "stop_reason_raw", t->complete ? str_or_null(t->stop_raw) : json_null(), &st);
    json_obj_put(o, "stream_complete", json_boolean(t->complete && !t->failed), &st);
    json_obj_put(o, "tool_args_truncated", json_boolean(t->tool_args_truncated), &st);
    json_obj_put(o, "error", t->failed ? api_error_debug_json(&t->error) : json_null(), &st);
    if (st != HEW_OK) {
        json_decref(o);
        return NULL;
    }
    return o;
}
