/* syntax — a table-driven lexer that colours code blocks (see syntax.h for why it is
 * written here). One row of `langs` per language family: its names, keywords, quote
 * characters and flags; one loop (syn_line) reads every language with them. */
#include "syntax.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

enum {
    SF_HASH = 1 << 0,     /* '#' starts a comment */
    SF_SLASH = 1 << 1,    /* '//' starts a comment */
    SF_BLOCK = 1 << 2,    /* '/' '*' ... '*' '/' comments, which may span lines */
    SF_TRIPLE = 1 << 3,   /* triple-quoted strings, which may span lines (Python) */
    SF_BACKTICK = 1 << 4, /* `...` strings, which may span lines (JS templates, Go raw) */
    SF_LIFETIME = 1 << 5, /* 'a is a lifetime, not a character (Rust) */
    SF_PREPROC = 1 << 6,  /* '#' first on a line is a directive (C, C++, C#) */
    SF_DASH = 1 << 7,     /* '--' starts a comment (SQL) */
    SF_NOCASE = 1 << 8,   /* keywords in any case (SQL) */
    SF_DIFF = 1 << 9,     /* coloured by each line's first character */
    SF_KEYS = 1 << 10,    /* "key:" / "key =" first on a line is a key (YAML, TOML) */
    SF_JSON = 1 << 11,    /* a string followed by ':' is a key */
    SF_SHELL = 1 << 12,   /* $VAR and ${VAR}; '#' a comment only after a blank */
};

/* What a line leaves open (syn_line's *state). */
enum { ST_CODE, ST_BLOCK, ST_TRIPLE2, ST_TRIPLE1, ST_BACKTICK };

#define C_KEYWORD "\033[35m"
#define C_STRING "\033[32m"
#define C_COMMENT "\033[2;3m"
#define C_NUMBER "\033[33m"
#define C_KEY "\033[36m"
#define C_VAR "\033[36m"
#define C_ADD "\033[32m"
#define C_DEL "\033[31m"
#define C_HUNK "\033[36m"
#define C_HEAD "\033[1m"

struct syn_lang {
    const char *name;
    const char *aliases; /* other names, each followed by a space */
    const char *const *keywords;
    const char *quotes;
    unsigned flags;
};

static const char *const kw_c[] = {
    "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline", "int", "long",
    "NULL", "register", "restrict", "return", "short", "signed", "size_t", "sizeof",
    "static", "struct", "switch", "true", "typedef", "union", "unsigned", "void", "volatile",
    "while", "_Bool", "_Static_assert", "static_assert", "_Thread_local", NULL
};
static const char *const kw_cpp[] = {
    "auto", "bool", "break", "case", "catch", "char", "class", "const", "constexpr",
    "const_cast", "continue", "co_await", "co_return", "decltype", "default", "delete", "do",
    "double", "dynamic_cast", "else", "enum", "explicit", "extern", "false", "final", "float",
    "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
    "noexcept", "nullptr", "operator", "override", "private", "protected", "public",
    "reinterpret_cast", "return", "short", "signed", "sizeof", "static", "static_cast",
    "struct", "switch", "template", "this", "throw", "true", "try", "typedef", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "while", NULL
};
static const char *const kw_csharp[] = {
    "abstract", "as", "async", "await", "base", "bool", "break", "case", "catch", "class",
    "const", "continue", "default", "do", "double", "else", "enum", "false", "finally",
    "float", "for", "foreach", "if", "in", "int", "interface", "internal", "is", "long",
    "namespace", "new", "null", "object", "out", "override", "private", "protected",
    "public", "readonly", "ref", "return", "static", "string", "struct", "switch", "this",
    "throw", "true", "try", "using", "var", "virtual", "void", "while", NULL
};
static const char *const kw_java[] = {
    "abstract", "boolean", "break", "byte", "case", "catch", "char", "class", "const",
    "continue", "default", "do", "double", "else", "enum", "extends", "final", "finally",
    "float", "for", "if", "implements", "import", "instanceof", "int", "interface", "long",
    "new", "null", "package", "private", "protected", "public", "record", "return", "short",
    "static", "super", "switch", "synchronized", "this", "throw", "throws", "true", "false",
    "try", "var", "void", "volatile", "while", NULL
};
static const char *const kw_kotlin[] = {
    "as", "break", "class", "continue", "data", "do", "else", "false", "for", "fun", "if",
    "import", "in", "interface", "is", "null", "object", "override", "package", "private",
    "public", "return", "super", "this", "throw", "true", "try", "val", "var", "when",
    "while", NULL
};
static const char *const kw_js[] = {
    "as", "async", "await", "break", "case", "catch", "class", "const", "continue",
    "debugger", "default", "delete", "do", "else", "enum", "export", "extends", "false",
    "finally", "for", "from", "function", "if", "implements", "import", "in", "instanceof",
    "interface", "let", "new", "null", "of", "private", "protected", "public", "readonly",
    "return", "static", "super", "switch", "this", "throw", "true", "try", "type", "typeof",
    "undefined", "var", "void", "while", "yield", "string", "number", "boolean", "any",
    "unknown", "never", NULL
};
static const char *const kw_go[] = {
    "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
    "false", "for", "func", "go", "goto", "if", "import", "interface", "iota", "map", "nil",
    "package", "range", "return", "select", "struct", "switch", "true", "type", "var",
    "bool", "byte", "error", "int", "int64", "string", "uint", "float64", "rune", NULL
};
static const char *const kw_rust[] = {
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
    "trait", "true", "type", "unsafe", "use", "where", "while", "bool", "char", "str",
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32", "f64",
    "String", "Vec", "Option", "Result", "Some", "None", "Ok", "Err", NULL
};
static const char *const kw_python[] = {
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "self",
    "True", "try", "while", "with", "yield", "match", "case", NULL
};
static const char *const kw_ruby[] = {
    "alias", "and", "begin", "break", "case", "class", "def", "do", "else",
    "elsif", "end", "ensure", "false", "for", "if", "in", "module", "next", "nil", "not",
    "or", "puts", "raise", "redo", "require", "rescue", "retry", "return", "self", "super",
    "then", "true", "undef", "unless", "until", "when", "while", "yield", NULL
};
static const char *const kw_shell[] = {
    "case", "do", "done", "elif", "else", "esac", "exit", "export", "fi", "for", "function",
    "if", "in", "local", "readonly", "return", "select", "set", "shift", "then", "until",
    "while", "echo", "cd", "source", "trap", "unset", NULL
};
static const char *const kw_json[] = { "true", "false", "null", NULL };
static const char *const kw_yaml[] = { "true", "false", "null", "yes", "no", "on", "off",
                                       "True", "False", "None", NULL };
