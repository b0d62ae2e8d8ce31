/* prop_loop — the seeded property test of the agent loop (issue #16). A seed becomes a
 * random sequence of what a user and a model do to a task: start it, stream answers
 * (text, reasoning, tool calls of real tools on a temporary workspace, in native or XML
 * form, on each of the four wire protocols), approve, deny, answer, abort at an ask or
 * after a random event, resume the stored task (with a new message, on another model, in
 * another mode, with native tools switched), switch mode at an ask, accept a new_task
 * hand-over, condense (the tool, /smol); and what a provider does to it: cut a stream at
 * a random byte, fail with HTTP 500, refuse with a context-window 400, report usage near
 * the window, repeat its ids. The sequence runs through the public
 * API (include/hew.h) against the fake provider, which runs in this process (one server
 * per phase: a process per phase would cost more than the whole sequence).
 *
 * Properties, for every sequence:
 *   1. every request hew sends keeps the providers' tool-call contract
 *      (tests/support/reqcheck.h, on each protocol as sent, and each Anthropic request's
 *      history rebuilt as a Responses request too) and passes the strict fake provider's
 *      checks; no request is refused with a 400 that was not planned;
 *   2. every stored task is resumable: resumed with a message against a model that
 *      finishes, it ends completed, with valid requests;
 *   3. the status in the store is the one the task ended with, and a completed task
 *      stays completed when going on with it fails, is stopped or is declined;
 *   4. no crash, leak or undefined behaviour (the test runs under ASan + UBSan);
 *   5. a mode the user chose at an ask is the mode the next request names;
 *   6. the task's stored totals (tokens, cost) never shrink.
 *
 * Seeds 1..500 by default (deterministic CI). HEW_PROP_SEED=N runs seed N alone and
 * prints its script, events and requests; HEW_PROP_COUNT=M runs M seeds; HEW_PROP_BASE=B
 * starts at B ("random": from the clock, printed) for local fuzzing. A failing seed is
 * printed with the violation and the command that reruns it; HEW_PROP_SHOW_KNOWN=1 prints
 * every violation of a known bug too; HEW_PROP_NO_KNOWN=1 ignores the list (to see a fix
 * hold without editing it); HEW_PROP_JOBS=N runs N sequences at a time (2).
 *
 * Bugs found and not fixed yet are listed in known_bugs[] (printed when a sequence only
 * breaks them, with the seeds); a violation no entry names fails the test. The list is
 * meant to be emptied as the fixes land. This file must never fix or work around the
 * loop: it only drives it and judges what it sent. */
#include <fnmatch.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/provider.h"
#include "api/request.h"
#include "base/buf.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "reqcheck.h"
#include "tmpdir.h"

/* the fake provider, in process (fake-provider/ sources are compiled into this test) */
#include "recorder.h"
#include "scenario.h"
#include "server.h"

/* ---- known bugs ----------------------------------------------------------------------------
 * A violation is (rule, where): rule as reqcheck names it (or "store.*", "resume.*"),
 * where: "start" (a request of a started task), "resume-first" (the first request after a
 * resume), "resume" (a later one), "final-first" / "final" (the resumability check),
 * "store" (after a phase). Patterns are fnmatch globs. */
typedef struct known_bug {
    const char *name;
    const char *rule;
    const char *where;
    const char *description;
} known_bug;

static const known_bug known_bugs[] = {
    /* empty: KB1-KB5 are fixed (resume, completed status, stable resumed id, the mode at
     * a retry, feedback at the mistake limit) */
    { NULL, NULL, NULL, NULL },
};

/* ---- randomness ----------------------------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned rng_below(rng *r, unsigned n)
{
    return n ? (unsigned)(rng_next(r) % n) : 0;
}

static bool rng_pct(rng *r, unsigned pct)
{
    return rng_below(r, 100) < pct;
}

/* ---- providers and tools ------------------------------------------------------------------ */

typedef struct proto_def {
    const char *fake;     /* the fake provider's protocol */
    const char *provider; /* hew's provider */
    const char *protocol; /* hew_options.protocol (NULL: the provider's own) */
    reqcheck_proto check;
    const char *models[3];
    const char *id_prefix;
    const char *err500;   /* the provider's 500 body */
    const char *too_long; /* its context-window 400 body */
} proto_def;

static const proto_def protos[] = {
    { "anthropic", "anthropic", NULL, REQCHECK_ANTHROPIC,
      { "claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5" }, "toolu_",
      "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server "
      "error\"}}",
      "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt "
      "is too long: 210000 tokens > 200000 maximum\"}}" },
    { "openai-chat", "openai", NULL, REQCHECK_OPENAI_CHAT, { "gpt-4.1", "gpt-4o", "o4-mini" },
      "call_",
      "{\"error\":{\"message\":\"The server had an error while processing your request.\","
      "\"type\":\"server_error\",\"param\":null,\"code\":null}}",
      "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, "
      "your messages resulted in 130000 tokens. Please reduce the length of the messages.\","
      "\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":"
      "\"context_length_exceeded\"}}" },
    { "gemini", "gemini", NULL, REQCHECK_GEMINI,
      { "gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.0-flash" }, "",
      "{\"error\":{\"code\":500,\"message\":\"Internal error encountered.\",\"status\":"
      "\"INTERNAL\"}}",
      "{\"error\":{\"code\":400,\"message\":\"The input token count (1200000) exceeds the "
      "maximum number of tokens allowed (1048576).\",\"status\":\"INVALID_ARGUMENT\"}}" },
    { "openai-responses", "openai", "openai-responses", REQCHECK_OPENAI_RESPONSES,
      { "gpt-5", "gpt-4.1", "o4-mini" }, "call_",
      "{\"error\":{\"message\":\"The server had an error while processing your request.\","
      "\"type\":\"server_error\",\"param\":null,\"code\":null}}",
      "{\"error\":{\"message\":\"Your input exceeds the context window of this model. Please "
      "adjust your input and try again.\",\"type\":\"invalid_request_error\",\"param\":"
      "\"input\",\"code\":\"context_length_exceeded\"}}" },
};
#define NPROTOS (sizeof protos / sizeof protos[0])

/* The real tools a model calls, with arguments that work on the workspace (%d: a number
 * that makes a write's file name unique). requires_approval is a boolean in native
 * calls, as models send it. */
typedef struct tool_spec {
    const char *name;
    const char *keys[2];
    const char *values[2];
} tool_spec;

static const tool_spec tool_specs[] = {
    { "read_file", { "path" }, { "a.txt" } },
    { "list_files", { "path" }, { "." } },
    { "write_to_file", { "path", "content" }, { "out%d.txt", "hello %d\n" } },
    { "execute_command", { "command", "requires_approval" }, { "echo hi", "false" } },
    { "execute_command", { "command", "requires_approval" }, { "true", "false" } },
    { "ask_followup_question", { "question" }, { "Which color?" } },
    { "attempt_completion", { "result" }, { "Done with it." } },
    { "plan_mode_respond", { "response" }, { "Plan: read a.txt, then write out.txt." } },
    { "new_task", { "context" }, { "Carry on with part two: write the second file." } },
    { "condense", { "context" }, { "Summary: the files were read and written." } },
};
#define TOOL_COMPLETION 6

/* ---- a sequence's settings and log ------------------------------------------------------- */

typedef struct violation {
    char rule[64];
    char where[24];
    char why[768];
    int phase;
} violation;

#define MAX_VIOLATIONS 32

typedef struct seq {
    unsigned long long seed;
    rng r;
    const proto_def *proto;
    bool native;          /* the task's tool form as it started */
    bool reused_ids;      /* the provider's ids repeat (each phase counts from 1 again) */
    char dir[200];        /* the sequence's scratch folder */
    char ws[256];         /* its workspace */
    const char *data_dir; /* the run's store */
    int verbose;
    int nreq;             /* requests seen */
    int nexhausted;       /* ... past the end of a phase's scenario */
    int nphases;
    violation v[MAX_VIOLATIONS];
    int nv;
    int phase;
    int serial;           /* makes tool ids and file names unique in the sequence */
    struct {              /* each task's row as the store gave it after its last phase */
        char id[64];
        json_t *row;
    } rows[8];
    int nrows;
} seq;

