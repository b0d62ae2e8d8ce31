/* execute_command — runs a shell command the model asked for (see execute_command.h for
 * the behaviour): approval, `$SHELL -c` through sys/proc, streamed output, head + tail
 * capture, the result text, the registry of commands left running in the background, and
 * the front end's runner (hew_options.cmd_runner: an editor's terminal) for a command that
 * runs without the sandbox.
 * It must never run a command that was not approved, never start a process any other
 * way than through proc, never keep more output than its caps, and never let a command
 * outlive its task. */
#include "tools/execute_command.h"

#include <ctype.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/redact.h"
#include "base/utf8.h"
#include "net/egress.h"
#include "tools/cmdpolicy.h"
#include "sys/ignore.h"
#include "sys/clock.h"
#include "sys/proc.h"
#include "sys/sandbox.h"
#include "sys/sbpolicy.h"
#include "tools/workspace.h"

/* ---- limits ------------------------------------------------------------------------ */

static pthread_mutex_t limits_mu = PTHREAD_MUTEX_INITIALIZER;
static exec_limits limits;
static bool limits_set;

void exec_limits_default(exec_limits *l)
{
    *l = (exec_limits){
        .timeout_s = 30,
        .long_timeout_s = 300,
        .max_timeout_s = 3600,
        .kill_grace_ms = PROC_KILL_GRACE_MS,
        .head_lines = 250,
        .tail_lines = 250,
        .head_bytes = (size_t)32 << 10,
        .tail_bytes = (size_t)32 << 10,
        .update_ms = 100,
    };
}

void execute_command_set_limits(const exec_limits *l)
{
    pthread_mutex_lock(&limits_mu);
    if (l)
        limits = *l;
    else
        exec_limits_default(&limits);
    limits_set = true;
    pthread_mutex_unlock(&limits_mu);
}

static void execute_command_get_limits(exec_limits *l)
{
    pthread_mutex_lock(&limits_mu);
    if (!limits_set) {
        exec_limits_default(&limits);
        limits_set = true;
    }
    *l = limits;
    pthread_mutex_unlock(&limits_mu);
}

/* ---- long commands ------------------------------------------------------------------ */

/* A program and the sub-commands that make it long (NULL: any use of the program). */
struct long_rule {
    const char *prog;
    const char *const *subs;
};

static const char *const js_subs[] = { "install", "i", "ci", "add", "build", "test", "run", NULL };
static const char *const pip_subs[] = { "install", NULL };
static const char *const cargo_subs[] = { "build", "test", "install", "check", "clippy", NULL };
static const char *const go_subs[] = { "build", "test", "install", "get", "mod", NULL };
static const char *const gradle_subs[] = { "build", "test", "assemble", "check", NULL };
static const char *const docker_subs[] = { "build", "compose", "pull", NULL };
static const char *const dotnet_subs[] = { "build", "test", "restore", NULL };
static const char *const bundle_subs[] = { "install", NULL };
static const char *const cmake_subs[] = { "--build", NULL };

static const struct long_rule long_rules[] = {
    { "npm", js_subs },        { "pnpm", js_subs },       { "yarn", js_subs },
    { "bun", js_subs },        { "pip", pip_subs },       { "pip3", pip_subs },
    { "uv", pip_subs },        { "poetry", pip_subs },    { "cargo", cargo_subs },
    { "go", go_subs },         { "mvn", NULL },           { "./mvnw", NULL },
    { "gradle", gradle_subs }, { "./gradlew", gradle_subs }, { "make", NULL },
    { "ninja", NULL },         { "cmake", cmake_subs },   { "ctest", NULL },
    { "pytest", NULL },        { "jest", NULL },          { "vitest", NULL },
    { "tox", NULL },           { "docker", docker_subs }, { "dotnet", dotnet_subs },
    { "bundle", bundle_subs }, { "composer", pip_subs },  { "mix", NULL },
};

/* The next word of s (skipping blanks), into w; returns the rest, or NULL at the end of a
 * chain part (&&, ||, ;, |, newline). */
static const char *next_word(const char *s, char *w, size_t wcap)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s || strchr(";|&\n", *s))
        return NULL;
    size_t n = 0;
    while (*s && !strchr(" \t;|&\n", *s)) {
        if (n + 1 < wcap && *s != '"' && *s != '\'')
            w[n++] = *s;
        s++;
    }
    w[n] = '\0';
    return s;
}

static bool part_is_long(const char *s)
{
    char w[64];
    /* skip VAR=value assignments and wrappers */
    while ((s = next_word(s, w, sizeof w)) != NULL) {
        if (strchr(w, '=') || strcmp(w, "sudo") == 0 || strcmp(w, "time") == 0 ||
            strcmp(w, "env") == 0 || strcmp(w, "npx") == 0 || strcmp(w, "exec") == 0)
            continue;
        break;
    }
    if (!s)
        return false;
    const char *prog = strrchr(w, '/') && strncmp(w, "./", 2) != 0 ? strrchr(w, '/') + 1 : w;
    if (strcmp(prog, "python") == 0 || strcmp(prog, "python3") == 0) {
        char m[64], mod[64];
        const char *r = next_word(s, m, sizeof m);
        if (r && strcmp(m, "-m") == 0 && next_word(r, mod, sizeof mod))
            return strcmp(mod, "pip") == 0 || strcmp(mod, "pytest") == 0;
        return false;
    }
    for (size_t i = 0; i < sizeof long_rules / sizeof long_rules[0]; i++) {
        if (strcmp(prog, long_rules[i].prog) != 0)
            continue;
        if (!long_rules[i].subs)
            return true;
        char sub[64];
        const char *r = s;
        /* the first word that is not an option */
        while ((r = next_word(r, sub, sizeof sub)) != NULL && sub[0] == '-' &&
               strcmp(sub, "--build") != 0)
            ;
        if (!r) /* bare `yarn` / `pnpm` installs */
            return strcmp(prog, "yarn") == 0 || strcmp(prog, "pnpm") == 0;
        for (const char *const *x = long_rules[i].subs; *x; x++)
            if (strcmp(sub, *x) == 0)
                return true;
        return false;
    }
    return false;
}

