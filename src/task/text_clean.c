/* text_clean — the cleaning of assistant text before it is shown (see text_clean.h).
 * One pass to strip the tags, then constant work at the end of the string. */
#include "task/text_clean.h"

#include <string.h>

static bool is_js_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

struct strip_tag {
    const char *open;
    const char *close;
};

static const struct strip_tag strip_tags[] = {
    { "<thinking>", "</thinking>" },
    { "<think>", "</think>" },
    { "<function_calls>", "</function_calls>" },
};

/* Remove "<tag>" plus one following space, and one preceding space plus "</tag>". */
static void strip(const char *s, size_t n, buf *out, size_t base)
{
    size_t i = 0;
    while (i < n) {
        const char *lt = memchr(s + i, '<', n - i);
        if (!lt) {
            buf_append(out, s + i, n - i);
            return;
        }
        size_t k = (size_t)(lt - s);
        size_t matched = 0;
        bool is_close = false;
        for (size_t t = 0; t < sizeof strip_tags / sizeof strip_tags[0] && !matched; t++) {
            size_t ol = strlen(strip_tags[t].open), cl = strlen(strip_tags[t].close);
            if (n - k >= ol && memcmp(s + k, strip_tags[t].open, ol) == 0)
                matched = ol;
            else if (n - k >= cl && memcmp(s + k, strip_tags[t].close, cl) == 0) {
                matched = cl;
                is_close = true;
            }
        }
        if (!matched) {
            buf_append(out, s + i, k + 1 - i);
            i = k + 1;
            continue;
        }
        size_t keep_end = k;
        /* A closing tag takes one white-space character before it (if we still own it). */
        if (is_close && keep_end > i && is_js_space((unsigned char)s[keep_end - 1]))
            keep_end--;
        else if (is_close && keep_end == i && out->len > base &&
                 is_js_space((unsigned char)out->data[out->len - 1]))
            buf_truncate(out, out->len - 1);
        buf_append(out, s + i, keep_end - i);
        i = k + matched;
        if (!is_close && i < n && is_js_space((unsigned char)s[i]))
            i++;
    }
}

static size_t trim_end(const char *s, size_t n)
{
    while (n && is_js_space((unsigned char)s[n - 1]))
        n--;
    return n;
}

static size_t trim_start(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_js_space((unsigned char)s[i]))
        i++;
    return i;
}

static bool is_tag_word(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'))
            return false;
    }
    return true;
}

void text_clean(const char *s, size_t n, bool partial, buf *out)
{
    /* Strip into out, then fix the end in place: no second copy of a long text. */
    size_t base = out->len;
    strip(s, n, out, base);
    if (out->err)
        return;
    char *c = out->data ? out->data + base : NULL;
    size_t len = out->len - base;
    size_t start = 0;

    /* A tag being written at the end of a growing block: "<", "</", "<word", "</word".
     * Only while partial: Cline cuts it from final text too, which loses a real "a < b". */
    const char *lt = partial && len ? memrchr(c, '<', len) : NULL;
    if (lt && !memchr(lt, '>', len - (size_t)(lt - c))) {
        size_t k = (size_t)(lt - c);
        size_t tag_at = k + (len - k >= 2 && c[k + 1] == '/' ? 2 : 1);
        size_t ts = tag_at + trim_start(c + tag_at, len - tag_at);
        size_t te = ts + trim_end(c + ts, len - ts);
        if (len - k == 1 || (len - k == 2 && c[k + 1] == '/') || is_tag_word(c + ts, te - ts)) {
            len = trim_end(c, k);
            start = trim_start(c, len);
        }
    }
    if (!partial) {
        /* A trailing "```lang" fence left open by the model. */
        size_t e = trim_end(c + start, len - start) + start;
        size_t w = e;
        while (w > start && ((c[w - 1] >= 'a' && c[w - 1] <= 'z') ||
                             (c[w - 1] >= 'A' && c[w - 1] <= 'Z') ||
                             (c[w - 1] >= '0' && c[w - 1] <= '9') || c[w - 1] == '_' ||
                             c[w - 1] == '-'))
            w--;
        if (w < e && w - start >= 3 && memcmp(c + w - 3, "```", 3) == 0)
            len = w - 3;
    }
    if (start)
        memmove(c, c + start, len - start);
    buf_truncate(out, base + len - start);
}

