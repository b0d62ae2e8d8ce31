/* uimsg — the task's messages for the user: Cline's ClineMessage list of `say` and `ask`
 * entries (task, text, reasoning, tool, api_req_started, error_retry, completion_result,
 * followup, …), with Cline's partial-update rule, and their JSON form (schema in
 * docs/events.md), which is also what the front end receives as events.
 *
 * Partial rule (Cline's say/ask): a partial message replaces the last message when that
 * one is partial and of the same kind and type; a final message (partial=false) completes
 * such a partial message in place; a message with no partial flag (UIMSG_WHOLE) is always
 * appended. Indexes therefore never move: message i stays message i.
 *
 * Payloads: `text` is plain text (may be NULL); `data` is a JSON object for structured
 * types (tool, api_req_started, error_retry, followup, …; may be NULL). The list owns
 * both. Not thread-safe: the task serialises access. */
#ifndef HEW_TASK_UIMSG_H
#define HEW_TASK_UIMSG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

#define UIMSG_SCHEMA_VERSION 1

typedef enum uimsg_kind { UIMSG_SAY, UIMSG_ASK } uimsg_kind;

/* How a new message relates to the last one (see the partial rule above). */
typedef enum uimsg_partial { UIMSG_WHOLE, UIMSG_PARTIAL, UIMSG_FINAL } uimsg_partial;

typedef struct uimsg {
    long long ts;     /* ms since the epoch, when first added */
    uimsg_kind kind;
    char *type;       /* "text", "tool", … */
    buf text;         /* the text (NUL-terminated when has_text); reused in place by
                         partial updates, so a growing message is not reallocated */
    bool has_text;
    json_t *data;     /* may be NULL; owned */
    bool partial;
} uimsg;

typedef struct uimsg_list {
    uimsg *items;
    size_t len, cap;
} uimsg_list;

#define UIMSG_LIST_INIT { NULL, 0, 0 }

void uimsg_list_release(uimsg_list *l);

/* Add or update per the partial rule; takes a new reference to data (data may be NULL).
 * Returns the index of the message added or updated, or -1 when out of memory. */
long uimsg_put(uimsg_list *l, uimsg_kind kind, const char *type, const char *text,
               json_t *data, uimsg_partial partial);

/* The last message of a kind and type (kind < 0 = any kind), or -1. */
long uimsg_find_last(const uimsg_list *l, int kind, const char *type);

/* Replace message i's data (new reference taken) and/or text (copied; NULL keeps it). */
void uimsg_update(uimsg_list *l, size_t i, const char *text, json_t *data);

/* Like uimsg_put with an empty text, returning the message's text buffer for the caller
 * to fill in place (*index gets the message's index; NULL when out of memory). For large
 * growing texts: no copy beyond the one the caller writes. */
buf *uimsg_put_text(uimsg_list *l, uimsg_kind kind, const char *type, uimsg_partial partial,
                    long *index);

/* Append a message from its JSON form (uimsg_to_json), keeping its ts: for resume.
 * Returns its index, or -1 when ev is not a message. */
long uimsg_load(uimsg_list *l, const json_t *ev);

/* Drop the messages from index n on. */
void uimsg_truncate(uimsg_list *l, size_t n);

/* Message i's text, or NULL. */
const char *uimsg_text(const uimsg_list *l, size_t i);

/* Append the JSON form of message i (one line, no newline) to out:
 * {"v":1,"index":i,"ts":…,"kind":"say","type":"text","partial":false,"text":…,"data":…}. */
void uimsg_to_json(const uimsg_list *l, size_t i, buf *out);

#endif