bool execute_command_is_long(const char *command)
{
    const char *s = command;
    while (s && *s) {
        if (part_is_long(s))
            return true;
        s = strpbrk(s, ";|&\n");
        while (s && *s && strchr(";|&\n", *s))
            s++;
    }
    return false;
}

/* ---- the head + tail capture ------------------------------------------------------------ */

typedef struct outcap {
    size_t head_lines_max, tail_lines_max, head_bytes_max, tail_bytes_max;
    buf head;
    size_t head_lines;
    bool head_full;
    buf tail;                    /* recent bytes after the head, at most 2 × tail_bytes_max */
    unsigned long long total_bytes, total_lines;
    bool last_was_newline;
} outcap;

static void outcap_init(outcap *c, const exec_limits *l)
{
    memset(c, 0, sizeof *c);
    c->head_lines_max = l->head_lines ? l->head_lines : 1;
    c->tail_lines_max = l->tail_lines ? l->tail_lines : 1;
    c->head_bytes_max = l->head_bytes ? l->head_bytes : 1;
    c->tail_bytes_max = l->tail_bytes ? l->tail_bytes : 1;
    buf_init(&c->head, c->head_bytes_max + 8);
    buf_init(&c->tail, 2 * c->tail_bytes_max + 8);
    c->last_was_newline = true;
}

static void outcap_release(outcap *c)
{
    buf_release(&c->head);
    buf_release(&c->tail);
}

static void outcap_append(outcap *c, const char *data, size_t len)
{
    c->total_bytes += len;
    for (size_t i = 0; i < len; i++)
        if (data[i] == '\n')
            c->total_lines++;
    if (len)
        c->last_was_newline = data[len - 1] == '\n';
    while (len && !c->head_full) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) + 1 : len;
        size_t room = c->head_bytes_max - c->head.len;
        if (n > room) {
            size_t cut = utf8_cut(data, n, room);
            buf_append(&c->head, data, cut);
            data += cut;
            len -= cut;
            c->head_full = true;
            break;
        }
        buf_append(&c->head, data, n);
        data += n;
        len -= n;
        if (nl && ++c->head_lines >= c->head_lines_max)
            c->head_full = true;
    }
    if (!len)
        return;
    if (len > 2 * c->tail_bytes_max) {
        data += len - 2 * c->tail_bytes_max;
        len = 2 * c->tail_bytes_max;
    }
    if (c->tail.len + len > 2 * c->tail_bytes_max)
        buf_consume(&c->tail, c->tail.len + len - 2 * c->tail_bytes_max);
    buf_append(&c->tail, data, len);
}

/* The view: head, a notice of what is left out, tail — valid UTF-8, trailing newlines
 * trimmed. Returns true when something was left out. */
static bool outcap_render(const outcap *c, buf *out)
{
    size_t start = out->len;
    utf8_sanitize(c->head.data ? c->head.data : "", c->head.len, out);
    bool cut = false;
    if (c->tail.len) {
        const char *t = c->tail.data;
        size_t tl = c->tail.len, from = 0;
        if (tl > c->tail_bytes_max) {
            from = tl - c->tail_bytes_max;
            const char *nl = memchr(t + from, '\n', tl - from);
            if (nl && (size_t)(nl - t) + 1 < tl)
                from = (size_t)(nl - t) + 1;
            else
                while (from < tl && ((unsigned char)t[from] & 0xC0) == 0x80)
                    from++;
        }
        /* at most tail_lines_max lines: a newline found walking back completes the line
         * after it (the final newline only ends the last line) */
        size_t lines = 0, i = tl - (t[tl - 1] == '\n' ? 1 : 0);
        bool full = false;
        while (i > from) {
            if (t[i - 1] == '\n' && ++lines >= c->tail_lines_max) {
                full = true;
                break;
            }
            i--;
        }
        if (full)
            from = i;
        else if (tl > from)
            lines++; /* the first (maybe partial) line */
        unsigned long long shown = (unsigned long long)c->head.len + (tl - from);
        if (shown < c->total_bytes) {
            cut = true;
            unsigned long long skipped_bytes = c->total_bytes - shown;
            unsigned long long total = c->total_lines + (c->last_was_newline ? 0 : 1);
            unsigned long long kept = c->head_lines + lines;
            unsigned long long skipped_lines = total > kept ? total - kept : 0;
            if (out->len > start && out->data[out->len - 1] != '\n')
                buf_putc(out, '\n');
            buf_printf(out, "\n... (output truncated: %llu lines, %llu bytes not shown) ...\n\n",
                       skipped_lines, skipped_bytes);
        }
        utf8_sanitize(t + from, tl - from, out);
    }
    while (out->len > start && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == '\r'))
        buf_truncate(out, out->len - 1);
    return cut;
}

/* ---- background commands ------------------------------------------------------------ */

typedef struct bgcmd {
    struct bgcmd *next;
    const tool_env *owner;
    char *command;
    proc *p;
    pthread_t thread;
    pthread_mutex_t mu;          /* cap, reported, st, done */
    outcap cap;
    unsigned long long reported; /* total_bytes at the last report */
    proc_status st;
    bool done, reported_end;
} bgcmd;

static pthread_mutex_t bg_mu = PTHREAD_MUTEX_INITIALIZER;
static bgcmd *bg_list;

