/* stream — the stream thread of one request (DESIGN.md): builds the request from the
 * history view, runs api_stream on its own thread, and turns every chunk into parser
 * input and api_turn data under the task's mutex, signalling the task thread after each.
 * It never says or asks anything, and never holds mu across network I/O. */
#include <stdlib.h>
#include <string.h>

#include "api/request.h"
#include "api/stream.h"
#include "mcp/hub.h"
#include "prompt/prompt.h"
#include "task/task.h"
#include "tools/registry.h"

/* The request as the stream thread needs it (owned by the thread). */
struct stream_job {
    hew_task *task;
    api_provider provider;
    char *system;
    json_t *messages;
    api_tool *tools;
    json_t **schemas;
    size_t ntools;
};

static void job_free(struct stream_job *job)
{
    if (!job)
        return;
    free(job->system);
    json_decref(job->messages);
    for (size_t i = 0; i < job->ntools; i++)
        json_decref(job->schemas[i]);
    free(job->schemas);
    free(job->tools);
    free(job);
}

static int on_chunk(void *ud, const api_chunk *c)
{
    hew_task *t = ud;
    task_stream *s = &t->stream;
    hew_err perr = HEW_ERR_INIT;
    hew_code rc = HEW_OK;
    pthread_mutex_lock(&t->mu);
    /* What the presenter must hear about at once: a new block, a block completed, the
     * first chunk. Growth of a partial block is picked up by its timed wake (partial text
     * is shown at most every 40 ms anyway), which spares a thread wake-up per chunk. */
    size_t count_before = parser_count(s->parser);
    const block *last = count_before ? parser_block(s->parser, count_before - 1) : NULL;
    bool last_partial_before = last && last->partial;
    bool first_before = s->first_chunk;
    api_turn_add(&s->turn, c);
    switch (c->kind) {
    case API_CHUNK_TEXT:
        rc = parser_text(s->parser, c->text, c->len, &perr);
        break;
    case API_CHUNK_REASONING:
        if (c->len)
            rc = parser_reasoning(s->parser, c->text, c->len, &perr);
        break;
    case API_CHUNK_TOOL_DELTA: {
        parser_tool_delta d = {
            .id = c->tool.id,
            .index = c->tool.index,
            .has_index = true,
            .name = c->tool.name,
            .args = c->tool.args,
            .args_len = c->tool.args_len,
            .done = c->tool.done, /* complete before the answer ends: it may run now */
        };
        rc = parser_tool(s->parser, &d, &perr);
        break;
    }
    default:
        break;
    }
    if (c->kind != API_CHUNK_ERROR && c->kind != API_CHUNK_USAGE)
        s->first_chunk = true;
    if (rc != HEW_OK && s->parse_err.code == HEW_OK)
        s->parse_err = perr;
    s->version++;
    size_t count_after = parser_count(s->parser);
    bool structural = count_after != count_before || s->first_chunk != first_before ||
                      (last && last->partial != last_partial_before) ||
                      c->kind == API_CHUNK_END || c->kind == API_CHUNK_ERROR || rc != HEW_OK;
    if (structural) {
        s->shape++;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return rc != HEW_OK;
}

static void *stream_main(void *arg)
{
    struct stream_job *job = arg;
    hew_task *t = job->task;
    api_request r = api_request_defaults();
    r.system = job->system;
    r.messages = job->messages;
    r.tools = job->tools;
    r.ntools = job->ntools;
    r.parallel_tool_calls = t->settings->parallel_tool_calls;
    r.thinking_budget = t->session->thinking_budget;
    r.reasoning_effort = t->session->reasoning_effort;
    r.model = &t->session->model; /* the table's entry, or as the config describes it */
    api_error e;
    api_error_init(&e);
    hew_code rc = api_stream(&job->provider, &r, on_chunk, t, t->stream.abort, &e);

    pthread_mutex_lock(&t->mu);
    hew_err perr = HEW_ERR_INIT;
    /* A cut answer's native call that its wire did not close stays partial: never run,
     * and a later tool after a rejection gets the "cut off" result, whatever the timing. */
    if (rc == HEW_OK)
        parser_finish(t->stream.parser, &perr);
    else
        parser_finish_cut(t->stream.parser, &perr);
    if (t->stream.parse_err.code != HEW_OK) {
        /* The parser refused the answer (too large, out of memory): api_stream saw that as
         * the consumer stopping; report the real reason. Retrying would hit it again. */
        rc = t->stream.parse_err.code;
        api_error_init(&e);
        if (rc == HEW_E_TOOBIG) {
            api_error_too_large(&e, t->stream.parse_err.msg);
        } else {
            e.category = API_ERR_SERVER;
            snprintf(e.message, sizeof e.message, "the answer could not be taken in: %s",
                     t->stream.parse_err.msg);
        }
        e.after_first_chunk = t->stream.first_chunk;
    }
    if (rc == HEW_OK)
        parser_seal(t->stream.parser); /* a complete answer: every block is final */
    t->stream.rc = rc;
    t->stream.error = e;
    t->stream.done = true;
    t->stream.version++;
    t->stream.shape++;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    job_free(job);
    return NULL;
}

void task_stream_reset(hew_task *t)
{
    task_stream *s = &t->stream;
    parser_free(s->parser);
    s->parser = NULL;
    api_turn_release(&s->turn);
    api_turn_init(&s->turn);
    api_turn_spill_to(&s->turn, s->spill_dir);
    s->first_chunk = false;
    s->done = false;
    s->rc = HEW_OK;
    api_error_init(&s->error);
    hew_err_clear(&s->parse_err);
    s->version = 0;
    s->shape = 0;
    if (s->abort)
        abort_reset(s->abort);
    task_present_reset(t);
}

void task_stream_drop_answer(hew_task *t)
{
    task_stream *s = &t->stream;
    pthread_mutex_lock(&t->mu);
    parser_free(s->parser);
    s->parser = NULL;
    api_turn_release(&s->turn);
    api_turn_init(&s->turn);
    api_turn_spill_to(&s->turn, s->spill_dir);
    pthread_mutex_unlock(&t->mu);
}

hew_code task_stream_start(hew_task *t, hew_err *err)
{
    task_stream_join(t);
    task_stream_reset(t);
    parser_opts po = parser_defaults();
    po.xml_tools = !t->session->native_tools; /* native calls come as deltas, not XML */
    t->stream.parser = parser_new(&po, err);
    if (!t->stream.parser)
        return err ? err->code : HEW_E_NOMEM;

    struct stream_job *job = calloc(1, sizeof *job);
    if (!job)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory starting a request");
    job->task = t;
    job->provider = t->session->provider;

    prompt_ctx pc;
    task_prompt_ctx(t, &pc);
    job->system = task_prompt_system(t, &pc);
    job->messages = task_ctx_view(t);
    if (pc.native_tools) {
        const tool_def *offered[64];
        size_t ntools = prompt_tools_offered(&pc, offered, 64);
        if (ntools > 64)
            ntools = 64;
        const mcp_snapshot *snap = task_mcp_snapshot(t);
        size_t nmcp = snap ? snap->nnative : 0;
        job->tools = calloc(ntools + nmcp + 1, sizeof *job->tools);
        job->schemas = calloc(ntools + nmcp + 1, sizeof *job->schemas);
        if (job->tools && job->schemas) {
            for (size_t i = 0; i < ntools; i++) {
                job->schemas[i] = prompt_tool_schema(offered[i]);
                job->tools[i] = (api_tool){ offered[i]->name, offered[i]->description,
                                            job->schemas[i] };
            }
            /* Each MCP tool is a function of its own (the snapshot outlives the request:
             * it is replaced only when the next one starts). */
            for (size_t i = 0; i < nmcp; i++) {
                const mcp_native_tool *nt = &snap->native[i];
                job->schemas[ntools + i] = mcp_native_schema(nt->input_schema);
                job->tools[ntools + i] = (api_tool){ nt->native_name,
                                                     nt->description ? nt->description : "",
                                                     job->schemas[ntools + i] };
            }
            job->ntools = ntools + nmcp;
        }
    }
    if (!job->system || !job->messages || (pc.native_tools && !job->tools)) {
        job_free(job);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory building a request");
    }
    if (pthread_create(&t->stream.thread, NULL, stream_main, job) != 0) {
        job_free(job);
        return hew_err_set(err, HEW_E_INTERNAL, "cannot start the stream thread");
    }
    t->stream.running = true;
    return HEW_OK;
}

void task_stream_join(hew_task *t)
{
    if (!t->stream.running)
        return;
    pthread_join(t->stream.thread, NULL);
    t->stream.running = false;
}
