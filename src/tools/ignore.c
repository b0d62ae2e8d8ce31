/* ignore — gitignore-syntax pattern sets and the wildcard matcher (see ignore.h). Reads no
 * file except the ignore files it is asked to load; never resolves paths itself beyond
 * checking that an `!include` stays in the workspace. */
#include "tools/ignore.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fs.h"
#include "base/path.h"

#define IGNORE_FILE_MAX ((size_t)1 << 20)
#define INCLUDE_DEPTH_MAX 16

/* How a rule is matched: most gitignore lines are a plain name ("build") or a star and
 * an extension ("*.o"); those are compared directly instead of through wild(), which
 * tries every position for a star (the walks test every file against every rule). */
typedef enum rule_kind {
    RULE_WILD,    /* anything else: wild() */
    RULE_LITERAL, /* no wildcard: the text is the pattern */
    RULE_SUFFIX,  /* "*" then no wildcard, unanchored: the name ends with pattern + 1 */
} rule_kind;

typedef struct rule {
    char *pattern;   /* without '!', leading '/' and trailing '/' */
    bool negate;
    bool dir_only;
    bool anchored;   /* matched against the whole path below base, else the last name */
    rule_kind kind;
} rule;

struct ignore {
    const ignore *parent;
    char *base; /* "" for the root, else "dir/sub" without trailing slash */
    size_t base_len;
    int flags;
    rule *rules;
    size_t nrules, cap;
};

ignore *ignore_new(const ignore *parent, const char *base, int flags)
{
    ignore *ig = calloc(1, sizeof *ig);
    if (!ig)
        return NULL;
    while (base && base[0] == '.' && (base[1] == '/' || base[1] == '\0'))
        base += base[1] ? 2 : 1;
    ig->base = strdup(base ? base : "");
    if (!ig->base) {
        free(ig);
        return NULL;
    }
    ig->base_len = strlen(ig->base);
    while (ig->base_len && ig->base[ig->base_len - 1] == '/')
        ig->base[--ig->base_len] = '\0';
    ig->parent = parent;
    ig->flags = flags;
    return ig;
}

void ignore_free(ignore *ig)
{
    if (!ig)
        return;
    for (size_t i = 0; i < ig->nrules; i++)
        free(ig->rules[i].pattern);
    free(ig->rules);
    free(ig->base);
    free(ig);
}

void ignore_free_chain(ignore *ig)
{
    while (ig) {
        ignore *parent = (ignore *)ig->parent; /* the chain's owner frees it */
        ignore_free(ig);
        ig = parent;
    }
}

bool ignore_is_empty(const ignore *ig)
{
    return !ig || (ig->nrules == 0 && ig->parent == NULL);
}

size_t ignore_rule_count(const ignore *ig)
{
    size_t n = 0;
    for (; ig; ig = ig->parent)
        n += ig->nrules;
    return n;
}

/* ---- wildmatch ------------------------------------------------------------------------ */

enum { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_TO_STARSTAR };

static int fold(int c, int flags)
{
    return (flags & IGNORE_ICASE) ? tolower((unsigned char)c) : (unsigned char)c;
}

static bool posix_class(const char *name, size_t n, unsigned char c)
{
#define IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
    if (IS("alnum")) return isalnum(c);
    if (IS("alpha")) return isalpha(c);
    if (IS("blank")) return c == ' ' || c == '\t';
    if (IS("cntrl")) return iscntrl(c);
    if (IS("digit")) return isdigit(c);
    if (IS("graph")) return isgraph(c);
    if (IS("lower")) return islower(c);
    if (IS("print")) return isprint(c);
    if (IS("punct")) return ispunct(c);
    if (IS("space")) return isspace(c);
    if (IS("upper")) return isupper(c);
    if (IS("xdigit")) return isxdigit(c);
#undef IS
    return false;
}

/* Match one bracket expression at *pp (just after '[') against c; advances *pp past the
 * closing ']'. Returns 1 match, 0 no match, -1 malformed (no closing bracket). */