static const char *const kw_sql[] = {
    "select", "from", "where", "insert", "into", "values", "update", "set", "delete",
    "create", "table", "index", "drop", "alter", "add", "join", "left", "right", "inner",
    "outer", "on", "as", "and", "or", "not", "null", "is", "in", "group", "by", "order",
    "having", "limit", "offset", "distinct", "union", "primary", "key", "foreign",
    "references", "default", "unique", "begin", "commit", "rollback", "with", "case",
    "when", "then", "else", "end", "exists", "integer", "text", "varchar", NULL
};
static const char *const kw_none[] = { NULL };

static const struct syn_lang langs[] = {
    { "c", "h ", kw_c, "\"'", SF_SLASH | SF_BLOCK | SF_PREPROC },
    { "cpp", "c++ cc cxx hpp hh hxx ", kw_cpp, "\"'", SF_SLASH | SF_BLOCK | SF_PREPROC },
    { "csharp", "cs c# ", kw_csharp, "\"'", SF_SLASH | SF_BLOCK | SF_PREPROC },
    { "java", "", kw_java, "\"'", SF_SLASH | SF_BLOCK },
    { "kotlin", "kt kts ", kw_kotlin, "\"'", SF_SLASH | SF_BLOCK },
    { "javascript", "js jsx mjs cjs node ", kw_js, "\"'", SF_SLASH | SF_BLOCK | SF_BACKTICK },
    { "typescript", "ts tsx mts ", kw_js, "\"'", SF_SLASH | SF_BLOCK | SF_BACKTICK },
    { "go", "golang ", kw_go, "\"'", SF_SLASH | SF_BLOCK | SF_BACKTICK },
    { "rust", "rs ", kw_rust, "\"'", SF_SLASH | SF_BLOCK | SF_LIFETIME },
    { "python", "py python3 py3 gyp ", kw_python, "\"'", SF_HASH | SF_TRIPLE },
    { "ruby", "rb ", kw_ruby, "\"'", SF_HASH },
    { "shell", "sh bash zsh ksh console shellsession ", kw_shell, "\"'",
      SF_HASH | SF_SHELL },
    { "json", "jsonc json5 ", kw_json, "\"", SF_JSON | SF_SLASH | SF_BLOCK },
    { "yaml", "yml toml ini conf ", kw_yaml, "\"'", SF_HASH | SF_KEYS },
    { "sql", "sqlite postgresql mysql ", kw_sql, "'\"", SF_DASH | SF_BLOCK | SF_NOCASE },
    { "diff", "patch udiff ", kw_none, "", SF_DIFF },
};

