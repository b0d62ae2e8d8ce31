/* frontmatter — reads the `paths:` key of a rule file's YAML front matter (see
 * frontmatter.h). Pure: no I/O. It must never accept a block it only half understood. */
#include "prompt/frontmatter.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BOM "\xEF\xBB\xBF"

typedef struct line {
    const char *s;
    size_t n; /* without the line end (and without a CR before it) */
} line;

/* The line starting at *pos; *pos moves past its end. False at the end of the text. */
static bool next_line(const char *text, size_t len, size_t *pos, line *out)
{
    if (*pos >= len)
        return false;
    const char *s = text + *pos;
    const char *nl = memchr(s, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - s) : len - *pos;
    *pos += n + (nl ? 1 : 0);
    if (n && s[n - 1] == '\r')
        n--;
    *out = (line){ s, n };
    return true;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

static bool is_fence(line l)
{
    const char *s = l.s;
    size_t n = l.n;
    trim(&s, &n);
    return l.n >= 3 && memcmp(l.s, "---", 3) == 0 && n == 3;
}

static bool blank_or_comment(line l)
{
    const char *s = l.s;
    size_t n = l.n;
    trim(&s, &n);
    return n == 0 || s[0] == '#';
}

static hew_code push(frontmatter *fm, size_t *cap, char *item)
{
    if (!item)
        return HEW_E_NOMEM;
    if (fm->npaths == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        char **nv = realloc(fm->paths, ncap * sizeof *nv);
        if (!nv) {
            free(item);
            return HEW_E_NOMEM;
        }
        fm->paths = nv;
        *cap = ncap;
    }
    fm->paths[fm->npaths++] = item;
    return HEW_OK;
}

/* One scalar s[0..n) (already trimmed): plain, 'single' or "double" quoted. In an inline
 * list, stop at an unquoted ',' or ']' (*used gets how many bytes were taken). Returns a
 * new string, or NULL with *bad set (malformed) or not (out of memory). */
static char *scalar(const char *s, size_t n, bool in_list, size_t *used, bool *bad)
{
    *bad = false;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t o = 0, i = 0;
    if (n && (s[0] == '\'' || s[0] == '"')) {
        char q = s[0];
        for (i = 1;; i++) {
            if (i >= n) {
                *bad = true;
                free(out);
                return NULL;
            }
            if (q == '\'' && s[i] == '\'') {
                if (i + 1 < n && s[i + 1] == '\'') {
                    out[o++] = '\'';
                    i++;
                    continue;
                }
                break;
            }
            if (q == '"' && s[i] == '\\' && i + 1 < n) {
                char c = s[++i];
                out[o++] = c == 'n' ? '\n' : c == 't' ? '\t' : c;
                continue;
            }
            if (q == '"' && s[i] == '"')
                break;
            out[o++] = s[i];
        }
        i++; /* past the closing quote */
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i < n && !(in_list && (s[i] == ',' || s[i] == ']')) && s[i] != '#') {
            *bad = true; /* text after a closing quote */
            free(out);
            return NULL;
        }
    } else {
        for (i = 0; i < n; i++) {
            if (in_list && (s[i] == ',' || s[i] == ']'))
                break;
            if (s[i] == '#' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
                break;
            if (in_list && (s[i] == '[' || s[i] == '{')) {
                *bad = true; /* nested lists are not globs */
                free(out);
                return NULL;
            }
            out[o++] = s[i];
        }
        while (o && (out[o - 1] == ' ' || out[o - 1] == '\t'))
            o--;
    }
    out[o] = '\0';
    *used = i;
    return out;
}

static hew_code bad(frontmatter *fm, hew_err *err, size_t lineno, const char *why)
{
    frontmatter_release(fm);
    return hew_err_set(err, HEW_E_INVALID, "front matter line %zu: %s", lineno, why);
}

/* `[a, "b", c]` in s[0..n) (trimmed, starting with '['). */
static hew_code inline_list(frontmatter *fm, size_t *cap, const char *s, size_t n,
                            size_t lineno, hew_err *err)
{
    size_t i = 1;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= n)
            return bad(fm, err, lineno, "unclosed inline list");
        if (s[i] == ']') {
            i++;
            break;
        }
        size_t used = 0;
        bool malformed = false;
        char *item = scalar(s + i, n - i, true, &used, &malformed);
        if (!item)
            return malformed ? bad(fm, err, lineno, "malformed item in the inline list")
                             : hew_err_set(err, HEW_E_NOMEM, "out of memory");
        i += used;
        if (!*item) {
            free(item);
            return bad(fm, err, lineno, "empty item in the inline list");
        }
        if (push(fm, cap, item) != HEW_OK)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i < n && s[i] == ',')
            i++;
        else if (i >= n || s[i] != ']')
            return bad(fm, err, lineno, "unclosed inline list");
    }
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < n && s[i] != '#')
        return bad(fm, err, lineno, "text after the inline list");
    return HEW_OK;
}