static int match_class(const char **pp, unsigned char c, int flags)
{
    const char *p = *pp;
    bool negated = false, matched = false;
    if (*p == '!' || *p == '^') {
        negated = true;
        p++;
    }
    int tc = fold(c, flags);
    bool first = true;
    unsigned char prev = 0;
    bool have_prev = false;
    for (;; first = false) {
        if (*p == '\0')
            return -1;
        if (*p == ']' && !first)
            break;
        if (*p == '[' && p[1] == ':') {
            const char *end = strstr(p + 2, ":]");
            if (!end)
                return -1;
            if (posix_class(p + 2, (size_t)(end - p - 2), c) ||
                ((flags & IGNORE_ICASE) && isalpha(c) &&
                 (posix_class(p + 2, (size_t)(end - p - 2), (unsigned char)tolower(c)) ||
                  posix_class(p + 2, (size_t)(end - p - 2), (unsigned char)toupper(c)))))
                matched = true;
            p = end + 2;
            have_prev = false;
            continue;
        }
        if (*p == '-' && have_prev && p[1] && p[1] != ']') {
            p++;
            unsigned char hi = (unsigned char)*p;
            if (hi == '\\' && p[1]) {
                p++;
                hi = (unsigned char)*p;
            }
            if (c >= prev && c <= hi)
                matched = true;
            else if ((flags & IGNORE_ICASE) && isalpha(c)) {
                unsigned char lc = (unsigned char)tolower(c), uc = (unsigned char)toupper(c);
                if ((lc >= prev && lc <= hi) || (uc >= prev && uc <= hi))
                    matched = true;
            }
            p++;
            have_prev = false;
            continue;
        }
        unsigned char lit = (unsigned char)*p;
        if (lit == '\\' && p[1]) {
            p++;
            lit = (unsigned char)*p;
        }
        if (fold(lit, flags) == tc)
            matched = true;
        prev = lit;
        have_prev = true;
        p++;
    }
    *pp = p + 1;
    if (c == '/')
        return 0;
    return matched != negated;
}

static int wild(const char *p, const char *t, const char *pstart, int flags)
{
    for (; *p; p++, t++) {
        if (*t == '\0' && *p != '*')
            return WM_ABORT_ALL;
        switch (*p) {
        case '\\':
            p++;
            if (*p == '\0' || fold(*p, flags) != fold(*t, flags))
                return WM_NOMATCH;
            break;
        case '?':
            if (*t == '/')
                return WM_NOMATCH;
            break;
        case '[': {
            const char *q = p + 1;
            int r = match_class(&q, (unsigned char)*t, flags);
            if (r < 0) { /* no closing bracket: a literal '[' */
                if (*t != '[')
                    return WM_NOMATCH;
                break;
            }
            if (r == 0)
                return WM_NOMATCH;
            p = q - 1;
            break;
        }
        case '*': {
            bool match_slash = false;
            const char *star = p;
            while (p[1] == '*')
                p++;
            p++; /* first char after the stars */
            if (p - star >= 2) {
                if ((star == pstart || star[-1] == '/') && (*p == '\0' || *p == '/')) {
                    /* "**" as a whole segment: "**\/" may also match no directory. */
                    if (*p == '/' && wild(p + 1, t, pstart, flags) == WM_MATCH)
                        return WM_MATCH;
                    match_slash = true;
                }
            }
            if (*p == '\0') {
                if (!match_slash && strchr(t, '/'))
                    return WM_ABORT_TO_STARSTAR;
                return WM_MATCH;
            }
            for (;; t++) {
                if (*t == '\0')
                    return WM_ABORT_ALL;
                int r = wild(p, t, pstart, flags);
                if (r != WM_NOMATCH) {
                    if (!match_slash || r != WM_ABORT_TO_STARSTAR)
                        return r;
                } else if (!match_slash && *t == '/') {
                    return WM_ABORT_TO_STARSTAR;
                }
            }
        }
        default:
            if (fold(*p, flags) != fold(*t, flags))
                return WM_NOMATCH;
            break;
        }
    }
    return *t ? WM_NOMATCH : WM_MATCH;
}

bool ignore_wildmatch(const char *pattern, const char *text, int flags)
{
    return wild(pattern, text, pattern, flags) == WM_MATCH;
}

/* ---- building sets ---------------------------------------------------------------------- */

static rule_kind kind_of(const char *pattern, bool anchored)
{
    if (!strpbrk(pattern, "*?[\\"))
        return RULE_LITERAL;
    if (!anchored && pattern[0] == '*' && pattern[1] && !strpbrk(pattern + 1, "*?[\\"))
        return RULE_SUFFIX;
    return RULE_WILD;
}