static void bg_output(void *ud, int stream, const char *data, size_t len)
{
    (void)stream;
    bgcmd *b = ud;
    pthread_mutex_lock(&b->mu);
    outcap_append(&b->cap, data, len);
    pthread_mutex_unlock(&b->mu);
}

static void *bg_main(void *arg)
{
    bgcmd *b = arg;
    proc_status st;
    proc_wait(b->p, &st);
    pthread_mutex_lock(&b->mu);
    b->st = st;
    b->done = true;
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* Hand a running proc (and its capture, moved) to a background thread. false: it could
 * not start (the caller still owns p and cap). */
static bool bg_start(const tool_env *env, const char *command, proc *p, outcap *cap)
{
    bgcmd *b = calloc(1, sizeof *b);
    if (!b)
        return false;
    b->owner = env;
    b->command = strdup(command);
    b->p = p;
    b->cap = *cap;
    b->reported = cap->total_bytes;
    pthread_mutex_init(&b->mu, NULL);
    proc_set_output(p, bg_output, b);
    if (!b->command || pthread_create(&b->thread, NULL, bg_main, b) != 0) {
        proc_set_output(p, NULL, NULL);
        pthread_mutex_destroy(&b->mu);
        free(b->command);
        free(b);
        return false;
    }
    memset(cap, 0, sizeof *cap);
    pthread_mutex_lock(&bg_mu);
    b->next = bg_list;
    bg_list = b;
    pthread_mutex_unlock(&bg_mu);
    return true;
}

size_t execute_command_background_count(const tool_env *env)
{
    size_t n = 0;
    pthread_mutex_lock(&bg_mu);
    for (bgcmd *b = bg_list; b; b = b->next)
        if (b->owner == env)
            n++;
    pthread_mutex_unlock(&bg_mu);
    return n;
}

static void describe_end(const proc_status *st, buf *out)
{
    char tmp[32];
    switch (st->end) {
    case PROC_EXITED:
        buf_printf(out, "exited with code %d", st->exit_code);
        break;
    case PROC_SIGNALED:
        buf_printf(out, "was terminated by signal %s", proc_signal_name(st->signal, tmp, sizeof tmp));
        break;
    case PROC_TIMED_OUT:
        buf_puts(out, "timed out and was stopped");
        break;
    case PROC_ABORTED:
        buf_puts(out, "was stopped because the task was aborted");
        break;
    case PROC_KILLED:
        buf_puts(out, "was stopped");
        break;
    case PROC_RUNNING:
        buf_puts(out, "is still running");
        break;
    }
}

void execute_command_background_report(const tool_env *env, buf *out)
{
    pthread_mutex_lock(&bg_mu);
    for (bgcmd *b = bg_list; b; b = b->next) {
        if (b->owner != env)
            continue;
        pthread_mutex_lock(&b->mu);
        if (b->done && b->reported_end) {
            pthread_mutex_unlock(&b->mu);
            continue;
        }
        proc_status st = b->st;
        if (!b->done)
            st.end = PROC_RUNNING;
        buf_printf(out, "## Background command `%s`\nIt ", b->command);
        describe_end(&st, out);
        buf_puts(out, ".");
        unsigned long long fresh = b->cap.total_bytes - b->reported;
        if (fresh) {
            /* the newest output only: the end of the tail */
            size_t tl = b->cap.tail.len ? b->cap.tail.len : b->cap.head.len;
            const char *t = b->cap.tail.len ? b->cap.tail.data : b->cap.head.data;
            size_t take = fresh < tl ? (size_t)fresh : tl;
            if (take > 4096)
                take = 4096;
            size_t from = tl - take;
            while (from < tl && ((unsigned char)t[from] & 0xC0) == 0x80)
                from++;
            buf_printf(out, " New output%s:\n", fresh > take ? " (the last part)" : "");
            utf8_sanitize(t + from, tl - from, out);
        }
        buf_puts(out, "\n\n");
        b->reported = b->cap.total_bytes;
        if (b->done)
            b->reported_end = true;
        pthread_mutex_unlock(&b->mu);
    }
    pthread_mutex_unlock(&bg_mu);
}

void execute_command_stop_background(const tool_env *env)
{
    bgcmd *mine = NULL;
    pthread_mutex_lock(&bg_mu);
    for (bgcmd **pp = &bg_list; *pp;) {
        bgcmd *b = *pp;
        if (b->owner == env) {
            *pp = b->next;
            b->next = mine;
            mine = b;
        } else {
            pp = &b->next;
        }
    }
    pthread_mutex_unlock(&bg_mu);
    for (bgcmd *b = mine; b; b = b->next)
        proc_kill(b->p);
    while (mine) {
        bgcmd *b = mine;
        mine = b->next;
        pthread_join(b->thread, NULL);
        proc_free(b->p);
        outcap_release(&b->cap);
        pthread_mutex_destroy(&b->mu);
        free(b->command);
        free(b);
    }
}

/* ---- the tool ------------------------------------------------------------------------ */

static const tool_param params[] = {
    { "command", true,
      "The command to run: a valid shell command for the user's system, run in the "
      "workspace directory by the user's shell (`$SHELL -c`). To run it elsewhere, prefix "
      "it with `cd DIR &&`. It runs without a terminal and without input: pass "
      "non-interactive flags (e.g. `--yes`) and avoid commands that wait for the user.",
      "Your command here", NULL },
    { "requires_approval", true,
      "\"true\" when the command may have an impact the user should approve first "
      "(installing or removing packages, deleting or overwriting files, system changes, "
      "network operations, anything with side effects); \"false\" for safe operations "
      "(reading files or directories, running a build or tests, starting a development "
      "server, other non-destructive commands).",
      "true or false", NULL },
    { "timeout", false,
      "Seconds after which the command is stopped (honoured only when every action is "
      "approved automatically). Default: 30, or 300 for installs, builds and tests.",
      "Seconds (optional)", NULL },
};

static bool param_true(const char *v)
{
    if (!v)
        return true;
    while (isspace((unsigned char)*v))
        v++;
    return strncasecmp(v, "false", 5) != 0;
}

static long timeout_param(const char *v, long max)
{
    if (!v)
        return 0;
    char *end;
    long n = strtol(v, &end, 10);
    while (end && isspace((unsigned char)*end))
        end++;
    if (end == v || (end && *end) || n <= 0)
        return 0;
    return n > max ? max : n;
}

const char *execute_command_shell(void)
{
    const char *sh = getenv("SHELL");
    if (sh && sh[0] == '/' && access(sh, X_OK) == 0)
        return sh;
    return "/bin/sh";
}

static const char *shell_path(void)
{
    return execute_command_shell();
}

struct run {
    tool_env *env;
    const char *command;
    outcap cap;
    unsigned long long pending; /* bytes not yet shown */
    bool shown;                 /* an update was sent */
    bool interactive;           /* updates are a non-blocking ask */
    long long last_update;
    int exit_code;              /* the command's, once it exited on its own; -1 before */
    const char *terminal;       /* the front end's name of its run (cmd_runner), or NULL */
    const char *signame;        /* the signal that ended it, by the runner's name, or NULL */
};

static void run_output(void *ud, int stream, const char *data, size_t len)
{
    (void)stream;
    struct run *r = ud;
    outcap_append(&r->cap, data, len);
    r->pending += len;
}

/* Show the output so far: partial 1 (running), 2 (the end of a shown message). */
static void show(struct run *r, int partial)
{
    buf view = BUF_INIT(0);
    outcap_render(&r->cap, &view);
    json_t *data = json_pack("{s:s}", "command", r->command);
    if (r->terminal && *r->terminal)
        json_object_set_new(data, "terminal", json_string(r->terminal));
    if (partial == 2 && r->exit_code >= 0) /* the end: how it exited */
        json_object_set_new(data, "exitCode", json_integer(r->exit_code));
    const char *text = view.data ? view.data : "";
    if (partial == 2 && !r->shown) {
        if (view.len || r->exit_code > 0) /* a failure is shown, output or not */
            r->env->say(r->env, "command_output", text, data, 0);
    } else if (r->interactive) {
        r->env->ask_nowait(r->env, "command_output", text, data, partial, NULL);
    } else {
        r->env->say(r->env, "command_output", text, data, partial);
    }
    if (partial == 1)
        r->shown = true;
    r->pending = 0;
    r->last_update = clock_now_ms();
    json_decref(data);
    buf_release(&view);
}

static void put_output(struct run *r, buf *out, const char *label)
{
    buf view = BUF_INIT(0);
    outcap_render(&r->cap, &view);
    if (view.len)
        buf_printf(out, "\n%s\n%s", label, view.data);
    buf_release(&view);
}

static void put_feedback(tool_env *env, const tool_answer *a, buf *out)
{
    if (!tool_answer_has_message(a))
        return;
    tool_say_feedback(env, a);
    buf_printf(out, "\n\nThe user provided the following feedback:\n<feedback>\n%s\n</feedback>",
               a->text ? a->text : "");
}

static void finish_result(struct run *r, const proc_status *st, long timeout_s, tool_result *out)
{
    char tmp[32];
    buf *t = &out->text;
    switch (st->end) {
    case PROC_EXITED:
        if (st->exit_code == 0)
            buf_puts(t, "Command executed successfully (exit code 0).");
        else
            buf_printf(t, "Command failed with exit code %d.", st->exit_code);
        put_output(r, t, "Output:");
        break;
    case PROC_SIGNALED:
        buf_printf(t, "Command terminated by signal %s.",
                   r->signame ? r->signame : proc_signal_name(st->signal, tmp, sizeof tmp));
        put_output(r, t, "Output:");
        break;
    case PROC_TIMED_OUT:
        buf_printf(t, "Command execution timed out after %ld seconds and was stopped (its "
                      "whole process group was killed).", timeout_s);
        put_output(r, t, "Output so far:");
        break;
    case PROC_KILLED:
        buf_puts(t, "Command cancelled by the user.");
        put_output(r, t, "Output captured before cancellation:");
        break;
    case PROC_ABORTED:
    case PROC_RUNNING:
        buf_puts(t, "Command stopped.");
        put_output(r, t, "Output so far:");
        break;
    }
}

/* Programs that read the files they are given: a command running one of them on a file
 * .clineignore blocks is refused, as the file tools would refuse it (Cline's rule). */
static const char *const file_readers[] = {
    "cat", "tac", "less", "more", "head", "tail", "nl", "grep", "egrep", "fgrep", "rg",
    "awk", "gawk", "sed", "cut", "sort", "uniq", "wc", "od", "xxd", "hexdump", "strings",
    "base64", "bat", "view", "vi", "vim", "nano", "emacs", "diff", "cp", "scp", "file",
};

static bool is_file_reader(const char *word, size_t n)
{
    const char *slash = memrchr(word, '/', n); /* /usr/bin/cat reads like cat */
    if (slash) {
        n -= (size_t)(slash + 1 - word);
        word = slash + 1;
    }
    for (size_t i = 0; i < sizeof file_readers / sizeof file_readers[0]; i++)
        if (strlen(file_readers[i]) == n && memcmp(word, file_readers[i], n) == 0)
            return true;
    return false;
}

/* The first argument of a file-reading program in command that names a file .clineignore
 * blocks, copied into found (relative path); false when there is none (or no ignore file).
 * A light shell reading: words split at white space and at ; | & ( ) < >, quotes removed;
 * enough for what a model writes, and it only ever refuses. */
static bool reads_ignored_file(const char *cwd, const char *command, char *found, size_t cap)
{
    ignore *ig = NULL;
    if (ignore_load_cline(cwd, &ig, NULL) != HEW_OK || !ig)
        return false;
    bool blocked = false, at_program = true, reader = false;
    const char *p = command;
    while (*p && !blocked) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (strchr(";|&()<>", *p)) {
            at_program = *p != '<' && *p != '>';
            if (at_program)
                reader = false;
            p++;
            continue;
        }
        char word[1024];
        size_t n = 0;
        while (*p && !strchr(" \t\n;|&()<>", *p)) {
            if (*p == '\'' || *p == '"') {
                char q = *p++;
                while (*p && *p != q) {
                    if (n + 1 < sizeof word)
                        word[n++] = *p;
                    p++;
                }
                if (*p)
                    p++;
            } else {
                if (n + 1 < sizeof word)
                    word[n++] = *p;
                p++;
            }
        }
        word[n] = '\0';
        if (at_program) {
            reader = is_file_reader(word, n);
            at_program = false;
        } else if (reader && n && word[0] != '-') {
            ws_path wp;
            if (ws_resolve(cwd, word, &wp, NULL) == HEW_OK) {
                if (ws_ignored(ig, &wp, false)) {
                    snprintf(found, cap, "%s", wp.rel);
                    blocked = true;
                }
                ws_path_release(&wp);
            }
        }
    }
    ignore_free(ig);
    return blocked;
}