static void note(seq *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(seq *s, const char *fmt, ...)
{
    if (!s->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("prop: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void violate(seq *s, const char *rule, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void violate(seq *s, const char *rule, const char *where, const char *fmt, ...)
{
    note(s, "VIOLATION %s at %s (phase %d)", rule, where, s->phase);
    if (s->nv >= MAX_VIOLATIONS)
        return;
    violation *v = &s->v[s->nv++];
    snprintf(v->rule, sizeof v->rule, "%s", rule);
    snprintf(v->where, sizeof v->where, "%s", where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
    v->phase = s->phase;
}

/* ---- the fake provider, in process ------------------------------------------------------- */

typedef struct ipfake {
    scenario sc;
    recorder *rec;
    server *srv;
    char url[64];
    size_t nresp;      /* responses in the scenario */
    fakeprov rec_view; /* only record_path: for fakeprov_requests */
} ipfake;

/* Load scenario (a JSON object, borrowed) from file; 0 or -1 with a message. */
static int load_scenario(scenario *sc, const char *file, json_t *scen)
{
    if (json_dump_file(scen, file, JSON_COMPACT) != 0) {
        fprintf(stderr, "prop: cannot write %s\n", file);
        return -1;
    }
    hew_err err = HEW_ERR_INIT;
    if (scenario_load(sc, file, &err) != HEW_OK) {
        fprintf(stderr, "prop: scenario %s: %s\n", file, err.msg);
        return -1;
    }
    return 0;
}

/* Start a server for scen (its "responses"; each may carry "prop_cut": a fraction of the
 * body in [0, 1] where the stream is cut, turned into close_after_bytes once the body's
 * length is known). */
static int ipfake_start(ipfake *f, seq *s, const char *tag, json_t *scen)
{
    memset(f, 0, sizeof *f);
    char file[PATH_MAX + 64];
    snprintf(file, sizeof file, "%s/%s.json", s->dir, tag);
    json_t *resps = json_object_get(scen, "responses");
    bool cuts = false;
    size_t i;
    json_t *r;
    json_array_foreach(resps, i, r)
        if (json_object_get(r, "prop_cut"))
            cuts = true;
    if (cuts) {
        /* first pass: the bodies' lengths */
        json_t *plain = json_deep_copy(scen);
        json_array_foreach(json_object_get(plain, "responses"), i, r)
            json_object_del(r, "prop_cut");
        int rc = load_scenario(&f->sc, file, plain);
        json_decref(plain);
        if (rc)
            return -1;
        json_array_foreach(resps, i, r) {
            json_t *cut = json_object_get(r, "prop_cut");
            if (!cut)
                continue;
            size_t len = f->sc.plans[i].body.len;
            json_object_set_new(r, "close_after_bytes",
                                json_integer((json_int_t)(json_real_value(cut) * (double)len)));
            json_object_del(r, "prop_cut");
        }
        scenario_release(&f->sc);
    }
    if (load_scenario(&f->sc, file, scen))
        return -1;
    f->nresp = f->sc.n;
    snprintf(f->rec_view.record_path, sizeof f->rec_view.record_path, "%s/%s.jsonl", s->dir, tag);
    hew_err err = HEW_ERR_INIT;
    f->rec = recorder_open(f->rec_view.record_path, &err);
    if (!f->rec) {
        fprintf(stderr, "prop: %s\n", err.msg);
        scenario_release(&f->sc);
        return -1;
    }
    server_opts opts = { .sc = &f->sc, .port = 0, .rec = f->rec, .quiet = !s->verbose };
    f->srv = server_start(&opts, &err);
    if (!f->srv) {
        fprintf(stderr, "prop: %s\n", err.msg);
        recorder_free(f->rec);
        scenario_release(&f->sc);
        return -1;
    }
    snprintf(f->url, sizeof f->url, "http://127.0.0.1:%u", server_port(f->srv));
    return 0;
}

static void ipfake_stop(ipfake *f)
{
    server_stop(f->srv);
    recorder_free(f->rec);
    scenario_release(&f->sc);
}

/* ---- model answers ------------------------------------------------------------------------- */

static void fmt_value(char *out, size_t n, const char *v, int serial)
{
    if (strstr(v, "%d"))
        snprintf(out, n, v, serial); /* the tables' own formats, with one %d */
    else
        snprintf(out, n, "%s", v);
}


/* The tool a model calls next (weights: completion and the cheap tools most often). */
static const tool_spec *pick_tool(rng *r)
{
    static const unsigned weights[] = { 12, 8, 12, 8, 6, 10, 18, 8, 6, 12 };
    unsigned total = 0;
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++)
        total += weights[i];
    unsigned x = rng_below(r, total);
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++) {
        if (x < weights[i])
            return &tool_specs[i];
        x -= weights[i];
    }
    return &tool_specs[TOOL_COMPLETION];
}

/* Add a call of spec to an answer: an XML block appended to text, or a native call. */
static void add_call(seq *s, const tool_spec *spec, bool native, buf *text, json_t *calls)
{
    int serial = ++s->serial;
    if (native) {
        json_t *args = json_object();
        for (int k = 0; k < 2 && spec->keys[k]; k++) {
            char v[256];
            fmt_value(v, sizeof v, spec->values[k], serial);
            json_object_set_new(args, spec->keys[k],
                                strcmp(spec->keys[k], "requires_approval") == 0
                                    ? json_boolean(strcmp(v, "true") == 0)
                                    : json_string(v));
        }
        char id[96];
        snprintf(id, sizeof id, "%ss%llu_%d", s->proto->id_prefix, s->seed, serial);
        json_t *call = json_pack("{s:s, s:o}", "name", spec->name, "arguments", args);
        if (!s->reused_ids)
            json_object_set_new(call, "id", json_string(id));
        json_array_append_new(calls, call);
        return;
    }
    buf_printf(text, "<%s>\n", spec->name);
    for (int k = 0; k < 2 && spec->keys[k]; k++) {
        char v[256];
        fmt_value(v, sizeof v, spec->values[k], serial);
        buf_printf(text, "<%s>%s</%s>\n", spec->keys[k], v, spec->keys[k]);
    }
    buf_printf(text, "</%s>\n", spec->name);
}

/* One model answer of the sequence's protocol: text and/or tool calls; ncalls < 0 means
 * random. */
static json_t *answer_new(seq *s, bool native, const tool_spec *only)
{
    json_t *resp = json_pack("{s:s}", "protocol", s->proto->fake);
    /* Real providers' response and call ids are unique (hew names Gemini's calls after the
     * response); some compatible servers count them from 0 on every response: those
     * sequences keep the fake's ids, which start again with every phase's server. */
    char rid[64];
    snprintf(rid, sizeof rid, "resp_s%llu_%d", s->seed, ++s->serial);
    if (!s->reused_ids)
        json_object_set_new(resp, "id", json_string(rid));
    buf text = BUF_INIT(0);
    json_t *calls = json_array();
    unsigned kind = rng_below(&s->r, 100);
    int ncalls = only ? 1 : kind < 8 ? 0 : kind < 86 ? 1 : 2 + (int)rng_below(&s->r, 2);
    if (ncalls == 0)
        buf_puts(&text, "I think the task is nearly done.");
    else if (rng_pct(&s->r, 60))
        buf_puts(&text, "Let me take the next step.\n");
    for (int k = 0; k < ncalls; k++)
        add_call(s, only ? only : pick_tool(&s->r), native, &text, calls);
    if (text.len)
        json_object_set_new(resp, "text", json_string(text.data));
    buf_release(&text);
    if (json_array_size(calls))
        json_object_set_new(resp, "tool_calls", calls);
    else
        json_decref(calls);
    if (!only && rng_pct(&s->r, 20))
        json_object_set_new(resp, "reasoning", json_string("Thinking about the next step."));
    /* usage: now and then near (or past) the model's window, so that the context manager
     * truncates or condenses before the next request */
    long input = !only && rng_pct(&s->r, 10) ? 990000 : 1000 + (long)rng_below(&s->r, 4000);
    json_object_set_new(resp, "usage", json_pack("{s:I, s:i}", "input", (json_int_t)input,
                                                 "output", 40 + (int)rng_below(&s->r, 200)));
    json_object_set_new(resp, "delta_size", json_integer(4 + rng_below(&s->r, 60)));
    return resp;
}

static json_t *plain_response(int status, const char *body)
{
    json_t *b = json_loads(body, 0, NULL);
    return json_pack("{s:i, s:o}", "status", status, "body", b ? b : json_string(body));
}

/* A phase's responses: 1..5 answers with faults in front of or on them, then two
 * completions so that a task that does what it is told ends (a scenario that runs out
 * answers 500, which hew retries: correct, but slow). */
static json_t *phase_scenario(seq *s, bool native)
{
    json_t *resps = json_array();
    int n = 1 + (int)rng_below(&s->r, 5);
    for (int i = 0; i < n; i++) {
        if (rng_pct(&s->r, 7))
            json_array_append_new(resps, plain_response(500, s->proto->err500));
        if (rng_pct(&s->r, 7)) {
            json_array_append_new(resps, plain_response(400, s->proto->too_long));
            if (rng_pct(&s->r, 30))
                json_array_append_new(resps, plain_response(400, s->proto->too_long));
        }
        json_t *a = answer_new(s, native, NULL);
        if (rng_pct(&s->r, 10))
            json_object_set_new(a, "prop_cut",
                                json_real((double)rng_below(&s->r, 1001) / 1000.0));
        json_array_append_new(resps, a);
    }
    for (int i = 0; i < 2; i++)
        json_array_append_new(resps, answer_new(s, native, &tool_specs[TOOL_COMPLETION]));
    return json_pack("{s:o}", "responses", resps);
}

/* ---- one phase: a task started or resumed in a session, until it ends --------------------- */

typedef struct sess_cfg {
    const char *model;
    bool native;
    const char *mode;
    bool yolo;
    bool parallel;
    bool safe_cmds;
    bool auto_condense;
} sess_cfg;

typedef struct phase {
    seq *s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rng r;              /* the user's choices */
    long nevents;       /* whole (not partial) events so far */
    long abort_after;   /* abort once this many events came (0: never) */
    bool done;          /* hew_task_wait returned */
    bool want_abort;    /* the user stops the task at an ask */
    bool final;         /* the resumability check: the user lets it finish */
    bool declined;      /* the user did not resume */
    bool resumed;       /* the user answered the resume ask: go on */
    bool live;          /* past the replay of a resumed task's conversation */
    long long start_ms; /* when the phase began: replayed messages are older */
    bool refused;       /* a 400 that was not planned */
    const char *record; /* the fake's record file: how many requests it has seen */
    struct {            /* modes the user chose at an ask: request `req` must say so */
        long req;
        const char *mode;
        bool at_failure; /* chosen at api_req_failed: the retry is that request */
    } modes[8];
    int nmodes;
    long after_feedback[8]; /* requests sent right after feedback at mistake_limit_reached */
    int nafter_feedback;
    char refusal[512];
    hew_task *task;
    hew_task_status status;
} phase;

static void respond(phase *p, hew_task *t, hew_answer a, const char *text)
{
    if (hew_task_respond(t, a, text) != 0)
        note(p->s, "respond: no ask pending");
}

/* Requests the fake has recorded so far (the recorder writes each before answering it):
 * the next request hew sends will be this one. */
static long requests_so_far(const char *record)
{
    FILE *f = fopen(record, "r");
    if (!f)
        return 0;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        if (c == '\n')
            n++;
    fclose(f);
    return n;
}

/* /plan or /act at an ask: the next request must tell the model that mode. */
static void set_mode(phase *p, hew_task *t, const char *mode, const char *ask)
{
    hew_task_set_mode(t, mode);
    long req = requests_so_far(p->record);
    int i = 0;
    while (i < p->nmodes && p->modes[i].req != req)
        i++; /* the last choice before a request counts */
    if (i == (int)(sizeof p->modes / sizeof p->modes[0]))
        return;
    if (i == p->nmodes)
        p->nmodes++;
    p->modes[i].req = req;
    p->modes[i].mode = mode;
    p->modes[i].at_failure = strcmp(ask, "api_req_failed") == 0;
}

/* The user, at an ask (on the task's thread). */
static void policy(phase *p, hew_task *t, const hew_event *ev)
{
    const char *type = ev->type ? ev->type : "";
    bool resume_ask = strcmp(type, "resume_task") == 0 || strcmp(type, "resume_completed_task") == 0;
    /* A resumed task replays its conversation first: only the resume ask made now, and
     * what follows it, is live. */
    if (!p->live) {
        if (!resume_ask || ev->ts < p->start_ms)
            return;
        p->live = true;
    }
    if (strcmp(type, "api_req_failed") == 0 && ev->data_json) {
        json_t *d = json_loads(ev->data_json, 0, NULL);
        const char *cat = json_string_value(json_object_get(d, "category"));
        if (json_integer_value(json_object_get(d, "status")) == 400 &&
            !(cat && strcmp(cat, "context_window_exceeded") == 0)) {
            p->refused = true;
            snprintf(p->refusal, sizeof p->refusal, "%s",
                     json_string_value(json_object_get(d, "message"))
                         ? json_string_value(json_object_get(d, "message")) : "?");
        }
        json_decref(d);
    }
    if (p->final) {
        if (resume_ask) {
            set_mode(p, t, "act", type);
            p->resumed = hew_task_respond(t, HEW_ANSWER_MESSAGE, "Finish the task now.") == 0;
        } else if (strcmp(type, "api_req_failed") == 0) {
            respond(p, t, HEW_ANSWER_NO, NULL);
        } else if (strcmp(type, "followup") == 0) {
            respond(p, t, HEW_ANSWER_MESSAGE, "blue");
        } else {
            respond(p, t, HEW_ANSWER_YES, NULL);
        }
        return;
    }
    unsigned u = rng_below(&p->r, 100);
    bool output = strcmp(type, "command_output") == 0; /* a running command's output */
    if (u < 6 || (output && u < 20)) { /* Ctrl-C at the ask (or while a command runs) */
        note(p->s, "user: abort at %s", type);
        pthread_mutex_lock(&p->mu);
        p->want_abort = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        return;
    }
    if (u < 14) { /* /plan or /act at the ask */
        const char *mode = rng_pct(&p->r, 50) ? "act" : "plan";
        note(p->s, "user: mode %s at %s", mode, type);
        set_mode(p, t, mode, type);
    }
    unsigned c = rng_below(&p->r, 100);
    if (output) {
        return; /* the command goes on */
    } else if (resume_ask) {
        if (c < 8) {
            p->declined = true;
            respond(p, t, HEW_ANSWER_NO, NULL);
        } else {
            p->resumed = hew_task_respond(t, c < 55 ? HEW_ANSWER_MESSAGE : HEW_ANSWER_YES,
                                          c < 55 ? "Go on, and also write notes.txt." : NULL) == 0;
        }
    } else if (strcmp(type, "completion_result") == 0) {
        if (c < 75)
            respond(p, t, HEW_ANSWER_YES, NULL);
        else /* feedback, or the /smol slash command (the model is asked to condense) */
            respond(p, t, HEW_ANSWER_MESSAGE, c < 88 ? "Not yet: check b.txt too." : "/smol");
    } else if (strcmp(type, "api_req_failed") == 0) {
        respond(p, t, c < 60 ? HEW_ANSWER_YES : HEW_ANSWER_NO, NULL);
    } else if (strcmp(type, "followup") == 0) {
        if (c < 80)
            respond(p, t, HEW_ANSWER_MESSAGE, "blue");
        else
            respond(p, t, HEW_ANSWER_NO, NULL);
    } else if (strcmp(type, "plan_mode_respond") == 0) {
        if (c < 40) {
            set_mode(p, t, "act", type);
            respond(p, t, HEW_ANSWER_YES, NULL);
        } else if (c < 70) {
            respond(p, t, HEW_ANSWER_MESSAGE, "Sounds good, go ahead.");
        } else {
            respond(p, t, HEW_ANSWER_YES, NULL);
        }
    } else if (strcmp(type, "mistake_limit_reached") == 0) {
        if (c < 70 && p->nafter_feedback < 8)
            p->after_feedback[p->nafter_feedback++] = requests_so_far(p->record);
        respond(p, t, c < 70 ? HEW_ANSWER_MESSAGE : HEW_ANSWER_NO,
                c < 70 ? "Use a tool, please." : NULL);
    } else {
        if (c < 65)
            respond(p, t, HEW_ANSWER_YES, NULL);
        else if (c < 85)
            respond(p, t, HEW_ANSWER_NO, NULL);
        else
            respond(p, t, HEW_ANSWER_MESSAGE, "Rather not; do it another way.");
    }
}

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    phase *p = ud;
    if (p->s->verbose && !ev->partial)
        fprintf(stderr, "  event %s\n", hew_event_json(ev));
    pthread_mutex_lock(&p->mu);
    if (!ev->partial) /* how often a growing message is re-sent depends on timing */
        p->nevents++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (ev->is_ask && !ev->partial)
        policy(p, t, ev);
}

static void *waiter_main(void *arg)
{
    phase *p = arg;
    hew_task_status st = hew_task_wait(p->task);
    pthread_mutex_lock(&p->mu);
    p->status = st;
    p->done = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void session_options(seq *s, const sess_cfg *c, const char *url, phase *p, hew_options *o)
{
    hew_options_init(o);
    o->provider = s->proto->provider;
    o->protocol = s->proto->protocol;
    o->model = c->model;
    o->api_key = "test-key-prop";
    o->base_url = url;
    o->cwd = s->ws;
    o->mode = c->mode;
    o->yolo = c->yolo;
    o->native_tools = c->native;
    o->parallel_tool_calls = c->parallel;
    o->auto_approve_safe_commands = c->safe_cmds;
    o->auto_condense = c->auto_condense;
    o->retry_base_delay_ms = 0;
    o->checkpoints = 0;
    o->mcp = 0;
    o->data_dir = s->data_dir;
    o->rules_global = o->rules_clinerules = o->rules_cursorrules = o->rules_windsurfrules = 0;
    o->rules_agents = o->rules_clineignore = 0;
    o->on_event = on_event;
    o->event_ud = p;
}

/* The row last read for id (a new reference), or NULL: nothing else writes the store
 * between two phases, so it is what the store holds. */
static json_t *row_cached(seq *s, const char *id)
{
    for (int i = 0; i < s->nrows; i++)
        if (strcmp(s->rows[i].id, id) == 0)
            return json_incref(s->rows[i].row);
    return NULL;
}

static void row_keep(seq *s, const char *id, json_t *row)
{
    int i = 0;
    while (i < s->nrows && strcmp(s->rows[i].id, id) != 0)
        i++;
    if (i == (int)(sizeof s->rows / sizeof s->rows[0]))
        return;
    if (i == s->nrows)
        s->nrows++;
    else
        json_decref(s->rows[i].row);
    snprintf(s->rows[i].id, sizeof s->rows[i].id, "%s", id);
    s->rows[i].row = json_incref(row);
}

/* The task as the store has it (a new object), or NULL. */
static json_t *stored_task(seq *s, const char *id)
{
    hew_options o;
    hew_options_init(&o);
    o.data_dir = s->data_dir;
    char err[256];
    char *js = NULL;
    if (hew_history_task_json(&o, id, 0, &js, err, sizeof err) != HEW_OK)
        fprintf(stderr, "prop: seed %llu: store: %s\n", s->seed, err);
    json_t *j = js ? json_loads(js, 0, NULL) : NULL;
    hew_free(js);
    return j;
}

static const char *status_name(hew_task_status st)
{
    switch (st) {
    case HEW_TASK_RUNNING:
        return "running";
    case HEW_TASK_COMPLETED:
        return "completed";
    case HEW_TASK_FAILED:
        return "failed";
    case HEW_TASK_ABORTED:
        return "aborted";
    }
    return "?";
}

/* ---- judging the requests ------------------------------------------------------------------ */

/* A one-line picture of a request's conversation (roles, blocks, call ids), for reports. */
static void describe_body(reqcheck_proto proto, const json_t *body, buf *out)
{
    const char *key = proto == REQCHECK_GEMINI ? "contents" :
                      proto == REQCHECK_OPENAI_RESPONSES ? "input" : "messages";
    size_t i, k;
    const json_t *m, *b;
    json_array_foreach(json_object_get(body, key), i, m) {
        const char *role = json_string_value(json_object_get(m, "role"));
        const char *type = json_string_value(json_object_get(m, "type"));
        buf_printf(out, "%s%s", i ? " " : "", role ? role : type ? type : "?");
        const json_t *id = json_object_get(m, "tool_call_id");
        if (!id)
            id = json_object_get(m, "call_id");
        if (json_is_string(id))
            buf_printf(out, "(%s)", json_string_value(id));
        const json_t *parts = json_object_get(m, proto == REQCHECK_GEMINI ? "parts" : "content");
        const json_t *calls = json_object_get(m, "tool_calls");
        if (!json_is_array(parts) && !json_is_array(calls))
            continue;
        buf_putc(out, '[');
        json_array_foreach(parts, k, b) {
            const char *bt = json_string_value(json_object_get(b, "type"));
            if (proto == REQCHECK_GEMINI)
                bt = json_object_get(b, "functionCall")     ? "functionCall"
                     : json_object_get(b, "functionResponse") ? "functionResponse"
                     : json_object_get(b, "text")             ? "text"
                                                              : "part";
            buf_printf(out, "%s%s", k ? "," : "", bt ? bt : "?");
            const char *bid = json_string_value(json_object_get(b, "id"));
            if (!bid)
                bid = json_string_value(json_object_get(b, "tool_use_id"));
            if (bid)
                buf_printf(out, "(%s)", bid);
        }
        json_array_foreach(calls, k, b)
            buf_printf(out, "%stool_call(%s)", k || json_array_size(parts) ? "," : "",
                       json_string_value(json_object_get(b, "id")));
        buf_putc(out, ']');
    }
}

/* The Responses request hew builds for the history an Anthropic request carried (hew's
 * history is in the Anthropic shape; cache_control is the only thing the builder adds). */
static json_t *responses_shadow(const json_t *anthropic_body, char *err, size_t errlen)
{
    json_t *msgs = json_deep_copy(json_object_get(anthropic_body, "messages"));
    size_t i, k;
    json_t *m, *b;
    json_array_foreach(msgs, i, m)
        json_array_foreach(json_object_get(m, "content"), k, b)
            json_object_del(b, "cache_control");
    api_provider p;
    hew_err e = HEW_ERR_INIT;
    api_provider_opts po = { "http://127.0.0.1:9", "test-key-prop", "gpt-5", "openai-responses" };
    json_t *out = NULL;
    if (api_provider_init(&p, "openai", &po, &e) == HEW_OK) {
        api_request r = api_request_defaults();
        r.messages = msgs;
        api_http h;
        if (api_build(&p, &r, &h, &e) == HEW_OK) {
            out = json_loads(h.body, 0, NULL);
            api_http_release(&h);
        }
    }
    if (!out)
        snprintf(err, errlen, "%s", e.msg);
    json_decref(msgs);
    return out;
}

static bool seen_rule(seq *s, const char *rule)
{
    for (int i = 0; i < s->nv; i++)
        if (s->v[i].phase == s->phase && strcmp(s->v[i].rule, rule) == 0)
            return true;
    return false;
}

/* Judge every request the phase's fake received (p: what the user did in the phase). */
static void check_requests(seq *s, ipfake *f, const phase *p, const char *first_where,
                           const char *where)
{
    json_t *reqs = fakeprov_requests(&f->rec_view);
    if (!reqs) {
        violate(s, "harness.record", where, "the fake's record cannot be read");
        return;
    }
    s->nphases++;
    if (json_array_size(reqs) > f->nresp)
        s->nexhausted += (int)(json_array_size(reqs) - f->nresp);
    size_t i;
    json_t *req;
    json_array_foreach(reqs, i, req) {
        s->nreq++;
        const json_t *body = json_object_get(req, "body");
        const char *w = i == 0 ? first_where : where;
        for (int k = 0; k < p->nafter_feedback; k++)
            if ((size_t)p->after_feedback[k] == i)
                w = "mistake-feedback";
        char rule[64], why[512];
        buf pic = BUF_INIT(0);
        describe_body(s->proto->check, body, &pic);
        note(s, "request %zu (%s): %s", i, w, pic.data ? pic.data : "");
        if (reqcheck_body(s->proto->check, body, rule, sizeof rule, why, sizeof why) != 0) {
            if (!seen_rule(s, rule))
                violate(s, rule, w, "request %zu: %s\n      conversation: %s", i, why,
                        pic.data ? pic.data : "");
        } else if (s->proto->check == REQCHECK_ANTHROPIC) {
            char err[512] = "";
            json_t *shadow = responses_shadow(body, err, sizeof err);
            buf spic = BUF_INIT(0);
            if (!shadow) {
                if (!seen_rule(s, "openai-responses.build"))
                    violate(s, "openai-responses.build", w,
                            "request %zu: hew cannot build the Responses request for this "
                            "history: %s", i, err);
            } else if (reqcheck_body(REQCHECK_OPENAI_RESPONSES, shadow, rule, sizeof rule, why,
                                     sizeof why) != 0) {
                describe_body(REQCHECK_OPENAI_RESPONSES, shadow, &spic);
                if (!seen_rule(s, rule))
                    violate(s, rule, w, "request %zu as Responses: %s\n      input: %s", i, why,
                            spic.data ? spic.data : "");
            }
            buf_release(&spic);
            json_decref(shadow);
        }
        /* the strict fake provider (fake-provider/validate*.c) marks what it refused */
        const char *refused = json_string_value(json_object_get(req, "violation"));
        if (refused && !seen_rule(s, "strict.refused"))
            violate(s, "strict.refused", w, "request %zu refused by the strict fake: %s", i,
                    refused);
        buf_release(&pic);
    }
    json_decref(reqs);
}

/* The text of a request's last user message (what carries the environment details). */
static void last_user_text(reqcheck_proto proto, const json_t *body, buf *out)
{
    const json_t *list = json_object_get(body, proto == REQCHECK_GEMINI ? "contents" : "messages");
    const json_t *m = NULL;
    for (size_t i = json_array_size(list); i-- > 0 && !m;) {
        const char *role = json_string_value(json_object_get(json_array_get(list, i), "role"));
        if (role && strcmp(role, "user") == 0)
            m = json_array_get(list, i);
    }
    const json_t *c = json_object_get(m, proto == REQCHECK_GEMINI ? "parts" : "content");
    if (json_is_string(c))
        buf_puts(out, json_string_value(c));
    size_t k;
    const json_t *b;
    json_array_foreach(c, k, b) {
        const char *text = json_string_value(json_object_get(b, "text"));
        if (text)
            buf_puts(out, text);
        buf_putc(out, '\n');
    }
}

/* Property 5: the mode the user chose at an ask is the mode the next request tells the
 * model ("# Current Mode" of the environment details; a request without them, such as a
 * summary request, says nothing). */
static void check_modes(seq *s, ipfake *f, const phase *p, const char *first_where,
                        const char *where)
{
    if (!p->nmodes)
        return;
    json_t *reqs = fakeprov_requests(&f->rec_view);
    for (int i = 0; i < p->nmodes; i++) {
        json_t *req = json_array_get(reqs, (size_t)p->modes[i].req);
        if (!req)
            continue; /* the task ended before another request */
        buf text = BUF_INIT(0);
        last_user_text(s->proto->check, json_object_get(req, "body"), &text);
        const char *told = text.data ? strstr(text.data, "# Current Mode\n") : NULL;
        const char *want = strcmp(p->modes[i].mode, "plan") == 0 ? "PLAN MODE" : "ACT MODE";
        const char *rule = p->modes[i].at_failure ? "mode.not_told_on_retry" : "mode.not_told";
        if (told && strncmp(told + 15, want, strlen(want)) != 0 && !seen_rule(s, rule))
            violate(s, rule, p->modes[i].req == 0 ? first_where : where,
                    "the user chose %s mode at an ask, but request %ld says: %.40s",
                    p->modes[i].mode, p->modes[i].req, told + 15);
        buf_release(&text);
    }
    json_decref(reqs);
}

/* ---- running a phase ------------------------------------------------------------------------ */

typedef enum phase_kind { PHASE_START, PHASE_RESUME, PHASE_FINAL } phase_kind;

typedef struct phase_out {
    hew_task_status status;
    char id[64];
    char *successor; /* new_task accepted: the next task's text (owned) */
    bool ran;
} phase_out;

/* Start (text) or resume (id) a task in a session of cfg against scen (stolen), let the
 * user act on it until it ends, then judge its requests and its stored status. */
static void run_phase(seq *s, phase_kind kind, const char *id, const char *text,
                      const sess_cfg *cfg, json_t *scen, long abort_after, phase_out *out)
{
    memset(out, 0, sizeof *out);
    char tag[32];
    snprintf(tag, sizeof tag, "phase%d", s->phase);
    note(s, "phase %d: %s %s model %s %s %s%s%s%s%s abort_after %ld", s->phase,
         kind == PHASE_START ? "start" : kind == PHASE_RESUME ? "resume" : "final-resume",
         id ? id : "", cfg->model, cfg->native ? "native" : "xml",
         cfg->mode ? cfg->mode : "stored-mode",
         cfg->yolo ? " yolo" : "", cfg->parallel ? "" : " serial-tools",
         cfg->safe_cmds ? " safe-cmds" : "", cfg->auto_condense ? " auto-condense" : "",
         abort_after);
    if (s->verbose) {
        char *js = json_dumps(scen, JSON_COMPACT);
        fprintf(stderr, "  scenario %s\n", js ? js : "?");
        free(js);
    }
    ipfake f;
    int frc = ipfake_start(&f, s, tag, scen);
    json_decref(scen);
    if (frc != 0) {
        violate(s, "harness.fake", "start", "the fake provider did not start");
        return;
    }
    json_t *before = id ? row_cached(s, id) : NULL;
    if (id && !before)
        before = stored_task(s, id);
    char prior[16] = "";
    snprintf(prior, sizeof prior, "%s",
             json_string_value(json_object_get(before, "status"))
                 ? json_string_value(json_object_get(before, "status")) : "");

    phase p;
    memset(&p, 0, sizeof p);
    p.s = s;
    p.r.s = rng_next(&s->r);
    p.final = kind == PHASE_FINAL;
    p.abort_after = abort_after;
    p.live = kind == PHASE_START;
    struct timespec began;
    clock_gettime(CLOCK_REALTIME, &began);
    p.start_ms = (long long)began.tv_sec * 1000 + began.tv_nsec / 1000000;
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    p.record = f.rec_view.record_path;
    hew_options o;
    session_options(s, cfg, f.url, &p, &o);
    char err[512];
    hew_session *sess = NULL;
    (void)hew_session_new(&o, &sess, err, sizeof err);
    hew_task *t = NULL;
    if (!sess) {
        violate(s, "harness.session", "start", "session: %s", err);
    } else {
        (void)(kind == PHASE_START ? hew_task_start(sess, text, &t, err, sizeof err)
                                   : hew_task_resume(sess, id, &t, err, sizeof err));
        if (!t)
            violate(s, kind == PHASE_START ? "harness.start" : "resume.refused",
                    kind == PHASE_START ? "start" : "final", "%s", err);
    }
    const char *first_where = kind == PHASE_START ? "start" :
                              kind == PHASE_RESUME ? "resume-first" : "final-first";
    const char *where = kind == PHASE_START ? "start" : kind == PHASE_RESUME ? "resume" : "final";
    if (t) {
        /* include/hew.h: the id is "stable across resumes" */
        char seen_id[64];
        snprintf(seen_id, sizeof seen_id, "%s", hew_task_id(t)); /* read once: it may change */
        if (id && strcmp(seen_id, id) != 0)
            violate(s, "api.task_id_unstable", "api",
                    "hew_task_id right after hew_task_resume(\"%s\") is \"%s\"", id, seen_id);
        p.task = t;
        pthread_t waiter;
        pthread_create(&waiter, NULL, waiter_main, &p);
        pthread_mutex_lock(&p.mu);
        bool hung = false;
        while (!p.done) {
            if (p.want_abort || (p.abort_after > 0 && p.nevents >= p.abort_after)) {
                note(s, "user: abort after %ld events", p.nevents);
                p.want_abort = false;
                p.abort_after = 0;
                pthread_mutex_unlock(&p.mu);
                hew_task_abort(t, "the user stopped the task");
                pthread_mutex_lock(&p.mu);
                continue;
            }
            /* a safety net only: a loop that stopped moving for a minute is stuck */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 60;
            long seen = p.nevents;
            if (pthread_cond_timedwait(&p.cv, &p.mu, &until) != 0 && p.nevents == seen &&
                !p.done && !hung) {
                hung = true;
                pthread_mutex_unlock(&p.mu);
                violate(s, "loop.stuck", where, "no event for 60 s; the task was aborted");
                hew_task_abort(t, "stuck");
                pthread_mutex_lock(&p.mu);
            }
        }
        pthread_mutex_unlock(&p.mu);
        pthread_join(waiter, NULL);
        out->ran = true;
        out->status = p.status;
        snprintf(out->id, sizeof out->id, "%s", hew_task_id(t));
        const char *succ = hew_task_successor(t);
        out->successor = succ ? strdup(succ) : NULL;
        note(s, "phase %d ended %s: %s", s->phase, status_name(p.status), hew_task_result(t));
    }
    hew_task_free(t);
    hew_session_free(sess);
    ipfake_stop(&f);

    check_requests(s, &f, &p, first_where, where);
    check_modes(s, &f, &p, first_where, where);
    if (p.refused)
        violate(s, "provider.refused", where, "a request was refused with HTTP 400: %s",
                p.refusal);
    if (out->ran) {
        /* Property 3: the store says how the task ended; a completed task stays completed
         * when resuming it fails or the user declines. */
        json_t *after = stored_task(s, out->id);
        if (after)
            row_keep(s, out->id, after);
        /* Property 6: the task's totals only grow (across Ctrl-C, failures, resumes). */
        static const char *const totals[] = { "tokens_in", "tokens_out", "cache_reads",
                                              "cache_writes", "cost" };
        for (size_t k = 0; before && after && k < sizeof totals / sizeof totals[0]; k++) {
            double was = json_number_value(json_object_get(before, totals[k]));
            double is = json_number_value(json_object_get(after, totals[k]));
            if (is + 1e-9 < was && !seen_rule(s, "store.totals_shrank"))
                violate(s, "store.totals_shrank", "store",
                        "the stored %s went from %g to %g over the phase", totals[k], was, is);
        }
        const char *now = json_string_value(json_object_get(after, "status"));
        const char *expect = status_name(out->status);
        bool was_completed = strcmp(prior, "completed") == 0;
        if (kind != PHASE_START && !p.resumed) {
            /* stopped during the replay or at the resume ask, or declined: nothing was
             * resumed, and the stored status is left as it was */
            expect = prior;
        } else if (kind != PHASE_START && was_completed &&
                   (out->status == HEW_TASK_FAILED || out->status == HEW_TASK_ABORTED)) {
            expect = "completed"; /* man hew: going on with it failed or was abandoned */
        }
        if (!now || strcmp(now, expect) != 0)
            violate(s, kind != PHASE_START && was_completed ? "store.completed_lost"
                                                             : "store.status",
                    "store", "the task ended %s%s (it was %s before); the store says %s",
                    status_name(out->status), p.declined ? " (resume declined)" : "",
                    prior[0] ? prior : "new", now ? now : "(no task)");
        json_decref(after);
    }
    json_decref(before);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
}

/* ---- a sequence ------------------------------------------------------------------------------ */

static void random_cfg(seq *s, sess_cfg *c, const sess_cfg *prev)
{
    c->model = s->proto->models[prev && !rng_pct(&s->r, 40) ? 0 : rng_below(&s->r, 3)];
    if (prev && !rng_pct(&s->r, 40))
        c->model = prev->model; /* most resumes keep the model */
    c->native = prev ? (rng_pct(&s->r, 15) ? !prev->native : prev->native) : s->native;
    /* a resume mostly keeps the task's stored mode (NULL); /plan, /act choose one */
    c->mode = prev && rng_pct(&s->r, 50) ? NULL : rng_pct(&s->r, 25) ? "plan" : "act";
    c->yolo = rng_pct(&s->r, 15);
    c->parallel = !rng_pct(&s->r, 30);
    c->safe_cmds = rng_pct(&s->r, 40);
    c->auto_condense = rng_pct(&s->r, 30);
}

#define MAX_IDS 8

static void make_workspace(seq *s)
{
    snprintf(s->ws, sizeof s->ws, "%s/ws", s->dir);
    mkdir(s->ws, 0700);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/a.txt", s->ws);
    FILE *fa = fopen(path, "w");
    if (fa) {
        fputs("alpha\nbeta\n", fa);
        fclose(fa);
    }
    snprintf(path, sizeof path, "%s/sub", s->ws);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/sub/b.txt", s->ws);
    FILE *fb = fopen(path, "w");
    if (fb) {
        fputs("gamma\n", fb);
        fclose(fb);
    }
}

static void run_sequence(seq *s, const char *run_dir)
{
    s->r.s = s->seed * 0x2545f4914f6cdd1dULL + 1;
    s->proto = &protos[rng_below(&s->r, NPROTOS)];
    s->native = rng_pct(&s->r, 50);
    s->reused_ids = rng_pct(&s->r, 20);
    snprintf(s->dir, sizeof s->dir, "%s/seq%llu", run_dir, s->seed);
    mkdir(s->dir, 0700);
    make_workspace(s);
    note(s, "seed %llu: %s, %s tools%s", s->seed, s->proto->fake, s->native ? "native" : "xml",
         s->reused_ids ? ", ids that repeat" : "");

    char ids[MAX_IDS][64];
    int nids = 0;
    sess_cfg cfg, prev;
    random_cfg(s, &cfg, NULL);
    char text[128];
    snprintf(text, sizeof text, "Read a.txt and write a summary (task of seed %llu).", s->seed);
    phase_out out;
    long abort_after = rng_pct(&s->r, 25) ? 3 + (long)rng_below(&s->r, 40) : 0;
    run_phase(s, PHASE_START, NULL, text, &cfg, phase_scenario(s, cfg.native), abort_after,
              &out);
    if (out.ran && nids < MAX_IDS)
        snprintf(ids[nids++], 64, "%s", out.id);
    char current[64];
    snprintf(current, sizeof current, "%s", out.ran ? out.id : "");
    int more = (int)rng_below(&s->r, 3);
    for (int k = 0; k < more && current[0]; k++) {
        s->phase++;
        prev = cfg;
        random_cfg(s, &cfg, &prev);
        abort_after = rng_pct(&s->r, 25) ? 3 + (long)rng_below(&s->r, 40) : 0;
        char *succ = out.successor;
        out.successor = NULL;
        json_t *scen = phase_scenario(s, cfg.native);
        if (succ && rng_pct(&s->r, 60)) {
            run_phase(s, PHASE_START, NULL, succ, &cfg, scen, abort_after, &out);
            if (out.ran && nids < MAX_IDS)
                snprintf(ids[nids++], 64, "%s", out.id);
            if (out.ran)
                snprintf(current, sizeof current, "%s", out.id);
        } else {
            run_phase(s, PHASE_RESUME, current, NULL, &cfg, scen, abort_after, &out);
        }
        free(succ);
    }
    free(out.successor);

    /* Property 2: every stored task resumes and finishes. */
    for (int i = 0; i < nids; i++) {
        s->phase++;
        prev = cfg;
        sess_cfg fin = cfg;
        random_cfg(s, &fin, &prev);
        fin.yolo = false;
        fin.mode = "act";
        json_t *resps = json_array();
        for (int k = 0; k < 3; k++)
            json_array_append_new(resps, answer_new(s, fin.native, &tool_specs[TOOL_COMPLETION]));
        run_phase(s, PHASE_FINAL, ids[i], NULL, &fin, json_pack("{s:o}", "responses", resps), 0,
                  &out);
        free(out.successor);
        if (out.ran && out.status != HEW_TASK_COMPLETED)
            violate(s, "resume.not_resumable", "final",
                    "task %s resumed with a message against a model that finishes ended %s",
                    ids[i], status_name(out.status));
    }
    for (int i = 0; i < s->nrows; i++)
        json_decref(s->rows[i].row);
    tmpdir_remove(s->dir);
}

/* ---- the run ---------------------------------------------------------------------------------- */

static bool ignore_known; /* HEW_PROP_NO_KNOWN: every violation fails */

static const known_bug *known_match(const violation *v)
{
    for (size_t i = 0; known_bugs[i].name && !ignore_known; i++)
        if (fnmatch(known_bugs[i].rule, v->rule, 0) == 0 &&
            fnmatch(known_bugs[i].where, v->where, 0) == 0)
            return &known_bugs[i];
    return NULL;
}

/* What follows from a bad request rather than being a bug of its own: the provider (the
 * strict fake) refuses it, the task then fails, so it does not resume or keeps another
 * status. Such a violation in a phase where a known bug sent a bad request is that bug's. */
static bool consequence(const violation *v)
{
    static const char *const rules[] = { "strict.refused", "provider.refused",
                                         "resume.not_resumable", "store.*" };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (fnmatch(rules[i], v->rule, 0) == 0)
            return true;
    return false;
}

static const known_bug *known_for(const seq *s, const violation *v)
{
    const known_bug *kb = known_match(v);
    if (kb || !consequence(v))
        return kb;
    for (int i = 0; i < s->nv; i++)
        if (s->v[i].phase == v->phase && !consequence(&s->v[i]) && known_match(&s->v[i]))
            return known_match(&s->v[i]);
    return NULL;
}

#define NKNOWN_MAX 32

static unsigned long long env_ull(const char *name, unsigned long long dflt, bool *set)
{
    const char *v = getenv(name);
    if (set)
        *set = v && *v;
    if (!v || !*v)
        return dflt;
    if (strcmp(v, "random") == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (unsigned long long)ts.tv_sec * 1000003ULL + (unsigned long long)ts.tv_nsec;
    }
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end) {
        fprintf(stderr, "prop: %s=%s is not a number; using %llu\n", name, v, dflt);
        return dflt;
    }
    return x;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The run's scratch folder: in memory (/dev/shm) unless TMPDIR says where, since the
 * store's durable commits cost an fsync each on a disk and nothing here must outlive the
 * run. A new string the caller frees. */
static char *run_dir_make(void)
{
    if (!getenv("TMPDIR") && access("/dev/shm", W_OK | X_OK) == 0) {
        char tmpl[] = "/dev/shm/hew-test-prop-XXXXXX";
        if (mkdtemp(tmpl))
            return strdup(tmpl);
    }
    return tmpdir_make("prop");
}

typedef struct pool {
    unsigned long long base, count, next; /* next: under mu */
    const char *run_dir, *data_dir;
    bool verbose;
    seq **seqs; /* one per seed, in order */
    pthread_mutex_t mu;
} pool;

static void *pool_worker(void *arg)
{
    pool *pl = arg;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        unsigned long long i = pl->next < pl->count ? pl->next++ : pl->count;
        pthread_mutex_unlock(&pl->mu);
        if (i == pl->count)
            return NULL;
        seq *s = calloc(1, sizeof *s);
        if (!s)
            continue;
        s->seed = pl->base + i;
        s->verbose = pl->verbose;
        s->data_dir = pl->data_dir;
        run_sequence(s, pl->run_dir);
        pl->seqs[i] = s;
    }
}

static void test_property(void)
{
    bool one = false;
    unsigned long long single = env_ull("HEW_PROP_SEED", 0, &one);
    unsigned long long base = one ? single : env_ull("HEW_PROP_BASE", 1, NULL);
    unsigned long long count = one ? 1 : env_ull("HEW_PROP_COUNT", 500, NULL);
    bool show_known = getenv("HEW_PROP_SHOW_KNOWN") != NULL;
    ignore_known = getenv("HEW_PROP_NO_KNOWN") != NULL;
    if (getenv("HEW_PROP_BASE"))
        fprintf(stderr, "prop: seeds %llu..%llu\n", base, base + count - 1);
    char *run_dir = run_dir_make();
    REQUIRE(run_dir != NULL);
    char data_dir[PATH_MAX];
    snprintf(data_dir, sizeof data_dir, "%s/data", run_dir);
    mkdir(data_dir, 0700);

    /* The sequences run on a few threads (a sequence waits on the network and the loop
     * much of its time); each is judged alone, and reported here in seed order. */
    unsigned long long jobs = one ? 1 : env_ull("HEW_PROP_JOBS", 2, NULL);
    if (jobs < 1 || jobs > 16)
        jobs = 2;
    pool pl = { .base = base, .count = count, .run_dir = run_dir, .data_dir = data_dir,
                .verbose = one };
    pl.seqs = calloc(count, sizeof *pl.seqs);
    REQUIRE(pl.seqs != NULL);
    pthread_mutex_init(&pl.mu, NULL);
    pthread_t workers[16];
    double t0 = now_s();
    for (unsigned long long j = 0; j < jobs; j++)
        pthread_create(&workers[j], NULL, pool_worker, &pl);
    for (unsigned long long j = 0; j < jobs; j++)
        pthread_join(workers[j], NULL);
    pthread_mutex_destroy(&pl.mu);
    double took = now_s() - t0;

    unsigned long known_hits[NKNOWN_MAX] = { 0 };
    unsigned long long known_first[NKNOWN_MAX] = { 0 };
    unsigned long failed = 0, clean = 0, requests = 0, exhausted = 0, phases = 0;
    for (unsigned long long seed = base; seed < base + count; seed++) {
        seq *s = pl.seqs[seed - base];
        if (!s) {
            check_fail(__FILE__, __LINE__, "seed %llu did not run (out of memory)", seed);
            continue;
        }
        requests += (unsigned long)s->nreq;
        exhausted += (unsigned long)s->nexhausted;
        phases += (unsigned long)s->nphases;
        bool unknown = false, hit[NKNOWN_MAX] = { false };
        for (int i = 0; i < s->nv; i++) {
            const known_bug *kb = known_for(s, &s->v[i]);
            if (!kb) {
                unknown = true;
                continue;
            }
            size_t k = (size_t)(kb - known_bugs);
            if (k < NKNOWN_MAX && !hit[k]) {
                hit[k] = true;
                if (known_hits[k]++ == 0)
                    known_first[k] = seed;
            }
        }
        if (!s->nv)
            clean++;
        if (unknown) {
            failed++;
            fprintf(stderr, "prop: seed %llu (%s, %s tools) FAILED — rerun it alone with "
                            "HEW_PROP_SEED=%llu\n",
                    seed, s->proto->fake, s->native ? "native" : "xml", seed);
            for (int i = 0; i < s->nv; i++) {
                const known_bug *kb = known_for(s, &s->v[i]);
                fprintf(stderr, "  %s %s at %s, phase %d: %s\n", kb ? kb->name : "NEW",
                        s->v[i].rule, s->v[i].where, s->v[i].phase, s->v[i].why);
            }
            check_fail(__FILE__, __LINE__, "seed %llu broke a property", seed);
        } else if (one || show_known) {
            for (int i = 0; i < s->nv; i++)
                fprintf(stderr, "  seed %llu known %s: %s at %s, phase %d: %s\n", seed,
                        known_for(s, &s->v[i])->name, s->v[i].rule, s->v[i].where, s->v[i].phase,
                        s->v[i].why);
        }
        free(s);
    }
    free(pl.seqs);
    for (size_t k = 0; known_bugs[k].name && k < NKNOWN_MAX; k++)
        if (known_hits[k])
            fprintf(stderr, "prop: SKIPPED known bug %s in %lu sequences (first: "
                            "HEW_PROP_SEED=%llu): %s\n",
                    known_bugs[k].name, known_hits[k], known_first[k], known_bugs[k].description);
    fprintf(stderr, "prop: %llu sequences (%lu phases, %lu requests, %lu past a scenario's end) "
                    "in %.1f s: %lu clean, %lu failed, %llu only known bugs\n",
            count, phases, requests, exhausted, took, clean, failed, count - clean - failed);
    tmpdir_remove(run_dir);
    free(run_dir);
}

/* The judge itself: each rule passes a body that keeps it and catches one that breaks it
 * (a checker that cannot fail would make the property test pass on anything). */
static void test_reqcheck_rules(void)
{
    static const struct {
        reqcheck_proto proto;
        const char *body;
        const char *rule; /* "" = valid */
    } cases[] = {
#define TU(id) "{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"read_file\",\"input\":{}}"
#define TR(id) "{\"type\":\"tool_result\",\"tool_use_id\":\"" id "\",\"content\":\"ok\"}"
#define TX(t) "{\"type\":\"text\",\"text\":\"" t "\"}"
#define MSG(role, blocks) "{\"role\":\"" role "\",\"content\":[" blocks "]}"
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("user", TX("hi")) "," MSG("assistant", TX("x") "," TU("t1"))
          "," MSG("user", TR("t1") "," TX("env")) "]}", "" },
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("user", TX("hi")) "," MSG("assistant", TU("t1"))
          "," MSG("user", TX("resumed")) "]}", "anthropic.tool_use_unanswered" },
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("user", TX("hi")) "," MSG("assistant", TU("t1"))
          "]}", "anthropic.tool_use_unanswered" },
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("user", TX("hi")) "," MSG("assistant", TU("t1"))
          "," MSG("user", TX("first") "," TR("t1")) "]}", "anthropic.tool_use_unanswered" },
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("user", TX("hi")) "," MSG("assistant", TX("x"))
          "," MSG("user", TR("t9")) "]}", "anthropic.tool_result_stray" },
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("user", TX(" \\n")) "]}", "anthropic.empty_text" },
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("assistant", TX("x")) "]}",
          "anthropic.first_not_user" },
        { REQCHECK_ANTHROPIC, "{\"messages\":[" MSG("user", TX("hi")) "," MSG("assistant", TU("t1") "," TU("t1"))
          "," MSG("user", TR("t1")) "]}", "anthropic.duplicate_id" },