const syn_lang *syn_find(const char *name, size_t n)
{
    if (!name || !n || n > 31)
        return NULL;
    for (size_t i = 0; i < sizeof langs / sizeof langs[0]; i++) {
        const struct syn_lang *l = &langs[i];
        if (strlen(l->name) == n && strncasecmp(l->name, name, n) == 0)
            return l;
        for (const char *a = l->aliases; *a;) {
            const char *sp = strchr(a, ' ');
            size_t len = sp ? (size_t)(sp - a) : strlen(a);
            if (len == n && strncasecmp(a, name, n) == 0)
                return l;
            a += len + (sp ? 1 : 0);
        }
    }
    return NULL;
}

const char *syn_name(const syn_lang *l)
{
    return l ? l->name : "";
}

static int ident_start(unsigned char c)
{
    return isalpha(c) || c == '_' || c >= 0x80;
}

static int ident_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c >= 0x80;
}

static int is_keyword(const struct syn_lang *l, const char *s, size_t n)
{
    for (const char *const *k = l->keywords; *k; k++) {
        if (strlen(*k) != n)
            continue;
        if (l->flags & SF_NOCASE ? strncasecmp(*k, s, n) == 0 : memcmp(*k, s, n) == 0)
            return 1;
    }
    return 0;
}

/* The writer: plain bytes are copied in runs, a token is wrapped in its colour. */
struct emit {
    sbuf *out;
    const char *s, *plain;
    size_t from; /* the start of the plain run not yet copied */
};

static void token(struct emit *e, size_t at, size_t end, const char *colour)
{
    if (at > e->from)
        sbuf_add(e->out, e->s + e->from, at - e->from);
    if (end > at) {
        sbuf_puts(e->out, colour);
        sbuf_add(e->out, e->s + at, end - at);
        sbuf_puts(e->out, e->plain);
    }
    e->from = end;
}

/* The end of a string that opened before `i` with quote q (escapes skipped), just after
 * its closing quote, or n with *open set when the line ends first. */
static size_t string_end(const char *s, size_t n, size_t i, char q, int *open)
{
    while (i < n && s[i] != q) {
        if (s[i] == '\\' && i + 1 < n)
            i++; /* an escaped character, the quote included */
        i++;
    }
    *open = i >= n;
    return i >= n ? n : i + 1;
}

static size_t find(const char *s, size_t n, size_t i, const char *what)
{
    size_t w = strlen(what);
    for (; i + w <= n; i++)
        if (memcmp(s + i, what, w) == 0)
            return i;
    return n;
}

static void diff_line(struct emit *e, size_t n)
{
    const char *s = e->s;
    const char *c = NULL;
    if (n >= 3 && (memcmp(s, "+++", 3) == 0 || memcmp(s, "---", 3) == 0))
        c = C_HEAD;
    else if (n && s[0] == '+')
        c = C_ADD;
    else if (n && s[0] == '-')
        c = C_DEL;
    else if (n >= 2 && memcmp(s, "@@", 2) == 0)
        c = C_HUNK;
    else if (n >= 5 && memcmp(s, "diff ", 5) == 0)
        c = C_HEAD;
    if (c)
        token(e, 0, n, c);
}

/* A key first on the line ("name:" in YAML, "name =" in TOML, "[section]"): its end, or 0. */
static size_t key_end(const char *s, size_t n, size_t i)
{
    if (i < n && s[i] == '[') {
        size_t j = i;
        while (j < n && s[j] != ']')
            j++;
        return j < n ? j + 1 : 0;
    }
    size_t j = i;
    while (j < n && (ident_char((unsigned char)s[j]) || s[j] == '-' || s[j] == '.'))
        j++;
    if (j == i)
        return 0;
    size_t k = j;
    while (k < n && s[k] == ' ')
        k++;
    if (k < n && s[k] == ':' && (k + 1 == n || s[k + 1] == ' '))
        return j;
    if (k < n && s[k] == '=')
        return j;
    return 0;
}