/* ---- the sandbox ----------------------------------------------------------------------- */

/* The sandbox one command gets (sys/sbpolicy.h decides; this only asks and reports). */
typedef struct confine {
    sandbox_mode mode;
    const sandbox *sb;          /* NULL: unconfined (full access, or it failed) */
    bool failed;                /* the mode is confined but it could not be set up */
    char why[HEW_ERR_MSG_MAX];  /* why it failed */
} confine;

static void confine_pick(tool_env *env, bool by_hand, confine *c)
{
    memset(c, 0, sizeof *c);
    c->mode = sbpolicy_pick(env->sandbox, by_hand);
    hew_err err = HEW_ERR_INIT;
    if (sbpolicy_sandbox(env->sandbox, c->mode, -1, &c->sb, &err) != HEW_OK) {
        c->failed = true;
        snprintf(c->why, sizeof c->why, "%s", err.msg);
    }
}

/* {"mode", "backend", "gaps"} (and "error" when it could not be set up), for events. */
static json_t *confine_json(const confine *c)
{
    const char *gaps = c->sb ? sandbox_gaps(c->sb) : "";
    json_t *o = json_pack("{s:s, s:s, s:s}", "mode", sandbox_mode_name(c->mode), "backend",
                          sandbox_backend_name(c->sb ? sandbox_backend_of(c->sb)
                                                     : SANDBOX_BACKEND_NONE),
                          "gaps", gaps ? gaps : "");
    if (o && c->failed)
        json_object_set_new(o, "error", json_string(c->why));
    return o;
}