#define CALL(id) "{\"id\":\"" id "\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}"
#define TOOL(id) "{\"role\":\"tool\",\"tool_call_id\":\"" id "\",\"content\":\"ok\"}"
        { REQCHECK_OPENAI_CHAT, "{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},"
          "{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,"
          "\"tool_calls\":[" CALL("c1") "," CALL("c2") "]}," TOOL("c1") "," TOOL("c2")
          ",{\"role\":\"user\",\"content\":\"env\"}]}", "" },
        { REQCHECK_OPENAI_CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
          "{\"role\":\"assistant\",\"tool_calls\":[" CALL("c1") "]},{\"role\":\"user\","
          "\"content\":\"resumed\"}," TOOL("c1") "]}", "openai-chat.tool_calls_unanswered" },
        { REQCHECK_OPENAI_CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}," TOOL("c1")
          "]}", "openai-chat.tool_stray" },
        { REQCHECK_OPENAI_RESPONSES, "{\"input\":[{\"type\":\"message\",\"role\":\"user\"},"
          "{\"type\":\"function_call\",\"call_id\":\"c1\"},{\"type\":\"function_call_output\","
          "\"call_id\":\"c1\"}]}", "" },
        { REQCHECK_OPENAI_RESPONSES, "{\"input\":[{\"type\":\"function_call\",\"call_id\":\"c1\"},"
          "{\"type\":\"message\",\"role\":\"user\"}]}", "openai-responses.function_call_unanswered" },
        { REQCHECK_OPENAI_RESPONSES, "{\"input\":[{\"type\":\"function_call_output\",\"call_id\":"
          "\"c1\"}]}", "openai-responses.output_stray" },