hew_code ignore_add_line(ignore *ig, const char *line, hew_err *err)
{
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r')
        n--;
    /* Trailing spaces go unless escaped by a backslash. */
    while (n && line[n - 1] == ' ' && !(n >= 2 && line[n - 2] == '\\'))
        n--;
    if (n == 0 || line[0] == '#')
        return HEW_OK;
    rule r = { 0 };
    const char *s = line;
    if (*s == '!') {
        r.negate = true;
        s++;
        n--;
    } else if (s[0] == '\\' && (s[1] == '!' || s[1] == '#')) {
        s++;
        n--;
    }
    if (n && s[n - 1] == '/' && !(n >= 2 && s[n - 2] == '\\')) {
        r.dir_only = true;
        while (n && s[n - 1] == '/')
            n--;
    }
    if (n == 0)
        return HEW_OK;
    /* An escaped trailing space keeps the space, not the backslash. */
    char *pat = malloc(n + 1);
    if (!pat)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory for an ignore pattern");
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 == n - 1 && s[i + 1] == ' ')
            continue;
        pat[o++] = s[i];
    }
    pat[o] = '\0';
    const char *slash = strchr(pat, '/');
    r.anchored = slash != NULL;
    if (pat[0] == '/')
        memmove(pat, pat + 1, o); /* includes the NUL */
    if (pat[0] == '\0') {
        free(pat);
        return HEW_OK;
    }
    r.pattern = pat;
    r.kind = kind_of(pat, r.anchored);
    if (ig->nrules == ig->cap) {
        size_t ncap = ig->cap ? ig->cap * 2 : 16;
        rule *nr = realloc(ig->rules, ncap * sizeof *nr);
        if (!nr) {
            free(pat);
            return hew_err_set(err, HEW_E_NOMEM, "out of memory for ignore patterns");
        }
        ig->rules = nr;
        ig->cap = ncap;
    }
    ig->rules[ig->nrules++] = r;
    return HEW_OK;
}

/* Add the lines of text[0..len) (a whole ignore file) to the set. */
static hew_code ignore_add_text(ignore *ig, const char *text, size_t len, hew_err *err)
{
    const char *p = text, *end = text + len;
    char small[512];
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *line = n < sizeof small ? small : malloc(n + 1);
        if (!line)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory reading ignore patterns");
        memcpy(line, p, n);
        line[n] = '\0';
        /* Skip a UTF-8 byte order mark on the first line. */
        const char *l = line;
        if (p == text && n >= 3 && memcmp(l, "\xEF\xBB\xBF", 3) == 0)
            l += 3;
        hew_code rc = ignore_add_line(ig, l, err);
        if (line != small)
            free(line);
        if (rc != HEW_OK)
            return rc;
        p += n + 1;
    }
    return HEW_OK;
}