/* data for a sandbox message: the command, the reason, the sandbox */
static json_t *sandbox_data(const char *command, const char *reason, const confine *c)
{
    return json_pack("{s:s, s:s, s:o}", "command", command, "reason", reason, "sandbox",
                     confine_json(c));
}

/* Ask to run command without the sandbox (group "sandbox": a person must say yes).
 * HEW_OK with *approved; HEW_E_ABORTED. */
static hew_code ask_unsandboxed(tool_env *env, const char *command, const char *reason,
                                const confine *c, bool *approved)
{
    json_t *data = sandbox_data(command, reason, c);
    tool_answer answer = { .kind = TOOL_ANSWER_NO };
    *approved = false;
    hew_code rc = env->approve(env, "sandbox", false, "command_unsandboxed", data, approved,
                               &answer);
    json_decref(data);
    tool_answer_release(&answer);
    return rc;
}

/* ---- in the front end's terminal ----------------------------------------------------------- */

/* What one call of the runner's output hands over: the whole output so far. */
static void runner_put(void *ud, const char *bytes, size_t n)
{
    if (bytes && n)
        buf_append(ud, bytes, n);
}

/* Ask the runner for the output so far and how the command stands: the capture is rebuilt
 * from it (the runner hands the whole output each time), what grew is pending. The
 * front end's terminal has its own environment, not hew's scrubbed one: secrets in the
 * output (the session's key, MCP values, key shapes: base/redact) are redacted before the
 * model or an event sees them. */
static hew_code runner_poll(const hew_cmd_runner *cr, void *h, struct run *r, const exec_limits *lim,
                            hew_cmd_state *cs, char *msg, size_t msglen)
{
    buf all = BUF_INIT(0);
    memset(cs, 0, sizeof *cs);
    cs->exit_code = -1;
    *msg = '\0';
    hew_code rc = cr->output(cr->ud, h, runner_put, &all, cs, msg, msglen);
    if (rc == HEW_OK && all.err)
        rc = HEW_E_NOMEM;
    if (rc == HEW_OK && all.len && redact_found(all.data, all.len)) {
        buf clean = BUF_INIT(0);
        redact_text(all.data, all.len, &clean);
        buf_release(&all);
        all = clean;
        if (all.err)
            rc = HEW_E_NOMEM;
    }
    if (rc == HEW_OK) {
        unsigned long long was = r->cap.total_bytes;
        outcap_release(&r->cap);
        outcap_init(&r->cap, lim);
        outcap_append(&r->cap, all.data ? all.data : "", all.len);
        if (r->cap.total_bytes != was || cs->truncated)
            r->pending += r->cap.total_bytes > was ? r->cap.total_bytes - was : 1;
    }
    buf_release(&all);
    return rc;
}

/* exec_once for a command without the sandbox when the front end runs commands
 * (env->cmd_runner): started there, its output polled and shown as it comes, stopped
 * through the runner on the timeout or an abort; the same result for the model. */