#define FC "{\"functionCall\":{\"name\":\"read_file\",\"args\":{}}}"
#define FR "{\"functionResponse\":{\"name\":\"read_file\",\"response\":{}}}"
#define GT "{\"text\":\"t\"}"
        { REQCHECK_GEMINI, "{\"contents\":[{\"role\":\"user\",\"parts\":[" GT "]},{\"role\":"
          "\"model\",\"parts\":[" FC "]},{\"role\":\"user\",\"parts\":[" FR "," GT "]}]}", "" },
        { REQCHECK_GEMINI, "{\"contents\":[{\"role\":\"user\",\"parts\":[" GT "]},{\"role\":"
          "\"model\",\"parts\":[" FC "," FC "]},{\"role\":\"user\",\"parts\":[" FR "]}]}",
          "gemini.function_call_unanswered" },
        { REQCHECK_GEMINI, "{\"contents\":[{\"role\":\"user\",\"parts\":[" FR "]}]}",
          "gemini.function_response_stray" },
        { REQCHECK_GEMINI, "{\"contents\":[{\"role\":\"assistant\",\"parts\":[" GT "]}]}",
          "gemini.role" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_error_t je;
        json_t *body = json_loads(cases[i].body, 0, &je);
        if (!body) {
            check_fail(__FILE__, __LINE__, "case %zu is not JSON: %s", i, je.text);
            continue;
        }
        char rule[64], why[512];
        int rc = reqcheck_body(cases[i].proto, body, rule, sizeof rule, why, sizeof why);
        if (!*cases[i].rule) {
            if (rc != 0)
                check_fail(__FILE__, __LINE__, "case %zu should pass: %s", i, why);
        } else {
            CHECK_INT(rc, -1);
            CHECK_STR(rule, cases[i].rule);
        }
        json_decref(body);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the fake provider writes to sockets hew may have closed */
    RUN(test_reqcheck_rules);
    RUN(test_property);
    return check_report();
}
