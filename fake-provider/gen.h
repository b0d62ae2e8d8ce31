/* gen — generated responses: a scenario entry with "protocol" describes one assistant
 * turn (reasoning, text, tool calls, usage, stop reason) and a protocol generator turns
 * it into the exact SSE body that provider's server would send.
 *
 * gen_load() parses and checks the entry (errors name the JSON path), cuts text,
 * reasoning and tool arguments into deltas at UTF-8 character boundaries, and calls the
 * protocol's generator from the table in gen.c. Generators only append events to a plan
 * and never do I/O. Every event's JSON is built with jansson so escaping is always
 * right; gen_event() prints it in the protocol's style. */
#ifndef HEW_FAKE_GEN_H
#define HEW_FAKE_GEN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "plan.h"

/* A list of owned string pieces (deltas). */
typedef struct gen_pieces {
    char **v;
    size_t *len;
    size_t n;
} gen_pieces;

typedef struct gen_call {
    char id[128];              /* from the scenario, or a default per protocol */
    const char *name;          /* borrowed from the scenario JSON */
    char *args;                /* the whole argument string (owned) */
    json_t *args_json;         /* the arguments as JSON when they parse, else NULL (owned) */
    gen_pieces deltas;         /* argument fragments */
    const char *thought_signature; /* Gemini only (borrowed), or NULL */
} gen_call;

typedef struct gen_usage {
    bool given;
    long long input, output, cache_read, cache_write, reasoning;
} gen_usage;

typedef struct gen_spec {
    size_t number;          /* 1-based position of the response in the scenario */
    const char *model;      /* borrowed */
    const char *id;         /* borrowed, or NULL for the default */
    const char *signature;  /* borrowed, or NULL for the default */
    const char *stop_reason; /* borrowed, or NULL: the natural one */
    gen_pieces text;
    gen_pieces reasoning;
    char *text_all;          /* concatenated text (owned) */
    char *reasoning_all;     /* concatenated reasoning (owned) */
    gen_call *calls;
    size_t ncalls;
    gen_usage usage;
    size_t delta_size;
} gen_spec;

/* The keys a generated response may have (besides faults_keys). */
extern const char *const gen_keys[];

/* Parse the generated entry resp (at JSON path `path`, 0-based index) into p. */
hew_code gen_load(const json_t *resp, const char *path, size_t index, fp_plan *p,
                  hew_err *err);

/* JSON styles of the real servers. */
typedef enum gen_style {
    GEN_COMPACT, /* {"a":1,"b":2}               (Anthropic, OpenAI) */
    GEN_SPACED,  /* {"a": 1, "b": 2}            (Anthropic ping/error) */
    GEN_GEMINI   /* {"a": 1,"b": 2}             (Google: ": " but ",") */
} gen_style;

/* Append one SSE event: "event: NAME\n" (when name is not NULL), "data: JSON" and a
 * blank line, with CRLF line ends when crlf. Steals the reference to data. */
void gen_event(fp_plan *p, const char *name, json_t *data, gen_style style, bool crlf);

/* Append a raw "data: TEXT\n\n" event (for [DONE]). */
void gen_event_raw(fp_plan *p, const char *text);

/* The generators (one file each). */
void gen_anthropic(const gen_spec *s, fp_plan *p);
void gen_openai_chat(const gen_spec *s, fp_plan *p);
void gen_openai_responses(const gen_spec *s, fp_plan *p);
void gen_gemini(const gen_spec *s, fp_plan *p);

/* Cut s (len bytes) into pieces of at most size bytes, never inside a UTF-8 character
 * (a character longer than size becomes a piece of its own). Appends to out. */
bool gen_cut_utf8(const char *s, size_t len, size_t size, gen_pieces *out);

void gen_pieces_release(gen_pieces *ps);

#endif
