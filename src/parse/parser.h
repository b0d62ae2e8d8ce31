/* parser — the streaming parser of one assistant message: text deltas (with XML tool calls
 * in them), reasoning deltas and native tool-call deltas go in; an append-only array of
 * blocks (text, tool_use, reasoning) comes out, each partial while it may still grow. This
 * is what the stream thread feeds and the presenter reads. It must never do I/O, never
 * re-parse what it has parsed (each byte is touched a bounded number of times), and never
 * remove, move or re-create a block (see parse/block.h for what a reader may rely on).
 *
 * Usage:
 *     parser_opts o = parser_defaults();           // Cline's tool and parameter names
 *     parser *p = parser_new(&o, &err);
 *     parser_text(p, delta, n, &err);  ...        // as chunks arrive
 *     for (size_t i = parser_dirty_from(p); i < parser_count(p); i++) show(parser_block(p, i));
 *     parser_clean(p);
 *     parser_finish(p, &err);                       // the stream ended
 *     parser_seal(p);                               // every block complete (agent loop)
 *     parser_free(p);
 *
 * XML text (see parse/xmlcall.h for the exact rules): after parser_finish the blocks are
 * exactly what Cline's parseAssistantMessageV2 gives for the whole text, partial flags
 * included (trailing text and an unclosed tool stay partial); parser_seal then marks
 * everything complete, as Cline does at the end of the stream. Between feeds, a possible
 * tag at the end is held back (parser_held) and an unfinished UTF-8 character is not shown.
 *
 * Reasoning deltas grow a reasoning block (untrimmed); text or a tool call completes it,
 * and reasoning after that starts a new one. A native tool call that gets a block
 * completes the open text block (text after it starts a new block). With xml_tools off,
 * text is never scanned for tags: it is one trimmed text block per stretch of text.
 *
 * NUL bytes. A NUL in text or reasoning (a model's \u0000 decoded), or a \u0000 in a
 * native tool call's argument strings, is U+FFFD in the blocks: what blocks hold ends up
 * in C strings (the say events, the store's messages, the tools' parameters), where a NUL
 * would silently cut off everything after it. The provider's exact bytes are kept where
 * they go back to it (api_turn, the history).
 *
 * Errors: HEW_E_TOOBIG when the message passes opts.max_bytes (all deltas together),
 * HEW_E_NOMEM. After an error the parser refuses further input (same error) but its
 * blocks stay readable. HEW_E_INVALID from parser_new for unusable names.
 * Not thread-safe: one owner at a time (the task's mutex). */
#ifndef HEW_PARSE_PARSER_H
#define HEW_PARSE_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "parse/block.h"

typedef struct parser parser;

typedef struct parser_opts {
    const char *const *tools;  /* XML tool names; NULL = Cline's (parse/cline_names.h) */
    size_t ntools;
    const char *const *params; /* XML parameter names; NULL = Cline's */
    size_t nparams;
    bool xml_tools;            /* scan text for XML tool calls (default true) */
    const char *rule_tool;     /* the tool whose rule_param runs to its LAST closing tag */
    const char *rule_param;    /* (default "write_to_file" / "content"; NULL = no rule) */
    size_t max_bytes;          /* cap on the whole message (default 256 MiB) */
} parser_opts;

parser_opts parser_defaults(void);

/* A new parser, or NULL with err set. Names are copied. */
parser *parser_new(const parser_opts *opts, hew_err *err);
void parser_free(parser *p);

hew_code parser_text(parser *p, const char *s, size_t n, hew_err *err);
hew_code parser_reasoning(parser *p, const char *s, size_t n, hew_err *err);

/* One native tool-call delta. id and name are NUL-terminated or NULL; index is the
 * provider's (has_index false when it gives none); args is a fragment of the arguments
 * JSON; done says the provider has finished this call. See parse/native.h. */
typedef struct parser_tool_delta {
    const char *id;
    long long index;
    bool has_index;
    const char *name;
    const char *args;
    size_t args_len;
    bool done;
} parser_tool_delta;

hew_code parser_tool(parser *p, const parser_tool_delta *d, hew_err *err);

/* The stream ended: resolve what was held back, complete reasoning and native calls. */
hew_code parser_finish(parser *p, hew_err *err);
/* The stream was cut (aborted, failed): as parser_finish, but a native call the wire did
 * not say complete stays partial — its arguments may be cut, it must never run. */
hew_code parser_finish_cut(parser *p, hew_err *err);

/* Mark every block complete. */
void parser_seal(parser *p);

size_t parser_count(const parser *p);
const block *parser_block(const parser *p, size_t i);

/* The content of complete text or reasoning block i is not needed any more (the presenter
 * has shown it whole): its memory is freed, so that a long answer is not held here beside
 * the message made of it and the turn that goes to the history. block_text gives "" for
 * it from then on; its type, index, seq and completeness stay. false (nothing done) for a
 * partial block, a tool_use or no block i. The one exception to "a complete block never
 * changes" (parse/block.h). */
bool parser_release_text(parser *p, size_t i);

/* The reader of text or reasoning block i (partial or not) has taken its content up to
 * position upto and will not read it again: that start is freed (block_text_from says
 * where what is left starts), so that a growing answer is not held here beside the
 * message made of it. Nothing for other blocks. */
void parser_drop_text(parser *p, size_t i, size_t upto);

/* A counter that grows with every change; block->seq is its value at that block's last
 * change, so "changed since I looked" is block->seq > the value I saw. */
uint64_t parser_seq(const parser *p);

/* The lowest block index changed since parser_clean (parser_count when none). */
size_t parser_dirty_from(const parser *p);
void parser_clean(parser *p);

/* Bytes of text held back as a possible tag. */
size_t parser_held(const parser *p);

#endif
