/* sandbox_explain — after a confined command failed, find in what it printed the marks of
 * the sandbox stopping it ("Permission denied", "Read-only file system", "Operation not
 * permitted", "Network is unreachable", curl's "Could not resolve host", Python's
 * PermissionError, …) and say which rule did, in one sentence for the model and the
 * user. Two tables: the patterns (what a line says → what kind of refusal), and the rules
 * (a kind and where its path lies → the sentence). A heuristic over untrusted output: it
 * reads at most SANDBOX_EXPLAIN_SCAN bytes, copies at most a capped path, and must never
 * claim the sandbox when nothing in the output points at it. */
#include "sys/sandbox_int.h"

#include <stdio.h>
#include <string.h>

#define SANDBOX_EXPLAIN_SCAN ((size_t)256 << 10) /* the tail of the output looked at */
#define EXPLAIN_PATH_MAX 512

typedef enum refusal {
    R_FS,      /* a file-system access (path, if one is printed) */
    R_FS_ANY,  /* EPERM: a file or a refused system call, told by the line */
    R_NET,     /* the network */
    R_SETUP,   /* bwrap itself failed */
    R_MISSING, /* "not found": ours only for a hidden path (bwrap covers it with tmpfs) */
} refusal;

static const struct pattern {
    const char *text;
    refusal kind;
} patterns[] = {
    { "bwrap: ", R_SETUP }, /* first: its own messages quote the errors below */
    { "Read-only file system", R_FS },
    { "Permission denied", R_FS },
    { "PermissionError", R_FS },
    { "EACCES", R_FS },
    { "EROFS", R_FS },
    { "Device or resource busy", R_FS }, /* renaming a path the sandbox bound over */
    { "Invalid cross-device link", R_FS }, /* a hard link to a file outside */
    { "Operation not permitted", R_FS_ANY },
    { "permission denied", R_FS_ANY }, /* mount(8) */
    { "must be superuser", R_FS_ANY }, /* mount(8) as a user */
    { "EPERM", R_FS_ANY },
    { "Network is unreachable", R_NET },
    { "Could not resolve host", R_NET },
    { "Failed to connect", R_NET },
    { "Couldn't connect to server", R_NET },
    { "Temporary failure in name resolution", R_NET },
    { "Name or service not known", R_NET },
    { "Address family not supported", R_NET },
    { "getaddrinfo", R_NET },
    { "No such file or directory", R_MISSING },
};

/* Words on an EPERM line that name a system call the filter refuses: the program at the
 * start of the line ("unshare: ...", "mount: ...") or the call ("ptrace(", "PTRACE_"). */
static const struct syscall_word {
    const char *word;
    const char *call; /* as the sentence names it */
} syscall_words[] = {
    { "unshare:", "unshare (new namespaces)" }, { "unshare(", "unshare (new namespaces)" },
    { "strace:", "ptrace" },          { "ptrace(", "ptrace" },
    { "PTRACE_", "ptrace" },          { "gdb:", "ptrace" },
    { "mount:", "mount" },            { "mount(", "mount" },
    { "setns", "setns" },             { "keyctl", "keyctl" },
    { "bpf(", "bpf" },                { "perf_event_open", "perf_event_open" },
    { "io_uring", "io_uring" },       { "socket(", "socket (the network is off)" },
    { "socket:", "socket (the network is off)" },
};

/* Where a path lies, checked in this order. */
typedef enum place {
    P_HIDDEN,
    P_PROCESS, /* /proc/<pid>/…: another process, hew's included */
    P_READONLY,
    P_NO_WRITE_MODE, /* read-only mode: nothing is writable */
    P_OUTSIDE,
    P_UNKNOWN,
    P_NONE, /* no path printed */
} place;

static const char *const place_sentences[] = {
    [P_HIDDEN] = "reading %s was refused: it is hidden from commands in the sandbox (hew's "
                 "data and config)",
    [P_PROCESS] = "reading %s was refused: other processes (hew's included) are out of reach "
                  "in the sandbox",
    [P_READONLY] = "writing %s was refused: it is one of the read-only paths in the "
                   "workspace (hew's control files: %s)",
    [P_NO_WRITE_MODE] = "writing %s was refused: the sandbox is read-only (nothing is writable "
                        "in mode read-only)",
    [P_OUTSIDE] = "writing %s was refused: outside the writable roots (%s)",
    [P_UNKNOWN] = "the sandbox refused access to %s: it allows writing only in the writable "
                  "roots (%s), and hides hew's data and config",
    [P_NONE] = "the sandbox refused an operation%s: it allows writing only in the writable "
               "roots (%s), hides hew's data and config, and refuses ptrace, new namespaces "
               "and mounts",
};

