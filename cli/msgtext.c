/* msgtext — the terminal's copy of a growing message and its sanitised form (see
 * msgtext.h). Never scans the whole text for an update that only appends. */
#include "msgtext.h"

#include <string.h>

void msgtext_init(msgtext *m)
{
    memset(m, 0, sizeof *m);
    m->index = -1;
    termsafe_init(&m->ts);
}

void msgtext_release(msgtext *m)
{
    sbuf_release(&m->raw);
    sbuf_release(&m->safe);
    msgtext_init(m);
}

/* Forget the sanitised form: it is made again from raw[0..). */
static void safe_restart(msgtext *m)
{
    sbuf_reset(&m->safe);
    termsafe_init(&m->ts);
    m->fed = 0;
    m->whole = 0;
    m->nmarks = 0;
}

int msgtext_apply(msgtext *m, long index, size_t off, const char *add, size_t n)
{
    if (index != m->index) {
        sbuf_reset(&m->raw);
        safe_restart(m);
        m->index = index;
        m->same = 0;
    }
    if (off > m->raw.len)
        off = m->raw.len;
    m->raw.len = off;
    if (m->raw.data)
        m->raw.data[off] = '\0';
    if (off < m->same)
        m->same = off;
    sbuf_add(&m->raw, add ? add : "", n);
    if (m->raw.err) {
        msgtext_release(m);
        return -1;
    }
    return 0;
}

/* Go back to a point where raw[0..fed) is unchanged (m->same or before). */
static void safe_rewind(msgtext *m)
{
    if (m->whole) { /* finished: nothing held to go back to */
        safe_restart(m);
        return;
    }
    /* A point kept before the change: what the sanitiser gave up to it depended on
     * raw[0..point) alone. (Not the point where its held bytes began: a CR was decided
     * by the byte after it, which may be the one cut.) */
    while (m->nmarks && m->marks[m->nmarks - 1].raw > m->same)
        m->nmarks--;
    if (!m->nmarks) {
        safe_restart(m);
        return;
    }
    const msgtext_mark *k = &m->marks[--m->nmarks];
    m->fed = k->raw;
    m->safe.len = k->safe;
    if (m->safe.data)
        m->safe.data[k->safe] = '\0';
    m->ts = k->ts;
}

const char *msgtext_safe(msgtext *m, int complete, size_t *len)
{
    if (m->same < m->fed || (m->whole && m->fed < m->raw.len))
        safe_rewind(m);
    if (m->fed < m->raw.len) {
        if (m->nmarks == MSGTEXT_MARKS) {
            memmove(m->marks, m->marks + 1, (MSGTEXT_MARKS - 1) * sizeof m->marks[0]);
            m->nmarks--;
        }
        m->marks[m->nmarks++] = (msgtext_mark){ m->fed, m->safe.len, m->ts };
        termsafe_feed(&m->ts, &m->safe, m->raw.data + m->fed, m->raw.len - m->fed);
        m->fed = m->raw.len;
    }
    if (complete && !m->whole) {
        termsafe_finish(&m->ts, &m->safe);
        m->whole = 1;
        m->nmarks = 0;
    }
    m->same = m->raw.len;
    if (m->safe.err) {
        safe_restart(m);
        m->same = 0;
        return NULL;
    }
    if (len)
        *len = m->safe.len;
    return m->safe.data ? m->safe.data : "";
}

const char *msgtext_raw(const msgtext *m, size_t *len)
{
    if (len)
        *len = m->raw.len;
    return m->raw.data ? m->raw.data : "";
}
