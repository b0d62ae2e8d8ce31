/* sse — the Server-Sent Events push decoder (rules, ownership, errors: see sse.h).
 * It must never do I/O, never read past what was fed, never scan a byte twice, and never
 * let a buffer grow from input without a cap.
 *
 * How it works. Fed bytes are appended to one buffer `b`; sse_next() cuts lines from
 * `start` on. The next LF and the next CR are each found with memchr and remembered
 * (position, or "none up to here"), so each byte is looked at once per character even
 * when one kind of terminator is rare. A data line or an event line is not copied: the
 * pending event remembers its offset in `b` and its terminator byte is overwritten with
 * NUL (the line is already cut, and a CR's meaning lives on in `skip_lf`). Only when an
 * event has several data lines, or when sse_feed must compact `b` while an event is
 * pending, are those bytes copied into the event's own buffers. sse_feed compacts `b` only
 * when it is full and grows it so that at most half is live after a compaction, which
 * keeps moving bytes amortised O(1) per byte; it never grows `b` much past max_line (what
 * is live is one unfinished line), so the memory a stream can make it hold is about
 * max_line plus one feed, whatever the stream sends. */
#include "net/sse.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define NONE SIZE_MAX
#define SSE_MIN_CAP ((size_t)64 << 10)

/* Where a pending field's value lives. */
enum part_state { PART_NONE, PART_REF, PART_OWNED };

typedef struct part {
    enum part_state state;
    size_t off, len; /* PART_REF: value is b[off, off+len), b[off+len] == '\0' */
    buf own;         /* PART_OWNED: the value */
} part;

struct sse_decoder {
    sse_limits lim;

    char *b; /* fed, not yet consumed bytes from `start` to `len` */
    size_t len, cap, start;

    /* memchr caches: the next LF / CR at or after `start` is at *_pos; when *_pos is NONE
     * there is none in [start, *_seen). */
    size_t lf_pos, lf_seen, cr_pos, cr_seen;

    int skip_lf;     /* the last line ended with CR: drop one LF if it comes next */
    int ended;       /* sse_end was called */
    int bom_done;    /* past the point where a BOM may appear */
    size_t bom_held; /* BOM bytes seen so far at the stream start (held back) */

    /* The pending event. */
    part type, data;
    buf id_pending; /* id buffer as the fields set it */
    int id_dirty;   /* id_pending differs from last_id */
    buf last_id;    /* committed at each empty line */
    long retry;

    hew_err err; /* sticky: err.code != HEW_OK once failed */
};

static const unsigned char BOM[3] = { 0xEF, 0xBB, 0xBF };

static void part_init(part *p, size_t max)
{
    p->state = PART_NONE;
    p->off = p->len = 0;
    buf_init(&p->own, max);
}

sse_decoder *sse_decoder_new(const sse_limits *limits)
{
    sse_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->lim.max_line = limits && limits->max_line ? limits->max_line : SSE_DEFAULT_MAX_LINE;
    d->lim.max_event = limits && limits->max_event ? limits->max_event : SSE_DEFAULT_MAX_EVENT;
    d->lf_pos = d->cr_pos = NONE;
    part_init(&d->type, 0);
    part_init(&d->data, 0);
    buf_init(&d->id_pending, 0);
    buf_init(&d->last_id, 0);
    d->retry = -1;
    d->err.code = HEW_OK;
    return d;
}

void sse_decoder_free(sse_decoder *d)
{
    if (!d)
        return;
    free(d->b);
    buf_release(&d->type.own);
    buf_release(&d->data.own);
    buf_release(&d->id_pending);
    buf_release(&d->last_id);
    free(d);
}

/* Record a sticky error; returns its code. */
static hew_code fail_nomem(sse_decoder *d, const char *what)
{
    return hew_err_set(&d->err, HEW_E_NOMEM, "out of memory while decoding an SSE stream (%s)",
                       what);
}

static hew_code fail_toobig(sse_decoder *d, const char *what, size_t limit)
{
    return hew_err_set(&d->err, HEW_E_TOOBIG,
                       "%s than %zu bytes — the server sent a malformed stream", what, limit);
}

static hew_code report(const sse_decoder *d, hew_err *err)
{
    if (err)
        *err = d->err;
    return d->err.code;
}

/* Move a PART_REF value into its own buffer (b is about to move). */
static int part_materialize(sse_decoder *d, part *p)
{
    if (p->state != PART_REF)
        return 1;
    buf_reset(&p->own);
    buf_append(&p->own, d->b + p->off, p->len);
    if (p->own.err)
        return 0;
    p->state = PART_OWNED;
    return 1;
}

static void shift_cache(size_t *pos, size_t *seen, size_t by)
{
    if (*pos != NONE)
        *pos = *pos >= by ? *pos - by : NONE; /* a stale position is as good as none */
    *seen = *seen >= by ? *seen - by : 0;
}