static hew_code exec_runner(tool_env *env, const char *command, long timeout_s,
                            const exec_limits *lim, tool_result *out, proc_status *st,
                            bool *ended)
{
    const hew_cmd_runner *cr = env->cmd_runner;
    *ended = false;
    memset(st, 0, sizeof *st);
    struct run r = { .env = env, .command = command, .exit_code = -1 };
    outcap_init(&r.cap, lim);
    void *h = NULL;
    char name[128] = "", msg[HEW_ERR_MSG_MAX] = "";
    hew_code rc = cr->start(cr->ud, shell_path(), command, env->cwd, &h, name, sizeof name, msg,
                            sizeof msg);
    if (rc != HEW_OK) {
        outcap_release(&r.cap);
        if (rc == HEW_E_ABORTED || (env->abort && abort_is_set(env->abort)))
            return HEW_E_ABORTED;
        tool_result_error(out, "The command could not be started in the editor's terminal: %s",
                          *msg ? msg : hew_strerror(rc));
        return HEW_OK;
    }
    name[sizeof name - 1] = '\0';
    r.terminal = name;
    ws_read_cache_forget(env, NULL); /* a command may change any file */
    if (name[0]) /* the front end's terminal, at once: the editor shows it live */
        show(&r, 1);
    long long started = clock_now_ms();
    r.last_update = started;
    bool failed = false;
    hew_cmd_state cs;
    st->end = PROC_RUNNING;
    for (;;) {
        rc = runner_poll(cr, h, &r, lim, &cs, msg, sizeof msg);
        if (rc == HEW_E_ABORTED || (env->abort && abort_is_set(env->abort))) {
            cr->kill(cr->ud, h);
            st->end = PROC_ABORTED;
            break;
        }
        if (rc != HEW_OK) {
            cr->kill(cr->ud, h);
            failed = true;
            break;
        }
        if (cs.done) {
            if (cs.exit_code < 0) {
                st->end = PROC_SIGNALED;
                cs.signal[sizeof cs.signal - 1] = '\0';
                r.signame = cs.signal[0] ? cs.signal : "(unknown)";
            } else {
                st->end = PROC_EXITED;
                st->exit_code = cs.exit_code;
            }
            break;
        }
        long long now = clock_now_ms();
        if (now - started >= timeout_s * 1000L) {
            cr->kill(cr->ud, h);
            hew_cmd_state last;
            char m2[HEW_ERR_MSG_MAX];
            (void)runner_poll(cr, h, &r, lim, &last, m2, sizeof m2); /* the output so far */
            st->end = PROC_TIMED_OUT;
            break;
        }
        if (r.pending && now - r.last_update >= lim->update_ms)
            show(&r, 1);
        abort_sleep(env->abort, lim->update_ms > 0 && lim->update_ms < 100 ? lim->update_ms : 100);
    }
    cr->release(cr->ud, h);
    if (st->end == PROC_EXITED)
        r.exit_code = st->exit_code;
    if (r.shown || r.pending || r.exit_code > 0)
        show(&r, 2);
    if (st->end == PROC_ABORTED) {
        outcap_release(&r.cap);
        return HEW_E_ABORTED;
    }
    if (failed) {
        tool_result_error(out, "The editor's terminal failed while the command ran (hew asked "
                               "it to stop the command): %s", *msg ? msg : hew_strerror(rc));
        put_output(&r, &out->text, "Output so far:");
    } else {
        finish_result(&r, st, timeout_s, out);
        *ended = true;
    }
    outcap_release(&r.cap);
    return HEW_OK;
}

/* ---- one run ---------------------------------------------------------------------------- */

/* Run command once under sb (NULL: unconfined): the output streamed to the user, the
 * result into out. *ended: it ended in the foreground (not sent to the background), and
 * then *st is how and *seen the output as the model sees it (for sandbox_explain).
 * HEW_E_ABORTED when the task was aborted; HEW_E_UNSUPPORTED, nothing run and the
 * reason in why (HEW_ERR_MSG_MAX bytes; may be NULL: then an error result), when the
 * child could not be confined as sb says. */