/* ---- the incremental cleaner ---------------------------------------------------------- */

/* How the bytes after the last '<' of the output read, as text_clean's partial-tag rule
 * sees them: '<' '/'? WS* WORD WS*, or just "<" / "</", is a tag being written (cut from
 * the view); anything else never becomes one again (until the next '<'). */
enum { LT_OPEN, LT_SLASH, LT_WS1, LT_WORD, LT_WS2, LT_DEAD };

static bool lt_cuts(unsigned char st)
{
    return st == LT_OPEN || st == LT_SLASH || st == LT_WORD || st == LT_WS2;
}

static bool is_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static unsigned char lt_step(unsigned char st, unsigned char c)
{
    bool ws = is_js_space(c), word = is_word_char(c);
    switch (st) {
    case LT_OPEN:
        return c == '/' ? LT_SLASH : ws ? LT_WS1 : word ? LT_WORD : LT_DEAD;
    case LT_SLASH:
    case LT_WS1:
        return ws ? LT_WS1 : word ? LT_WORD : LT_DEAD;
    case LT_WORD:
        return word ? LT_WORD : ws ? LT_WS2 : LT_DEAD;
    case LT_WS2:
        return ws ? LT_WS2 : LT_DEAD;
    default:
        return LT_DEAD;
    }
}

/* Bytes p[0..n) were appended to the output (no '<' among them). */
static void lt_advance(text_cleaner *c, const char *p, size_t n)
{
    for (size_t i = 0; i < n && c->has_lt && c->lt_state != LT_DEAD; i++)
        c->lt_state = lt_step(c->lt_state, (unsigned char)p[i]);
}

/* The output lost bytes at its end: read the bytes after the last '<' again. */
static void lt_rescan(text_cleaner *c, const buf *out)
{
    if (!c->has_lt)
        return;
    if (c->lt >= out->len) {
        c->has_lt = false;
        return;
    }
    c->lt_state = LT_OPEN;
    lt_advance(c, out->data + c->lt + 1, out->len - c->lt - 1);
}

void text_cleaner_init(text_cleaner *c, bool verbatim)
{
    memset(c, 0, sizeof *c);
    c->verbatim = verbatim;
    buf_init(&c->tail, 0);
    buf_init(&c->lead, 0);
}

void text_cleaner_release(text_cleaner *c)
{
    buf_release(&c->tail);
    buf_release(&c->lead);
    text_cleaner_init(c, c->verbatim);
}

/* Put back what the last view cut, so that out holds the whole stripped output again. */
static void restore(text_cleaner *c, buf *out, size_t *low)
{
    if (c->lead.len) {
        size_t n = out->len, k = c->lead.len;
        char *room = buf_reserve(out, k);
        if (!room)
            return;
        memmove(out->data + k, out->data, n);
        memcpy(out->data, c->lead.data, k);
        buf_commit(out, k);
        buf_reset(&c->lead);
        *low = 0;
    }
    if (c->tail.len) {
        buf_append(out, c->tail.data, c->tail.len);
        buf_reset(&c->tail);
    }
}

/* Strip text[c->in..n) into out (text_clean's strip, byte for byte), holding back a '<'
 * that may still become a tag while more is to come. s holds text from position off on
 * (off <= c->in): byte i of the text is s[i - off]. */
