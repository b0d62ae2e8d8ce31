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