static bool inside(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0)
        return path[0] == '/';
    return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A relative path's first component matches a read-only path's last (".git/hooks/x"). */
static bool relative_readonly(const sandbox *sb, const char *rel)
{
    while (rel[0] == '.' && rel[1] == '/')
        rel += 2;
    size_t n = strcspn(rel, "/");
    for (size_t i = 0; i < sb->n_readonly; i++) {
        const char *b = base_name(sb->readonly[i]);
        if (strlen(b) == n && strncmp(b, rel, n) == 0)
            return true;
    }
    return false;
}

static place where(const sandbox *sb, const char *path)
{
    if (strncmp(path, "/proc/", 6) == 0 && path[6] >= '1' && path[6] <= '9')
        return P_PROCESS;
    if (path[0] == '/') {
        for (size_t i = 0; i < sb->n_hidden; i++)
            if (inside(sb->hidden[i], path))
                return P_HIDDEN;
        for (size_t i = 0; i < sb->n_readonly; i++)
            if (inside(sb->readonly[i], path))
                return P_READONLY;
        if (sb->mode == SANDBOX_READ_ONLY)
            return P_NO_WRITE_MODE;
        for (size_t i = 0; i < sb->n_writable; i++)
            if (inside(sb->writable[i], path))
                return P_UNKNOWN; /* refused inside a root: not a rule we can name */
        return P_OUTSIDE;
    }
    if (relative_readonly(sb, path))
        return P_READONLY;
    return sb->mode == SANDBOX_READ_ONLY ? P_NO_WRITE_MODE : P_UNKNOWN;
}

/* A path-like thing on a line: line[start..start+len). */
struct cand {
    size_t start, len;
};

#define EXPLAIN_CANDS 8

/* The things on a line that look like a path (a quoted string, a word with a '/', a word
 * starting with '.' or '~'; quotes '' "" ‘’ stripped), at most EXPLAIN_CANDS. */
static size_t path_candidates(const char *line, size_t n, struct cand *c, size_t cap)
{
    size_t count = 0, i = 0;
    while (i < n && count < EXPLAIN_CANDS) {
        while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == ':' || line[i] == '(' ||
                         line[i] == '[' || line[i] == ','))
            i++;
        if (i >= n)
            break;
        size_t start = i, len = 0;
        bool quoted = false;
        if (i + 3 <= n && memcmp(line + i, "\xe2\x80\x98", 3) == 0) { /* ‘…’ */
            start = i + 3;
            size_t j = start;
            while (j + 3 <= n && memcmp(line + j, "\xe2\x80\x99", 3) != 0)
                j++;
            len = j + 3 <= n ? j - start : 0;
            i = j + 3 <= n ? j + 3 : n;
            quoted = true;
        } else if (line[i] == '\'' || line[i] == '"') {
            char q = line[i];
            start = ++i;
            while (i < n && line[i] != q)
                i++;
            len = i - start;
            if (i < n)
                i++;
            quoted = true;
        } else {
            while (i < n && !(line[i] == ' ' || line[i] == '\t' || line[i] == ':' ||
                              line[i] == ',' || line[i] == ')'))
                i++;
            len = i - start;
            if (len == 0)
                i++; /* a ')' alone: step over it */
        }
        while (len && (line[start + len - 1] == '.' || line[start + len - 1] == '\''))
            len--; /* a sentence's period, a stray quote */
        if (len && len < cap && !(len == 1 && line[start] == '.') &&
            !memchr(line + start, ' ', len) &&
            (quoted || memchr(line + start, '/', len) || line[start] == '.' ||
             line[start] == '~'))
            c[count++] = (struct cand){ start, len };
    }
    return count;
}

/* The path a line names: a candidate that lies under one of the sandbox's own rules
 * (hidden, a process, a read-only path: "mv: cannot move '.git' to 'x'"), else the last
 * one before the error text at `at` ("touch: cannot touch '/x': Permission denied"),
 * else the first after it ("Permission denied: '/x'"). Empty when none. */