static void strip_more(text_cleaner *c, const char *s, size_t off, size_t n, bool partial,
                       buf *out, size_t *low)
{
    size_t i = c->in;
    while (i < n && !out->err) {
        if (c->eat_ws) {
            c->eat_ws = false;
            if (is_js_space((unsigned char)s[i - off])) {
                i++;
                continue;
            }
        }
        if (s[i - off] != '<') {
            const char *lt = memchr(s + (i - off), '<', n - i);
            size_t k = lt ? (size_t)(lt - s) + off : n;
            buf_append(out, s + (i - off), k - i);
            lt_advance(c, s + (i - off), k - i);
            i = k;
            continue;
        }
        size_t rest = n - i, matched = 0;
        bool is_close = false, maybe = false;
        for (size_t t = 0; t < sizeof strip_tags / sizeof strip_tags[0] && !matched; t++) {
            const char *names[2] = { strip_tags[t].open, strip_tags[t].close };
            for (int w = 0; w < 2 && !matched; w++) {
                size_t len = strlen(names[w]);
                if (rest >= len && memcmp(s + (i - off), names[w], len) == 0) {
                    matched = len;
                    is_close = w == 1;
                } else if (rest < len && memcmp(s + (i - off), names[w], rest) == 0) {
                    maybe = true;
                }
            }
        }
        if (matched) {
            if (is_close && out->len && is_js_space((unsigned char)out->data[out->len - 1])) {
                buf_truncate(out, out->len - 1);
                if (out->len < *low)
                    *low = out->len;
                lt_rescan(c, out);
            }
            c->eat_ws = !is_close;
            i += matched;
            continue;
        }
        if (maybe && partial)
            break; /* "<thin": wait for the rest */
        c->has_lt = true;
        c->lt = out->len;
        c->lt_state = LT_OPEN;
        buf_putc(out, '<');
        i++;
    }
    c->in = i;
    c->commit = out->len;
}

/* Cut the view out of the stripped output, keeping what is cut for the next feed. */
static void view_partial(text_cleaner *c, size_t n, buf *out, size_t *low)
{
    size_t k;
    if (c->in < n) /* a tag being written, held back: always cut, as text_clean does */
        k = out->len;
    else if (c->has_lt && lt_cuts(c->lt_state))
        k = c->lt;
    else
        return;
    const char *d = out->data ? out->data : "";
    size_t e = trim_end(d, k);
    size_t st = trim_start(d, e);
    buf_append(&c->tail, d + e, out->len - e);
    if (c->tail.err) {
        out->err = c->tail.err;
        return;
    }
    buf_truncate(out, e);
    if (e < *low)
        *low = e;
    if (st) {
        buf_append(&c->lead, out->data, st);
        if (c->lead.err) {
            out->err = c->lead.err;
            return;
        }
        memmove(out->data, out->data + st, e - st);
        buf_truncate(out, e - st);
        *low = 0;
    }
}

/* The final view: a trailing "```lang" fence left open by the model goes. */
static void view_final(buf *out, size_t *low)
{
    const char *c = out->data ? out->data : "";
    size_t e = trim_end(c, out->len);
    size_t w = e;
    while (w > 0 && (is_word_char((unsigned char)c[w - 1]) ||
                     (c[w - 1] >= '0' && c[w - 1] <= '9') || c[w - 1] == '-'))
        w--;
    if (w < e && w >= 3 && memcmp(c + w - 3, "```", 3) == 0) {
        buf_truncate(out, w - 3);
        if (w - 3 < *low)
            *low = w - 3;
    }
}

void text_cleaner_feed(text_cleaner *c, const char *s, size_t n, bool partial, buf *out,
                       size_t *changed_from)
{
    text_cleaner_feed_from(c, s, 0, n, partial, out, changed_from);
}

void text_cleaner_feed_from(text_cleaner *c, const char *s, size_t off, size_t n, bool partial,
                            buf *out, size_t *changed_from)
{
    size_t low = out->len;
    if (c->verbatim) {
        if (n > c->in)
            buf_append(out, s + (c->in - off), n - c->in);
        c->in = n;
        *changed_from = low;
        return;
    }
    restore(c, out, &low);
    strip_more(c, s, off, n, partial, out, &low);
    if (!out->err && partial)
        view_partial(c, n, out, &low);
    else if (!out->err)
        view_final(out, &low);
    *changed_from = low < out->len ? low : out->len;
}