static hew_code exec_once(tool_env *env, const char *command, long timeout_s,
                          const exec_limits *lim, const sandbox *sb, tool_result *out,
                          proc_status *st, buf *seen, bool *ended, char *why)
{
    if (!sb && env->cmd_runner) /* unconfined: the front end's terminal may run it */
        return exec_runner(env, command, timeout_s, lim, out, st, ended);
    *ended = false;
    struct run r = { .env = env, .command = command, .exit_code = -1 };
    outcap_init(&r.cap, lim);
    r.interactive = !env->yolo && env->ask_nowait;
    proc_env penv = PROC_ENV_INIT;
    proc_env_for_command(&penv, env->env_allow);
    if (sb && env->egress) /* the network is off: the allowed hosts through the proxy */
        egress_child_env(env->egress, &penv);
    const char *argv[] = { shell_path(), "-c", command, NULL };
    proc_opts po = {
        .argv = argv,
        .cwd = env->cwd,
        .envp = proc_env_list(&penv),
        .timeout_ms = timeout_s * 1000L,
        .kill_grace_ms = lim->kill_grace_ms,
        .abort = env->abort,
        .on_output = run_output,
        .ud = &r,
        .sandbox = sb,
    };
    proc *p = NULL;
    hew_err err = HEW_ERR_INIT;
    unsigned long long mark = sb && env->egress ? egress_mark(env->egress) : 0;
    hew_code rc = proc_start(&po, &p, &err);
    proc_env_release(&penv);
    if (rc == HEW_E_UNSUPPORTED && sb && why) {
        /* the sandbox could not be applied in the child: the caller decides (never run
         * it unconfined here) */
        outcap_release(&r.cap);
        snprintf(why, HEW_ERR_MSG_MAX, "%s", err.msg);
        return rc;
    }
    if (rc != HEW_OK) {
        outcap_release(&r.cap);
        tool_result_error(out, "The command could not be started: %s", err.msg);
        return HEW_OK;
    }

    /* a command may change any file: earlier reads are no longer known to be current */
    ws_read_cache_forget(env, NULL);
    r.last_update = clock_now_ms();
    tool_answer ans = { .kind = TOOL_ANSWER_YES };
    bool answered = false;
    while (!proc_pump(p, 50)) {
        long long now = clock_now_ms();
        if (now - r.last_update >= lim->update_ms && (r.pending || (r.interactive && !r.shown)))
            show(&r, 1);
        if (r.interactive && r.shown && env->ask_nowait(env, NULL, NULL, NULL, 1, &ans)) {
            answered = true;
            break;
        }
    }

    if (answered && ans.kind != TOOL_ANSWER_NO) {
        /* Proceed while running: the command goes on in the background. */
        show(&r, 2);
        buf *t = &out->text;
        if (ans.kind == TOOL_ANSWER_YES)
            buf_puts(t, "Command is running in the background. You can proceed with other "
                        "tasks. (hew stops it when the task ends.)");
        else
            buf_puts(t, "Command is still running in the background (the user answered "
                        "while it ran; hew stops it when the task ends).");
        put_output(&r, t, "Here's the output so far:");
        put_feedback(env, &ans, t);
        tool_answer_release(&ans);
        if (bg_start(env, command, p, &r.cap)) {
            outcap_release(&r.cap);
            return HEW_OK;
        }
        /* no thread: stop it rather than leave it unread */
        proc_kill(p);
        proc_wait(p, NULL);
        proc_free(p);
        outcap_release(&r.cap);
        buf_puts(t, "\n(hew could not keep it running and stopped it.)");
        return HEW_OK;
    }
    if (answered) { /* no: cancel */
        proc_kill(p);
        proc_wait(p, NULL);
    }

    proc_status_get(p, st);
    proc_free(p);
    if (st->end == PROC_EXITED)
        r.exit_code = st->exit_code;
    if (r.shown || r.pending || r.exit_code > 0)
        show(&r, 2);
    if (st->end == PROC_ABORTED || (env->abort && abort_is_set(env->abort))) {
        tool_answer_release(&ans);
        outcap_release(&r.cap);
        return HEW_E_ABORTED;
    }
    finish_result(&r, st, timeout_s, out);
    if (sb && env->egress) { /* hosts the proxy refused: the model can ask for them */
        buf hosts = BUF_INIT(4096);
        if (egress_blocked_since(env->egress, mark, &hosts) && hosts.len)
            buf_printf(&out->text,
                       "\n\nThe sandbox's network proxy refused: %s (not in the user's "
                       "sandbox.allow_hosts). Ask the user to allow a host if the task needs "
                       "it; do not try other ways to reach it.",
                       hosts.data);
        buf_release(&hosts);
    }
    if (answered)
        put_feedback(env, &ans, &out->text);
    else
        *ended = true;
    if (seen)
        outcap_render(&r.cap, seen);
    tool_answer_release(&ans);
    outcap_release(&r.cap);
    return HEW_OK;
}

/* After a confined run that failed: when the sandbox stopped it, tell the model (which
 * rule, and not to get around it) and the user (a "sandbox_denied" say), then ask once to
 * run it again without the sandbox. HEW_OK (out says what happened) or HEW_E_ABORTED. */
static hew_code after_sandboxed(tool_env *env, const char *command, long timeout_s,
                                const exec_limits *lim, const confine *c,
                                const proc_status *st, const buf *seen, tool_result *out)
{
    if (!c->sb || (st->end == PROC_EXITED && st->exit_code == 0) ||
        (st->end != PROC_EXITED && st->end != PROC_SIGNALED))
        return HEW_OK;
    buf why = BUF_INIT(0);
    int code = st->end == PROC_EXITED ? st->exit_code : 128 + st->signal;
    if (!sandbox_explain(c->sb, seen->data ? seen->data : "", seen->len, code, &why) ||
        !why.len) {
        buf_release(&why);
        return HEW_OK;
    }
    json_t *data = sandbox_data(command, why.data, c);
    env->say(env, "sandbox_denied", why.data, data, 0);
    json_decref(data);
    bool again = false;
    hew_code rc = ask_unsandboxed(env, command, why.data, c, &again);
    if (rc != HEW_OK) {
        buf_release(&why);
        return rc;
    }
    if (!again) {
        buf_printf(&out->text,
                   "\n\nThe sandbox stopped this command: %s. The user confines commands "
                   "to the workspace: do not try to get around the sandbox (another path, "
                   "tool or command to reach the same place). Running it without the "
                   "sandbox needs the user's approval, which was not given; if it is "
                   "needed, say so and why.",
                   why.data);
        out->is_error = true;
        buf_release(&why);
        return HEW_OK;
    }
    /* the user said yes: the same command once more, unconfined */
    tool_result second = { .text = BUF_INIT(0) };
    proc_status st2;
    bool ended = false;
    rc = exec_once(env, command, timeout_s, lim, NULL, &second, &st2, NULL, &ended, NULL);
    buf_truncate(&out->text, 0);
    buf_printf(&out->text,
               "The sandbox stopped the first run (%s); the user allowed running it again "
               "without the sandbox.\n\n%s",
               why.data, second.text.data ? second.text.data : "");
    out->is_error = second.is_error;
    buf_release(&second.text);
    buf_release(&why);
    return rc;
}

/* The sandbox could not be set up (c->failed): never run unconfined silently. The user's
 * own mode fails the command; under auto a person may allow a run without it. */
