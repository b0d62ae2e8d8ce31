/* tagset — tag name sets and the byte-by-byte tag matcher (see tagset.h). */
#include "parse/tagset.h"

#include <stdlib.h>
#include <string.h>

bool tagset_valid_name(const char *name, size_t len)
{
    if (!name || len == 0 || len > TAGSET_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= 0x20 || c == 0x7F || c == '<' || c == '>' || c == '/')
            return false;
    }
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void tagset_release(tagset *t)
{
    if (t->names)
        for (size_t i = 0; i < t->n; i++)
            free(t->names[i]);
    free(t->names);
    free(t->lens);
    memset(t, 0, sizeof *t);
}

hew_code tagset_init(tagset *t, const char *const *names, size_t n, const char *what,
                     hew_err *err)
{
    memset(t, 0, sizeof *t);
    if (n > 4096)
        return hew_err_set(err, HEW_E_INVALID, "too many %ss (%zu, at most 4096)", what, n);
    for (size_t i = 0; i < n; i++)
        if (!names[i] || !tagset_valid_name(names[i], strlen(names[i])))
            return hew_err_set(err, HEW_E_INVALID,
                               "%s %zu (\"%.64s\") is not usable as a tag name: use 1..%d "
                               "bytes without spaces, control bytes, '<', '>' or '/'",
                               what, i + 1, names[i] ? names[i] : "(null)", TAGSET_NAME_MAX);
    t->names = calloc(n ? n : 1, sizeof *t->names);
    t->lens = calloc(n ? n : 1, sizeof *t->lens);
    if (!t->names || !t->lens)
        goto nomem;
    for (size_t i = 0; i < n; i++) {
        t->names[i] = strdup(names[i]);
        if (!t->names[i])
            goto nomem;
        t->n = i + 1;
    }
    qsort(t->names, t->n, sizeof *t->names, cmp_names);
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (w > 0 && strcmp(t->names[w - 1], t->names[i]) == 0) {
            free(t->names[i]);
            continue;
        }
        t->names[w++] = t->names[i];
    }
    t->n = w;
    for (size_t i = 0; i < t->n; i++) {
        t->lens[i] = strlen(t->names[i]);
        if (t->lens[i] > t->maxlen)
            t->maxlen = t->lens[i];
    }
    for (size_t i = 0; i < t->n; i++) {
        unsigned char c = (unsigned char)t->names[i][0];
        if (t->first_hi[c] == 0)
            t->first_lo[c] = (unsigned short)i;
        t->first_hi[c] = (unsigned short)(i + 1);
    }
    return HEW_OK;
nomem:
    tagset_release(t);
    return hew_err_set(err, HEW_E_NOMEM, "out of memory copying the %ss", what);
}

void tagm_start(tagm *m, const tagset *set, const char *fixed, size_t fixed_len)
{
    m->set = set;
    m->fixed = fixed;
    m->fixed_len = fixed ? fixed_len : 0;
    m->lo = 0;
    m->hi = set ? set->n : 0;
    m->fixed_alive = fixed != NULL;
    m->buf[0] = '<';
    m->len = 1;
}

enum tagm_result tagm_step(tagm *m, unsigned char c)
{
    size_t k = m->len - 1; /* name bytes so far */
    if (c == '>') {
        if (m->lo < m->hi && m->set->lens[m->lo] == k && k > 0) {
            m->match = m->lo;
            return TAGM_SET;
        }
        if (m->fixed_alive && k == m->fixed_len)
            return TAGM_FIXED;
        return TAGM_FAIL;
    }
    if (m->lo < m->hi) {
        const tagset *t = m->set;
        if (k == 0) {
            m->lo = t->first_lo[c];
            m->hi = t->first_hi[c];
        } else {
            size_t lo = m->lo, hi = m->hi;
            while (lo < hi && (t->lens[lo] <= k || (unsigned char)t->names[lo][k] < c))
                lo++;
            while (hi > lo && (unsigned char)t->names[hi - 1][k] > c)
                hi--;
            m->lo = lo;
            m->hi = hi;
        }
    }
    if (m->fixed_alive)
        m->fixed_alive = k < m->fixed_len && (unsigned char)m->fixed[k] == c;
    if (m->lo >= m->hi && !m->fixed_alive)
        return TAGM_FAIL;
    m->buf[m->len++] = (char)c;
    return TAGM_MORE;
}