/* Make room for n more bytes at b + len. */
static hew_code reserve(sse_decoder *d, size_t n)
{
    if (n <= d->cap - d->len)
        return HEW_OK;
    /* Full: drop the consumed prefix. Pending event values that point into it get their
     * own copies first (rare: only an event that spans a compaction). A realloc alone
     * keeps them valid: they are offsets. */
    size_t keep = d->start, live = d->len - keep;
    if (keep) {
        if (!part_materialize(d, &d->type) || !part_materialize(d, &d->data))
            return fail_nomem(d, "event");
        memmove(d->b, d->b + keep, live);
        d->len = live;
        d->start = 0;
        shift_cache(&d->lf_pos, &d->lf_seen, keep);
        shift_cache(&d->cr_pos, &d->cr_seen, keep);
    }
    if (n > SIZE_MAX / 4 - live)
        return fail_nomem(d, "input");
    size_t need = live + n;
    if (need > d->cap / 2) { /* keep at most half live after a compaction */
        size_t cap = need * 2 < SSE_MIN_CAP ? SSE_MIN_CAP : need * 2;
        /* ... but not past the longest line allowed. For a caller that drains sse_next
         * after each feed, what is live is one unfinished line of at most max_line bytes
         * (sse_next fails past that), so doubling near the cap would only hold memory no
         * valid stream uses: the buffer stops at max_line + 64 KiB, or at exactly what
         * this feed needs. */
        size_t ceiling = d->lim.max_line < SIZE_MAX / 4 ? d->lim.max_line + SSE_MIN_CAP : NONE;
        if (live <= d->lim.max_line && cap > ceiling)
            cap = need > ceiling ? need : ceiling;
        if (cap > d->cap) {
            char *p = realloc(d->b, cap);
            if (!p)
                return fail_nomem(d, "input");
            d->b = p;
            d->cap = cap;
        }
    }
    return HEW_OK;
}

static hew_code append(sse_decoder *d, const void *bytes, size_t n)
{
    if (n == 0)
        return HEW_OK;
    hew_code rc = reserve(d, n);
    if (rc != HEW_OK)
        return rc;
    memcpy(d->b + d->len, bytes, n);
    d->len += n;
    return HEW_OK;
}

hew_code sse_feed(sse_decoder *d, const void *bytes, size_t n, hew_err *err)
{
    if (d->err.code != HEW_OK)
        return report(d, err);
    if (d->ended)
        return hew_err_set(err, HEW_E_INVALID, "sse_feed after sse_end");
    const unsigned char *p = bytes;
    while (!d->bom_done && n > 0) {
        if (p[0] == BOM[d->bom_held]) {
            p++, n--;
            if (++d->bom_held == sizeof BOM)
                d->bom_done = 1;
        } else {
            d->bom_done = 1; /* not a BOM: the held bytes were content */
            if (append(d, BOM, d->bom_held) != HEW_OK)
                return report(d, err);
        }
    }
    if (append(d, p, n) != HEW_OK)
        return report(d, err);
    return HEW_OK;
}

void sse_end(sse_decoder *d)
{
    d->ended = 1;
    d->bom_done = 1; /* a lone BOM prefix at EOF is an unterminated line: dropped anyway */
}

/* The next occurrence of c at or after d->start, or NONE; updates the cache. */
static size_t find(const sse_decoder *d, char c, size_t *pos, size_t *seen)
{
    if (*pos != NONE && *pos >= d->start)
        return *pos;
    size_t from = *seen > d->start ? *seen : d->start;
    if (from >= d->len)
        return NONE;
    const char *hit = memchr(d->b + from, c, d->len - from);
    if (hit) {
        *pos = (size_t)(hit - d->b);
        *seen = *pos + 1;
        return *pos;
    }
    *pos = NONE;
    *seen = d->len;
    return NONE;
}

static const char *part_ptr(const sse_decoder *d, const part *p, size_t *len)
{
    switch (p->state) {
    case PART_REF:
        *len = p->len;
        return d->b + p->off;
    case PART_OWNED:
        *len = p->own.len;
        return p->own.data ? p->own.data : "";
    default:
        *len = 0;
        return "";
    }
}

const char *sse_last_event_id(const sse_decoder *d)
{
    return d->last_id.data ? d->last_id.data : "";
}

long sse_retry_ms(const sse_decoder *d)
{
    return d->retry;
}

/* retry: one or more ASCII digits that fit in a long; else -1 (ignored). */
static long parse_retry(const char *v, size_t n)
{
    if (n == 0)
        return -1;
    long r = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        int digit = v[i] - '0';
        if (r > (LONG_MAX - digit) / 10)
            return -1;
        r = r * 10 + digit;
    }
    return r;
}