static hew_code unconfined_or_not(tool_env *env, const char *command, long timeout_s,
                                  const exec_limits *lim, confine *c, tool_result *out)
{
    if (!sbpolicy_is_auto(env->sandbox)) {
        env->say(env, "error", c->why, NULL, 0);
        tool_result_error(out,
                          "The command was not run: hew could not set up the sandbox (mode "
                          "%s) the user chose for commands: %s",
                          sandbox_mode_name(c->mode), c->why);
        return HEW_OK;
    }
    bool unconfined = false;
    hew_code rc = ask_unsandboxed(env, command, c->why, c, &unconfined);
    if (rc != HEW_OK)
        return rc;
    if (!unconfined) {
        tool_result_error(out,
                          "The command was not run: hew could not set up the sandbox for "
                          "commands that run without the user's approval (%s), and running "
                          "it without one needs the user's approval, which was not given.",
                          c->why);
        return HEW_OK;
    }
    proc_status st;
    bool ended = false;
    return exec_once(env, command, timeout_s, lim, NULL, out, &st, NULL, &ended, NULL);
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *command = tool_call_param(call, "command");
    bool requires_approval = param_true(tool_call_param(call, "requires_approval"));
    exec_limits lim;
    execute_command_get_limits(&lim);
    if (!command || !*command) {
        env->mistake(env, true);
        tool_result_error(out, "No command given: call execute_command with a command.");
        return HEW_OK;
    }
    char ignored[512];
    if (reads_ignored_file(env->cwd, command, ignored, sizeof ignored)) {
        ws_blocked_result(env, ignored, out);
        return HEW_OK;
    }

    /* hew's own judgement decides the approval group; the model's requires_approval can
     * only make a command ask, never let one run */
    cmdpolicy_opts cpo = { env->cwd, shell_path(), env->command_allow, env->command_deny };
    cmdpolicy_verdict v;
    cmdpolicy_judge(&cpo, command, &v);
    json_t *policy = json_pack("{s:s, s:s, s:s, s:b}", "decision",
                               cmdpolicy_decision_name(v.decision), "reason", v.reason, "part",
                               v.part, "outside", v.outside);
    if (v.rule[0])
        json_object_set_new(policy, "rule", json_string(v.rule));
    json_t *data = json_pack("{s:s, s:b, s:o}", "command", command, "requires_approval",
                             requires_approval, "policy", policy);
    if (v.decision == CMDPOLICY_DENY) {
        buf say = BUF_INIT(0);
        buf_printf(&say, "refused to run the command: it %s", v.reason);
        env->say(env, "error", say.data, data, 0);
        buf_release(&say);
        json_decref(data);
        tool_result_error(out,
                          "hew refused to run this command: it %s. The user's command rules "
                          "refuse it whatever the approval settings, so it was not run. Do not "
                          "try to reach the same result another way; if it is needed, ask the "
                          "user to run it or to change the rule.",
                          v.reason);
        return HEW_OK;
    }
    bool safe = v.decision == CMDPOLICY_SAFE && !requires_approval;
    const char *group = safe ? "safe_command" : "command";
    bool outside = safe && v.outside;
    /* the sandbox it will get: shown with the command (the event's "sandbox"). Asked by
     * hand or not is known before the approval; sbpolicy_pick decides from it. */
    bool asks = !env->auto_approved || !env->auto_approved(env, group, outside);
    confine cf;
    confine_pick(env, asks, &cf);
    json_object_set_new(data, "sandbox", confine_json(&cf));
    bool approved = false;
    tool_answer answer = { .kind = TOOL_ANSWER_YES };
    hew_code rc = env->approve(env, group, outside, "command", data, &approved, &answer);
    json_decref(data);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        return rc;
    }
    if (!approved) {
        tool_result_printf(out, "The user denied this operation.");
        if (answer.text && *answer.text)
            buf_printf(&out->text,
                       "\nThe user provided the following feedback:\n<feedback>\n%s\n</feedback>",
                       answer.text);
        tool_answer_release(&answer);
        return HEW_OK;
    }
    if (answer.text && *answer.text)
        buf_printf(&out->text, "The user approved the command with this feedback:\n<feedback>\n"
                               "%s\n</feedback>\n\n", answer.text);
    if (answer.by_hand != asks) /* asked, but no person answered (an unattended yes) */
        confine_pick(env, answer.by_hand, &cf);
    tool_answer_release(&answer);
    env->mistake(env, false);

    long timeout_s = env->yolo ? timeout_param(tool_call_param(call, "timeout"), lim.max_timeout_s)
                               : 0;
    if (!timeout_s)
        timeout_s = execute_command_is_long(command) ? lim.long_timeout_s : lim.timeout_s;

    proc_status st;
    buf seen = BUF_INIT(0);
    bool ended = false;
    if (!cf.failed) {
        rc = exec_once(env, command, timeout_s, &lim, cf.sb, out, &st, &seen, &ended, cf.why);
        if (rc == HEW_E_UNSUPPORTED) {
            cf.failed = true;
            cf.sb = NULL;
        } else {
            if (rc == HEW_OK && ended)
                rc = after_sandboxed(env, command, timeout_s, &lim, &cf, &st, &seen, out);
            buf_release(&seen);
            return rc;
        }
    }
    buf_release(&seen);
    return unconfined_or_not(env, command, timeout_s, &lim, &cf, out);
}

const tool_def tool_execute_command = {
    .name = "execute_command",
    .description =
        "Run a command on the user's system (a CLI command for a build, a test run, git, "
        "package managers, file operations the other tools do not cover). Explain what the "
        "command does. Prefer one well-formed command (chained with && when needed) over "
        "scripts; commands run in the workspace directory with no terminal and no input. "
        "Long output is shortened to its start and end. The user may let a long command go "
        "on in the background.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = 0,
    .run = run,
};