static void find_path(const sandbox *sb, const char *line, size_t n, size_t at, char *out,
                      size_t cap)
{
    struct cand c[EXPLAIN_CANDS];
    size_t count = path_candidates(line, n, c, cap);
    long before = -1, after = -1;
    for (size_t i = 0; i < count; i++) {
        if (c[i].start < at)
            before = (long)i;
        else if (after < 0)
            after = (long)i;
    }
    long pick = before >= 0 ? before : after;
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        memcpy(out, line + c[i].start, c[i].len);
        out[c[i].len] = '\0';
        place p = where(sb, out);
        if (p == P_HIDDEN || p == P_PROCESS || p == P_READONLY)
            return;
    }
    out[0] = '\0';
    if (pick >= 0) {
        memcpy(out, line + c[pick].start, c[pick].len);
        out[c[pick].len] = '\0';
    }
}

static void join_paths(char *const *v, size_t n, buf *b)
{
    for (size_t i = 0; i < n; i++)
        buf_printf(b, "%s%s", i ? ", " : "", v[i]);
    if (n == 0)
        buf_puts(b, "none");
}

/* Where w starts in line[0..n), or n when it is not there. */
static size_t word_at(const char *line, size_t n, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(line + i, w, k) == 0)
            return i;
    return n;
}

static bool has_word(const char *line, size_t n, const char *w)
{
    return word_at(line, n, w) < n;
}

static void explain_fs(const sandbox *sb, const char *path, buf *why)
{
    place p = path[0]                         ? where(sb, path)
              : sb->mode == SANDBOX_READ_ONLY ? P_NO_WRITE_MODE
                                              : P_NONE;
    buf list = BUF_INIT(8192);
    if (p == P_READONLY)
        join_paths(sb->readonly, sb->n_readonly, &list);
    else
        join_paths(sb->writable, sb->n_writable, &list);
    /* every sentence takes the path, then the list (the first two use only the path) */
    buf_printf(why, place_sentences[p], path, list.data ? list.data : "");
    if (p == P_NONE && !sb->network)
        buf_puts(why, "; the network is off");
    buf_release(&list);
}

bool sandbox_explain(const sandbox *sb, const char *output, size_t len, int exit_code,
                     buf *why)
{
    if (!sb || !output || exit_code == 0)
        return false;
    if (len > SANDBOX_EXPLAIN_SCAN) {
        output += len - SANDBOX_EXPLAIN_SCAN;
        len = SANDBOX_EXPLAIN_SCAN;
    }
    const char *p = output, *end = output + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        for (size_t k = 0; k < sizeof patterns / sizeof *patterns; k++) {
            if (!has_word(p, n, patterns[k].text))
                continue;
            refusal kind = patterns[k].kind;
            if (kind == R_NET) {
                if (sb->network)
                    break; /* the network is on: not us */
                buf_puts(why, sb->proxy_port > 0
                                  ? "the network is off in the sandbox: commands reach it only "
                                    "through hew's egress proxy, for the allowed hosts"
                                  : "the network is off in the sandbox");
                return true;
            }
            if (kind == R_SETUP) {
                buf_printf(why, "the sandbox (bwrap) could not be set up: %.*s",
                           (int)(n < 300 ? n : 300), p);
                return true;
            }
            if (kind == R_FS_ANY) {
                for (size_t w = 0; w < sizeof syscall_words / sizeof *syscall_words; w++) {
                    const struct syscall_word *sw = &syscall_words[w];
                    size_t wl = strlen(sw->word);
                    /* "prog:" at the start or after another "prog: "; others anywhere */
                    size_t at = word_at(p, n, sw->word);
                    bool named = at < n && (sw->word[wl - 1] != ':' || at == 0 ||
                                            (at >= 2 && p[at - 1] == ' ' && p[at - 2] == ':'));
                    if (named) {
                        buf_printf(why, "the sandbox refuses %s: no ptrace, new namespaces or "
                                        "mounts%s",
                                   sw->call, sb->network ? "" : ", and no network");
                        return true;
                    }
                }
            }
            char path[EXPLAIN_PATH_MAX];
            find_path(sb, p, n, word_at(p, n, patterns[k].text), path, sizeof path);
            place pl = path[0] ? where(sb, path) : P_UNKNOWN;
            if (kind == R_MISSING && pl != P_HIDDEN && pl != P_PROCESS)
                break; /* a file that is simply not there */
            explain_fs(sb, path, why);
            return true;
        }
        p = nl ? nl + 1 : end;
    }
    return false;
}