#define FIELD_IS(name, lit) (name##_len == sizeof(lit) - 1 && memcmp(name, lit, sizeof(lit) - 1) == 0)

/* Handle the field line b[off, off+n); its terminator byte b[off+n] may be overwritten. */
static int field_line(sse_decoder *d, size_t off, size_t n)
{
    char *line = d->b + off;
    const char *field = line;
    size_t field_len = n, voff = off + n, vlen = 0;
    char *colon = memchr(line, ':', n);
    if (colon) {
        field_len = (size_t)(colon - line);
        voff = off + field_len + 1;
        if (voff < off + n && d->b[voff] == ' ')
            voff++;
        vlen = off + n - voff;
    }
    const char *value = d->b + voff;

    if (FIELD_IS(field, "data")) {
        part *p = &d->data;
        if (p->state == PART_NONE) {
            if (vlen > d->lim.max_event)
                return fail_toobig(d, "SSE event larger", d->lim.max_event), 0;
            p->state = PART_REF;
            p->off = voff;
            p->len = vlen;
            d->b[voff + vlen] = '\0'; /* the terminator, already consumed */
            return 1;
        }
        size_t have = p->state == PART_REF ? p->len : p->own.len;
        if (vlen + 1 > d->lim.max_event - have)
            return fail_toobig(d, "SSE event larger", d->lim.max_event), 0;
        if (!part_materialize(d, p))
            return fail_nomem(d, "event"), 0;
        buf_putc(&p->own, '\n');
        buf_append(&p->own, value, vlen);
        if (p->own.err)
            return fail_nomem(d, "event"), 0;
    } else if (FIELD_IS(field, "event")) {
        d->type.state = PART_REF;
        d->type.off = voff;
        d->type.len = vlen;
        d->b[voff + vlen] = '\0';
    } else if (FIELD_IS(field, "id")) {
        if (memchr(value, '\0', vlen))
            return 1;
        buf_reset(&d->id_pending);
        buf_append(&d->id_pending, value, vlen);
        if (d->id_pending.err)
            return fail_nomem(d, "id"), 0;
        d->id_dirty = 1;
    } else if (FIELD_IS(field, "retry")) {
        long r = parse_retry(value, vlen);
        if (r >= 0)
            d->retry = r;
    }
    return 1;
}

/* An empty line: commit the id; fill ev and return 1 if there is an event to dispatch. */
static int empty_line(sse_decoder *d, sse_event *ev)
{
    if (d->id_dirty) {
        buf_reset(&d->last_id);
        buf_append(&d->last_id, d->id_pending.data ? d->id_pending.data : "",
                   d->id_pending.len);
        if (d->last_id.err)
            return fail_nomem(d, "id"), -1;
        d->id_dirty = 0;
    }
    int dispatch = d->data.state != PART_NONE;
    if (dispatch) {
        ev->event = part_ptr(d, &d->type, &ev->event_len);
        ev->data = part_ptr(d, &d->data, &ev->data_len);
        ev->id = sse_last_event_id(d);
        ev->id_len = d->last_id.len;
    }
    /* Forget the pending event. Owned buffers keep their bytes until the next reset, so ev
     * stays valid until the next call. */
    d->type.state = PART_NONE;
    d->data.state = PART_NONE;
    return dispatch;
}

int sse_next(sse_decoder *d, sse_event *ev, hew_err *err)
{
    if (d->err.code != HEW_OK)
        return report(d, err), -1;
    for (;;) {
        if (d->skip_lf && d->start < d->len) {
            if (d->b[d->start] == '\n')
                d->start++;
            d->skip_lf = 0;
        }
        size_t lf = find(d, '\n', &d->lf_pos, &d->lf_seen);
        size_t cr = find(d, '\r', &d->cr_pos, &d->cr_seen);
        size_t eol = lf < cr ? lf : cr;
        if (eol == NONE) {
            size_t partial = d->len - d->start;
            if (partial > d->lim.max_line) {
                fail_toobig(d, "SSE line longer", d->lim.max_line);
                return report(d, err), -1;
            }
            if (d->ended) { /* an unterminated last line and a pending event: dropped */
                d->start = d->len;
                d->type.state = d->data.state = PART_NONE;
            }
            return 0;
        }
        size_t off = d->start, n = eol - off;
        if (n > d->lim.max_line) {
            fail_toobig(d, "SSE line longer", d->lim.max_line);
            return report(d, err), -1;
        }
        d->start = eol + 1;
        d->skip_lf = eol == cr;
        if (n == 0) {
            int r = empty_line(d, ev);
            if (r < 0)
                return report(d, err), -1;
            if (r)
                return 1;
        } else if (d->b[off] != ':') {
            if (!field_line(d, off, n))
                return report(d, err), -1;
        }
    }
}