void syn_line(sbuf *out, const syn_lang *l, const char *s, size_t n, int *state,
              const char *plain)
{
    struct emit e = { out, s, plain, 0 };
    size_t i = 0;
    if (l->flags & SF_DIFF) {
        diff_line(&e, n);
        token(&e, n, n, "");
        return;
    }
    int open = 0;
    switch (*state) { /* what the last line left open */
    case ST_BLOCK: {
        size_t end = find(s, n, 0, "*/");
        i = end < n ? end + 2 : n;
        token(&e, 0, i, C_COMMENT);
        *state = end < n ? ST_CODE : ST_BLOCK;
        break;
    }
    case ST_TRIPLE2:
    case ST_TRIPLE1: {
        size_t end = find(s, n, 0, *state == ST_TRIPLE2 ? "\"\"\"" : "'''");
        i = end < n ? end + 3 : n;
        token(&e, 0, i, C_STRING);
        *state = end < n ? ST_CODE : *state;
        break;
    }
    case ST_BACKTICK:
        i = string_end(s, n, 0, '`', &open);
        token(&e, 0, i, C_STRING);
        *state = open ? ST_BACKTICK : ST_CODE;
        break;
    default:
        *state = ST_CODE;
    }
    if (*state != ST_CODE) {
        token(&e, n, n, "");
        return;
    }
    size_t lead = i;
    while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
        lead++;
    if ((l->flags & SF_PREPROC) && lead < n && s[lead] == '#' && i == 0) {
        size_t j = lead + 1;
        while (j < n && s[j] == ' ')
            j++;
        while (j < n && ident_char((unsigned char)s[j]))
            j++;
        token(&e, lead, j, C_KEYWORD);
        i = j;
    }
    if ((l->flags & SF_KEYS) && i == 0) {
        size_t k = lead;
        if (k + 1 < n && s[k] == '-' && s[k + 1] == ' ')
            k += 2;
        size_t end = key_end(s, n, k);
        if (end) {
            token(&e, k, end, C_KEY);
            i = end;
        }
    }
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        char next = i + 1 < n ? s[i + 1] : '\0';
        int after_blank = i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t';
        if (((l->flags & SF_SLASH) && c == '/' && next == '/') ||
            ((l->flags & SF_DASH) && c == '-' && next == '-') ||
            ((l->flags & SF_HASH) && c == '#' &&
             (after_blank || !(l->flags & (SF_SHELL | SF_KEYS))))) {
            token(&e, i, n, C_COMMENT);
            return;
        }
        if ((l->flags & SF_BLOCK) && c == '/' && next == '*') {
            size_t end = find(s, n, i + 2, "*/");
            token(&e, i, end < n ? end + 2 : n, C_COMMENT);
            if (end >= n) {
                *state = ST_BLOCK;
                return;
            }
            i = end + 2;
            continue;
        }
        if ((l->flags & SF_TRIPLE) && (c == '"' || c == '\'') && next == (char)c &&
            i + 2 < n && s[i + 2] == (char)c) {
            const char *close = c == '"' ? "\"\"\"" : "'''";
            size_t end = find(s, n, i + 3, close);
            token(&e, i, end < n ? end + 3 : n, C_STRING);
            if (end >= n) {
                *state = c == '"' ? ST_TRIPLE2 : ST_TRIPLE1;
                return;
            }
            i = end + 3;
            continue;
        }
        if ((l->flags & SF_BACKTICK) && c == '`') {
            size_t end = string_end(s, n, i + 1, '`', &open);
            token(&e, i, end, C_STRING);
            if (open) {
                *state = ST_BACKTICK;
                return;
            }
            i = end;
            continue;
        }
        if (c && strchr(l->quotes, c)) {
            if ((l->flags & SF_LIFETIME) && c == '\'' && next != '\\' &&
                !(i + 2 < n && s[i + 2] == '\'')) {
                i++; /* 'a: a lifetime or a label */
                continue;
            }
            size_t end = string_end(s, n, i + 1, (char)c, &open);
            const char *colour = C_STRING;
            if (l->flags & SF_JSON) {
                size_t k = end;
                while (k < n && s[k] == ' ')
                    k++;
                if (k < n && s[k] == ':')
                    colour = C_KEY;
            }
            token(&e, i, end, colour);
            i = end;
            continue;
        }
        if ((l->flags & SF_SHELL) && c == '$' && i + 1 < n) {
            size_t j = i + 1;
            if (s[j] == '{') {
                while (j < n && s[j] != '}')
                    j++;
                j = j < n ? j + 1 : n;
            } else {
                while (j < n && ident_char((unsigned char)s[j]))
                    j++;
            }
            if (j > i + 1) {
                token(&e, i, j, C_VAR);
                i = j;
                continue;
            }
        }
        if (isdigit(c) && (i == 0 || !ident_char((unsigned char)s[i - 1]))) {
            size_t j = i + 1;
            while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '.' || s[j] == '_'))
                j++;
            token(&e, i, j, C_NUMBER);
            i = j;
            continue;
        }
        if (ident_start(c)) {
            size_t j = i + 1;
            while (j < n && ident_char((unsigned char)s[j]))
                j++;
            if (is_keyword(l, s + i, j - i))
                token(&e, i, j, C_KEYWORD);
            i = j;
            continue;
        }
        i++;
    }
    token(&e, n, n, "");
}