hew_code ignore_new_text(const ignore *parent, const char *base, char *text, size_t len,
                         ignore **out, hew_err *err)
{
    *out = NULL;
    ignore *ig = ignore_new(parent, base ? base : "", 0);
    if (!ig) {
        free(text);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    hew_code rc = ignore_add_text(ig, text, len, err);
    free(text);
    if (rc != HEW_OK) {
        ignore_free(ig);
        return rc;
    }
    *out = ig;
    return HEW_OK;
}

/* Add a .clineignore-style file: its lines, with `!include <path>` lines replaced by the
 * named file's lines (paths relative to the root, confined to it). */
static hew_code add_cline_file(ignore *ig, const char *root, const char *file, int depth,
                               hew_err *err)
{
    char *text = NULL;
    size_t len = 0;
    hew_code rc = fs_read_file(file, IGNORE_FILE_MAX, &text, &len, err);
    if (rc != HEW_OK)
        return rc;
    const char *p = text, *end = text + len;
    while (rc == HEW_OK && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *line = strndup(p, n);
        if (!line) {
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory reading .clineignore");
            break;
        }
        size_t ln = strlen(line);
        while (ln && (line[ln - 1] == '\r' || line[ln - 1] == ' ' || line[ln - 1] == '\t'))
            line[--ln] = '\0';
        if (strncmp(line, "!include ", 9) == 0) {
            const char *inc = line + 9;
            while (*inc == ' ' || *inc == '\t')
                inc++;
            char *resolved = NULL;
            hew_err ierr = HEW_ERR_INIT;
            /* A missing, unreadable or escaping include is skipped, as Cline does. */
            if (*inc && depth < INCLUDE_DEPTH_MAX &&
                path_resolve_in(root, inc, &resolved, &ierr) == HEW_OK &&
                fs_is_file(resolved)) {
                hew_code irc = add_cline_file(ig, root, resolved, depth + 1, &ierr);
                if (irc == HEW_E_NOMEM)
                    rc = hew_err_set(err, irc, "%s", ierr.msg);
            }
            free(resolved);
        } else {
            rc = ignore_add_line(ig, line, err);
        }
        free(line);
        p += n + 1;
    }
    free(text);
    return rc;
}

hew_code ignore_load_cline(const char *root, ignore **out, hew_err *err)
{
    *out = NULL;
    ignore *ig = ignore_new(NULL, "", IGNORE_ICASE);
    if (!ig)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    hew_code rc = ignore_add_line(ig, ".clineignore", err);
    char *file = path_join(root, ".clineignore");
    if (rc == HEW_OK && !file)
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
    if (rc == HEW_OK && fs_is_file(file)) {
        rc = add_cline_file(ig, root, file, 0, err);
        if (rc != HEW_OK && rc != HEW_E_NOMEM) {
            /* An unreadable .clineignore must not open everything up silently. */
            hew_err_wrap(err, "cannot read the workspace's .clineignore");
        }
    }
    free(file);
    if (rc != HEW_OK) {
        ignore_free(ig);
        return rc;
    }
    *out = ig;
    return HEW_OK;
}

/* ---- matching ----------------------------------------------------------------------------- */

static bool same(const char *a, const char *b, int flags)
{
    return (flags & IGNORE_ICASE) ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

static bool rule_matches(const rule *r, const char *text, int flags)
{
    switch (r->kind) {
    case RULE_LITERAL:
        return same(r->pattern, text, flags);
    case RULE_SUFFIX: {
        size_t n = strlen(text), k = strlen(r->pattern + 1);
        return n >= k && same(r->pattern + 1, text + n - k, flags);
    }
    case RULE_WILD:
        break;
    }
    return ignore_wildmatch(r->pattern, text, flags);
}

/* The verdict of one set (no parents): 1 ignore, 0 re-include, -1 no opinion. */
static int decide_one(const ignore *ig, const char *relpath, bool is_dir)
{
    const char *sub = relpath;
    if (ig->base_len) {
        if (strncmp(relpath, ig->base, ig->base_len) != 0 || relpath[ig->base_len] != '/')
            return -1;
        sub = relpath + ig->base_len + 1;
    }
    if (*sub == '\0')
        return -1;
    const char *name = strrchr(sub, '/');
    name = name ? name + 1 : sub;
    for (size_t i = ig->nrules; i-- > 0;) {
        const rule *r = &ig->rules[i];
        if (r->dir_only && !is_dir)
            continue;
        if (rule_matches(r, r->anchored ? sub : name, ig->flags))
            return r->negate ? 0 : 1;
    }
    return -1;
}

int ignore_decide(const ignore *ig, const char *relpath, bool is_dir)
{
    for (; ig; ig = ig->parent) {
        int d = decide_one(ig, relpath, is_dir);
        if (d >= 0)
            return d;
    }
    return -1;
}

bool ignore_match(const ignore *ig, const char *relpath, bool is_dir)
{
    if (!ig)
        return false;
    while (relpath[0] == '.' && relpath[1] == '/')
        relpath += 2;
    if (relpath[0] == '\0' || strcmp(relpath, ".") == 0)
        return false;
    size_t n = strlen(relpath);
    while (n > 1 && relpath[n - 1] == '/') {
        n--;
        is_dir = true;
    }
    char stack[512];
    char *p = n < sizeof stack ? stack : malloc(n + 1);
    if (!p)
        return true; /* cannot decide: err on the side of blocking */
    memcpy(p, relpath, n);
    p[n] = '\0';
    bool ignored = false;
    for (char *s = strchr(p, '/'); s && !ignored; s = strchr(s + 1, '/')) {
        *s = '\0';
        ignored = ignore_decide(ig, p, true) == 1;
        *s = '/';
    }
    if (!ignored)
        ignored = ignore_decide(ig, p, is_dir) == 1;
    if (p != stack)
        free(p);
    return ignored;
}