/* A line of a block scalar description, appended to it after a space. */
static hew_code fold_line(frontmatter *fm, const char *s, size_t n)
{
    size_t have = fm->description ? strlen(fm->description) : 0;
    char *d = realloc(fm->description, have + n + 2);
    if (!d)
        return HEW_E_NOMEM;
    if (have)
        d[have++] = ' ';
    memcpy(d + have, s, n);
    d[have + n] = '\0';
    fm->description = d;
    return HEW_OK;
}

static bool key_is(const char *s, size_t k, const char *name)
{
    return strlen(name) == k && memcmp(s, name, k) == 0;
}

hew_code frontmatter_parse(const char *text, size_t len, frontmatter *fm, hew_err *err)
{
    *fm = (frontmatter)FRONTMATTER_INIT;
    size_t pos = 0, cap = 0, lineno = 1;
    if (len >= 3 && memcmp(text, BOM, 3) == 0)
        pos = 3;
    line l;
    if (!next_line(text, len, &pos, &l) || !is_fence(l))
        return HEW_OK;
    fm->present = true;
    /* in_paths: inside `paths:` waiting for `- item` lines; in_key: inside another key. */
    bool in_paths = false, in_key = false, seen_paths = false, closed = false;
    bool in_desc = false; /* inside a block scalar description: its lines are folded */
    while (next_line(text, len, &pos, &l)) {
        lineno++;
        if (is_fence(l)) {
            closed = true;
            break;
        }
        if (blank_or_comment(l))
            continue;
        size_t ind = 0;
        while (ind < l.n && (l.s[ind] == ' ' || l.s[ind] == '\t')) {
            if (l.s[ind] == '\t')
                return bad(fm, err, lineno, "tab used for indentation");
            ind++;
        }
        const char *s = l.s + ind;
        size_t n = l.n - ind;
        trim(&s, &n);
        if (in_desc && ind > 0) {
            if (fold_line(fm, s, n) != HEW_OK)
                return hew_err_set(err, HEW_E_NOMEM, "out of memory");
            continue;
        }
        in_desc = false;
        if (s[0] == '-' && (n == 1 || s[1] == ' ')) {
            if (in_key)
                continue; /* an item of a list we skip */
            if (!in_paths)
                return bad(fm, err, lineno, "list item outside a key");
            const char *v = s + 1;
            size_t vn = n - 1;
            trim(&v, &vn);
            size_t used = 0;
            bool malformed = false;
            char *item = scalar(v, vn, false, &used, &malformed);
            if (!item)
                return malformed ? bad(fm, err, lineno, "malformed list item")
                                 : hew_err_set(err, HEW_E_NOMEM, "out of memory");
            if (!*item) {
                free(item);
                return bad(fm, err, lineno, "empty list item");
            }
            if (push(fm, &cap, item) != HEW_OK)
                return hew_err_set(err, HEW_E_NOMEM, "out of memory");
            fm->has_paths = true;
            continue;
        }
        if (ind > 0) {
            if (in_key)
                continue; /* nested content of a skipped key */
            return bad(fm, err, lineno, "indented line outside a key");
        }
        /* key: value */
        size_t k = 0;
        while (k < n && s[k] != ':')
            k++;
        if (k == n || k == 0 || (k + 1 < n && s[k + 1] != ' ' && s[k + 1] != '\t'))
            return bad(fm, err, lineno, "expected `key: value`");
        for (size_t c = 0; c < k; c++)
            if (s[c] == ' ' || s[c] == '"' || s[c] == '\'' || s[c] == '[' || s[c] == '{')
                return bad(fm, err, lineno, "expected `key: value`");
        const char *v = s + k + 1;
        size_t vn = n - k - 1;
        trim(&v, &vn);
        in_paths = in_key = false;
        bool globs = key_is(s, k, "globs");
        if (key_is(s, k, "alwaysApply")) {
            if (vn >= 4 && strncasecmp(v, "true", 4) == 0)
                fm->always_apply = 1;
            else if (vn >= 5 && strncasecmp(v, "false", 5) == 0)
                fm->always_apply = 0;
            continue;
        }
        if (key_is(s, k, "description")) {
            size_t used = 0;
            bool malformed = false;
            if (vn == 0 || v[0] == '|' || v[0] == '>') {
                free(fm->description); /* a block scalar: its lines, folded */
                fm->description = NULL;
                in_desc = true;
                continue;
            }
            char *d = scalar(v, vn, false, &used, &malformed);
            if (!d && !malformed)
                return hew_err_set(err, HEW_E_NOMEM, "out of memory");
            free(fm->description);
            fm->description = d; /* a malformed one is no description */
            continue;
        }
        if (key_is(s, k, "name") && vn && v[0] != '|' && v[0] != '>') {
            size_t used = 0;
            bool malformed = false;
            char *nm = scalar(v, vn, false, &used, &malformed);
            if (!nm && !malformed)
                return hew_err_set(err, HEW_E_NOMEM, "out of memory");
            free(fm->name);
            fm->name = nm; /* a malformed one is no name */
            continue;
        }
        if (!key_is(s, k, "paths") && !globs) {
            in_key = true;
            continue;
        }
        if (seen_paths && !globs)
            return bad(fm, err, lineno, "`paths` given twice");
        seen_paths = seen_paths || !globs;
        if (globs && vn && v[0] != '[' && v[0] != '#') {
            /* Cursor's form: one plain value, globs between commas */
            for (size_t i = 0; i < vn;) {
                size_t e = i;
                while (e < vn && v[e] != ',')
                    e++;
                const char *g = v + i;
                size_t gn = e - i;
                trim(&g, &gn);
                if (gn >= 2 && (g[0] == '"' || g[0] == '\'') && g[gn - 1] == g[0])
                    g++, gn -= 2;
                if (gn) {
                    char *item = strndup(g, gn);
                    if (!item || push(fm, &cap, item) != HEW_OK)
                        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
                }
                i = e + 1;
            }
            fm->has_paths = true;
            continue;
        }
        if (vn == 0 || v[0] == '#') {
            in_paths = true; /* a block list may follow */
        } else if (v[0] == '[') {
            hew_code rc = inline_list(fm, &cap, v, vn, lineno, err);
            if (rc != HEW_OK)
                return rc;
            fm->has_paths = true;
        } else if (v[0] == '{' || v[0] == '|' || v[0] == '>' || v[0] == '&' || v[0] == '*') {
            return bad(fm, err, lineno, "`paths` must be a list of globs");
        } else {
            size_t used = 0;
            bool malformed = false;
            char *item = scalar(v, vn, false, &used, &malformed);
            if (!item)
                return malformed ? bad(fm, err, lineno, "malformed value")
                                 : hew_err_set(err, HEW_E_NOMEM, "out of memory");
            if (push(fm, &cap, item) != HEW_OK)
                return hew_err_set(err, HEW_E_NOMEM, "out of memory");
            fm->has_paths = true;
        }
    }
    if (!closed)
        return bad(fm, err, lineno, "no closing `---` line");
    fm->body = pos;
    return HEW_OK;
}

void frontmatter_release(frontmatter *fm)
{
    for (size_t i = 0; i < fm->npaths; i++)
        free(fm->paths[i]);
    free(fm->paths);
    free(fm->description);
    free(fm->name);
    *fm = (frontmatter)FRONTMATTER_INIT;
}
