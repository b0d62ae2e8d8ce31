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
 * Appends: a message's text grows by appends. Each message remembers the lowest offset
 * of its text changed since its last event was made (`dirty`); the event of a partial
 * update carries only text[dirty..) and the offset (uimsg_to_json_append), so an update
 * costs what was appended, not the length of the text. A change inside the text (a
 * cleaner un-hiding a tag, a whole new text) lowers dirty, and the event says so.
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

#define UIMSG_SCHEMA_VERSION 2

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
    size_t dirty;     /* text[0..dirty) is what the last event said; the rest is new */
    json_t *data;     /* may be NULL; owned */
    bool partial;
    bool spilled;     /* its text was let go (uimsg_text_spill): the store holds it */
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


/* Replace message i's data (new reference taken) and/or text (copied; NULL keeps it). */
void uimsg_update(uimsg_list *l, size_t i, const char *text, json_t *data);

/* Like uimsg_put, the message's text taken over from *text (moved, no copy; *text is
 * left empty). Returns the index, or -1 when out of memory (*text is then kept). */
long uimsg_put_buf(uimsg_list *l, uimsg_kind kind, const char *type, uimsg_partial partial,
                   buf *text);

/* Message i's text buffer, for an owner that edits it in place (then uimsg_text_changed),
 * or NULL. */
buf *uimsg_text_buf(uimsg_list *l, size_t i);

/* Message i's text was edited in place from offset `from` on; partial is its new state
 * (UIMSG_PARTIAL or UIMSG_FINAL). */
void uimsg_text_changed(uimsg_list *l, size_t i, size_t from, uimsg_partial partial);

/* Append a message from its JSON form (uimsg_to_json), keeping its ts: for resume.
 * Returns its index, or -1 when ev is not a message. */
long uimsg_load(uimsg_list *l, const json_t *ev);

/* Drop the messages from index n on. */
void uimsg_truncate(uimsg_list *l, size_t n);

/* Message i's text, or NULL (also for a spilled message: restore it first). */
const char *uimsg_text(const uimsg_list *l, size_t i);

/* Letting go of a long text: a final message's text that the store holds exactly is freed
 * (the message keeps its place, kind, type and has_text), so a finished answer of
 * megabytes does not stay in memory beside the history's copy. Nothing reads a spilled
 * text: uimsg_text gives NULL, and whoever needs it back — to say or store the message
 * whole again — restores it first (uimsg_text_restore, from the store: task/persist.c).
 * A new text (uimsg_update, uimsg_put) ends the spill. spill: a no-op for a partial
 * message or one without text. restore: *text is moved in (no copy; left empty), and
 * counts as said. */
void uimsg_text_spill(uimsg_list *l, size_t i);
bool uimsg_is_spilled(const uimsg_list *l, size_t i);
void uimsg_text_restore(uimsg_list *l, size_t i, buf *text);

/* Append the JSON form of message i (one line, no newline) to out:
 * {"v":2,"index":i,"ts":…,"kind":"say","type":"text","partial":false,"text":…,"data":…}. */
void uimsg_to_json(const uimsg_list *l, size_t i, buf *out);

/* The change of message i since its last event: *offset and its text from there (*len
 * bytes; borrowed until the message changes). Marks it said: the next change starts at
 * the text's end. A message without text gives offset 0 and "". */
const char *uimsg_take_append(uimsg_list *l, size_t i, size_t *offset, size_t *len);

/* The JSON form of an update of message i (after uimsg_take_append gave offset): like
 * uimsg_to_json, but a partial message with text carries
 * "append":{"offset":offset,"text":text[offset..)} instead of "text". */
void uimsg_to_json_append(const uimsg_list *l, size_t i, size_t offset, buf *out);

#endif
