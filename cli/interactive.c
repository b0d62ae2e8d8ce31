/* interactive — `hew` on a terminal: a prompt (lineedit.c), tasks run by the library on
 * their own threads, their events handed over through evq.c and shown by this file on the
 * screen model of screen.c: finished markdown blocks rendered once (mdrender.c), the
 * growing tail live, reasoning dimmed, tool asks as a summary line (and a coloured diff)
 * answered y / n / a / typed feedback, command output as it comes, a status line with a
 * spinner, retries and the cost of each request. Keys typed while a task runs edit an
 * input line of their own (typeahead.c): Enter queues the message, Esc stops the task.
 * Ctrl-C stops what runs and comes back to the prompt; there it clears the line, and
 * twice within 1 s on an empty line leaves; Ctrl-D leaves. Signals reach it only
 * as flags (sigflags.c). Everything on the terminal is written from this thread; it
 * never blocks the task's thread and never includes anything from src/. Every event is
 * sanitised (termsafe) as it comes out of the queue, before any of hew's own styles are
 * added, so nothing from the model, a file, a command or an MCP server drives the
 * terminal. */
#include <errno.h>
#include <jansson.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "approval_view.h"
#include "clockms.h"
#include "complete.h"
#include "config.h"
#include "evq.h"
#include "help_view.h"
#include "imgpaste.h"
#include "lineedit.h"
#include "mdrender.h"
#include "mention.h"
#include "modelname.h"
#include "msgtext.h"
#include "prompt_text.h"
#include "restore_view.h"
#include "sbuf.h"
#include "screen.h"
#include "sigflags.h"
#include "slashcmd.h"
#include "termsafe.h"
#include "typeahead.h"

#define DOUBLE_INT_MS 1000 /* a second Ctrl-C at an empty prompt within this leaves */
#define TICK_MS 100
#define ESC_MS 40    /* an ESC with nothing after it within this is the Esc key */
#define SLICE_MS 8   /* events are handled for at most this long between looks at the keys */
#define DIFF_SHOW_SAY 40

enum stream_kind { K_NONE, K_MD, K_DIM, K_OUT };

struct req {
    long index;
    double cost;
    long long in, out, cache;
    int reported;
};

struct ui {
    const cli_options *co;
    cli_config cfg;
    hew_options base;
    char *model; /* /model NAME (owned), or NULL */
    char mode[8];
    int mode_chosen; /* --plan/--act, the config or /plan, /act: resumed tasks take it */
    int yolo;
    long always; /* AA_* granted with "a" in this session */
    hew_session *session;
    int session_dirty;
    hew_task *task;
    evq *q;
    screen *scr;
    lined *ed;
    int color;
    struct termios tio;
    int tio_saved, live;
    /* the messages' texts, built from the queue's appends and sanitised (msgtext.h):
     * mt the latest streamed one (while a message is streamed, s_index == mt.index),
     * other the latest of the rest */
    msgtext mt, other;
    /* the message being streamed: its sanitised text up to s_committed is on the screen */
    long s_index;
    int s_kind;
    size_t s_committed;
    int s_fence, s_first;
    mdr_open s_open; /* the code block whose lines went up before its end */
    int last_out; /* what was printed last: 0 nothing, K_MD, 2 a line */
    /* a free-form ask waiting for the prompt ("" none) */
    char pending[32];
    const char *hint; /* a line to show above the next prompt, or NULL */
    char *pending_options; /* followup options, as JSON */
    /* the status line */
    char activity[200];
    long long activity_ms, retry_until_ms;
    int retry_k, retry_n;
    unsigned spin;
    /* costs */
    struct req *reqs;
    size_t nreqs, capreqs;
    double session_cost;
    long long session_in, session_out;
    long long ctx_window; /* the session's model's context window (tokens), 0 unknown */
    long long ctx_used;   /* what the last request held of it, with its answer */
    long long last_int_ms;
    char last_id[64]; /* the id of the task that ended last ("" none): /checkpoints etc. */
    int replaying; /* a resumed task's conversation is being replayed */
    long long resume_ms; /* when the resume started: older messages are replayed ones */
    char stopped_id[64]; /* the task Ctrl-C stopped: the next message goes on with it */
    char noted_model[128]; /* the model the unknown-model note was shown for */
    char *continue_text; /* that message, the answer to its resume ask (owned) */
    imgpaste continue_images; /* the images pasted into it (owned; n 0: none) */
    int quit;
    /* typed while a task runs (typeahead.h): the line being typed, and the messages
     * queued with Enter (owned, joined by blank lines; NULL none) to be sent when the
     * task next waits for a message or ends */
    typeahead ta;
    char *queued;
    complete_ctx cc; /* Tab at the prompt (complete.h) */
};

static const char *sgr(const struct ui *u, const char *code)
{
    return u->color ? code : "";
}

/* ---- terminal modes ---------------------------------------------------------------- */

/* While a task runs: no echo, no line buffering (pump reads the keys: typeahead.h),
 * bracketed paste on, Ctrl-C still a signal. */
static void enter_live(struct ui *u)
{
    if (u->live)
        return;
    if (tcgetattr(0, &u->tio) == 0) {
        u->tio_saved = 1;
        struct termios t = u->tio;
        t.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        tcsetattr(0, TCSANOW, &t);
        fputs("\033[?2004h", stdout);
        fflush(stdout);
    }
    u->live = 1;
}

static void leave_live(struct ui *u)
{
    screen_release(u->scr);
    if (!u->live)
        return;
    if (u->tio_saved) {
        tcsetattr(0, TCSANOW, &u->tio);
        fputs("\033[?2004l", stdout);
        fflush(stdout);
    }
    u->live = 0;
}

/* ---- output helpers ------------------------------------------------------------------ */

static void gap(struct ui *u, int kind)
{
    if (u->last_out && (u->last_out != kind || kind == K_MD))
        screen_commit(u->scr, "\n", 1);
    u->last_out = kind;
}

static size_t md_width(const struct ui *u)
{
    size_t w = screen_width(u->scr);
    w = w > 2 ? w - 1 : w;
    return w > 120 ? 120 : w;
}

static void commit_md(struct ui *u, const char *text, size_t n)
{
    sbuf out = SBUF_INIT;
    /* a block begun in lines already shown (commit_open) goes on */
    mdr_opts o = { md_width(u), u->color, NULL, u->s_fence ? &u->s_open : NULL };
    mdr_render(&out, text, n, &o, &u->s_first);
    memset(&u->s_open, 0, sizeof u->s_open);
    if (!out.err)
        screen_commit(u->scr, out.data ? out.data : "", out.len);
    sbuf_release(&out);
}

/* Whole lines of a block too long to wait for: a code block's as it will look. */
static void commit_open(struct ui *u, const char *text, size_t n)
{
    sbuf out = SBUF_INIT;
    mdr_opts o = { md_width(u), u->color, NULL, NULL };
    mdr_render_open(&out, text, n, &o, &u->s_open, &u->s_first);
    u->s_fence = u->s_open.fence;
    if (!out.err)
        screen_commit(u->scr, out.data ? out.data : "", out.len);
    sbuf_release(&out);
}

/* Whole lines shown as they are (reasoning, command output, a code block too long to
 * wait for), in style. */
static void commit_lines(struct ui *u, const char *text, size_t n, const char *style,
                         const char *indent)
{
    sbuf out = SBUF_INIT;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (text + i)) : n - i;
        sbuf_puts(&out, indent);
        sbuf_puts(&out, sgr(u, style));
        sbuf_add(&out, text + i, len);
        sbuf_puts(&out, sgr(u, "\033[0m"));
        sbuf_putc(&out, '\n');
        i += len + 1;
    }
    if (!out.err)
        screen_commit(u->scr, out.data ? out.data : "", out.len);
    sbuf_release(&out);
}

static const char *kind_style(int kind)
{
    return kind == K_DIM ? "\033[2;3m" : kind == K_OUT ? "\033[2m" : "";
}

/* Command output indented; reasoning, without colour to set it apart, behind a bar. */
static const char *kind_indent(const struct ui *u, int kind)
{
    return kind == K_OUT ? "  " : kind == K_DIM && !u->color ? "│ " : "";
}

/* The message being streamed is finished (or replaced): show what is left of it (a
 * message cut off keeps its undecided bytes back, as while it grew: a character cut in
 * two does not show as U+FFFD). */
static void stream_end(struct ui *u)
{
    size_t len = 0;
    const char *t = u->s_kind != K_NONE && u->mt.index == u->s_index
                        ? msgtext_safe(&u->mt, 0, &len)
                        : NULL;
    if (t && u->s_committed < len) {
        const char *rest = t + u->s_committed;
        size_t n = len - u->s_committed;
        if (u->s_kind == K_MD)
            commit_md(u, rest, n);
        else
            commit_lines(u, rest, n, kind_style(u->s_kind), kind_indent(u, u->s_kind));
    }
    u->s_committed = 0;
    u->s_kind = K_NONE;
    u->s_index = -1;
    screen_set_live(u->scr, "", 0, NULL);
}

/* A new version of the streaming message `index`, whose text u->mt holds (its appends
 * applied). Costs what changed since the last version plus the live tail (the text after
 * what is committed), never the whole text: the sanitised text grows by what was
 * appended, and every scan starts at s_committed. A tail rewritten below s_committed
 * leaves the scrollback as it is (what is committed stays) and redraws the live part. */
static void stream_feed(struct ui *u, long index, int kind, int partial, const char *header)
{
    if (u->s_index != index || u->s_kind != kind) {
        stream_end(u);
        u->s_index = index;
        u->s_kind = kind;
        u->s_fence = 0;
        memset(&u->s_open, 0, sizeof u->s_open);
        u->s_first = 1;
        gap(u, kind == K_MD ? K_MD : 2);
        if (header)
            screen_commitf(u->scr, "%s", header);
    }
    size_t len = 0;
    const char *t = u->mt.index == index ? msgtext_safe(&u->mt, !partial, &len) : "";
    if (!t) /* out of memory: nothing more is shown of it */
        return;
    if (u->s_committed > len)
        u->s_committed = len;
    if (!partial) {
        stream_end(u);
        return;
    }
    if (kind == K_MD) {
        int fence = u->s_fence;
        size_t end = mdr_stable_end(t, len, u->s_committed, &fence);
        if (end > u->s_committed) {
            commit_md(u, t + u->s_committed, end - u->s_committed);
            u->s_committed = end;
            u->s_fence = fence;
        }
    }
    /* a tail too long for the live region: its whole lines go up now, as they are */
    size_t max = screen_live_max(u->scr);
    const char *tail = t + u->s_committed;
    size_t tn = len - u->s_committed;
    if (kind != K_MD || screen_live_rows(u->scr, tail, tn) + 1 > max) {
        const char *nl = tn ? memrchr(tail, '\n', tn) : NULL;
        if (nl) {
            size_t upto = (size_t)(nl - t) + 1;
            if (kind == K_MD) {
                commit_open(u, tail, upto - u->s_committed);
            } else {
                commit_lines(u, tail, upto - u->s_committed, kind_style(kind),
                             kind_indent(u, kind));
            }
            u->s_committed = upto;
        }
    }
    const char *indent = len > u->s_committed ? kind_indent(u, kind) : "";
    if (*indent) { /* the live line (no whole line is left) indented as it will be */
        sbuf live = SBUF_INIT;
        sbuf_puts(&live, indent);
        sbuf_add(&live, t + u->s_committed, len - u->s_committed);
        if (!live.err)
            screen_set_live(u->scr, live.data, live.len, kind_style(kind));
        sbuf_release(&live);
    } else {
        screen_set_live(u->scr, t + u->s_committed, len - u->s_committed, kind_style(kind));
    }
}

/* ---- status ---------------------------------------------------------------------------- */

static void set_activity(struct ui *u, const char *what)
{
    if (strcmp(u->activity, what) != 0) {
        snprintf(u->activity, sizeof u->activity, "%s", what);
        u->activity_ms = clockms_mono();
    }
}

/* How much of the model's context window the last request used (its prompt and its
 * answer, which the next one carries), in percent; -1 before any request or when the
 * window is not known. */
static int context_pct(const struct ui *u)
{
    if (u->ctx_window <= 0 || u->ctx_used <= 0)
        return -1;
    long long pct = (u->ctx_used * 100 + u->ctx_window / 2) / u->ctx_window;
    return pct > 999 ? 999 : (int)pct;
}

static void update_status(struct ui *u)
{
    static const char *const frames[] = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" };
    if (!u->task || u->pending[0]) {
        screen_set_status(u->scr, NULL);
        return;
    }
    long long now = clockms_mono();
    char line[400];
    const char *spin = frames[(u->spin++ / 1) % 10];
    if (u->retry_until_ms > now) {
        snprintf(line, sizeof line, "%s%s%s %sretrying in %lld s (%d/%d)  · Ctrl-C to stop%s",
                 sgr(u, "\033[36m"), spin, sgr(u, "\033[0m"), sgr(u, "\033[2m"),
                 (u->retry_until_ms - now + 999) / 1000, u->retry_k, u->retry_n,
                 sgr(u, "\033[0m"));
    } else {
        char ctx[32] = "";
        int pct = context_pct(u);
        if (pct >= 0)
            snprintf(ctx, sizeof ctx, " · %d%% context", pct);
        snprintf(line, sizeof line, "%s%s%s %s%s · %llds%s  · Ctrl-C to stop%s",
                 sgr(u, "\033[36m"), spin, sgr(u, "\033[0m"), sgr(u, "\033[2m"),
                 u->activity[0] ? u->activity : "working", (now - u->activity_ms) / 1000, ctx,
                 sgr(u, "\033[0m"));
    }
    screen_set_status(u->scr, line);
}

/* ---- costs ------------------------------------------------------------------------------ */

static struct req *req_of(struct ui *u, long index)
{
    for (size_t i = 0; i < u->nreqs; i++)
        if (u->reqs[i].index == index)
            return &u->reqs[i];
    if (u->nreqs == u->capreqs) {
        size_t cap = u->capreqs ? u->capreqs * 2 : 16;
        struct req *p = realloc(u->reqs, cap * sizeof *p);
        if (!p)
            return NULL;
        u->reqs = p;
        u->capreqs = cap;
    }
    struct req *r = &u->reqs[u->nreqs++];
    memset(r, 0, sizeof *r);
    r->index = index;
    return r;
}


static void human(char *buf, size_t n, long long v)
{
    if (v >= 1000000)
        snprintf(buf, n, "%.1fM", (double)v / 1e6);
    else if (v >= 10000)
        snprintf(buf, n, "%.1fk", (double)v / 1e3);
    else
        snprintf(buf, n, "%lld", v);
}

static void on_api_req(struct ui *u, const evq_item *it)
{
    json_t *d = it->data_json ? json_loads(it->data_json, 0, NULL) : NULL;
    if (!d)
        return;
    json_t *out = json_object_get(d, "tokensOut");
    if (json_object_get(d, "retryStatus")) {
        json_decref(d);
        return; /* a failed attempt: error_retry says what happens next */
    }
    if (!out && !json_object_get(d, "cancelReason")) {
        set_activity(u, "waiting for the model");
        u->retry_until_ms = 0;
        json_decref(d);
        return;
    }
    struct req *r = req_of(u, it->index);
    if (r && out && !r->reported) {
        r->reported = 1;
        r->in = json_integer_value(json_object_get(d, "tokensIn"));
        r->out = json_integer_value(out);
        r->cache = json_integer_value(json_object_get(d, "cacheReads"));
        json_t *c = json_object_get(d, "cost");
        r->cost = c ? json_number_value(c) : 0;
        json_t *total = json_object_get(d, "tokensTotal"); /* the whole prompt */
        u->ctx_used = (total ? json_integer_value(total)
                             : r->in + r->cache +
                                   json_integer_value(json_object_get(d, "cacheWrites"))) +
                      r->out;
        hew_totals tot; /* the task's own: a resumed task's earlier runs included */
        hew_task_totals(u->task, &tot, NULL);
        double tc = tot.cost;
        char a[32], b[32], k[32];
        human(a, sizeof a, r->in);
        human(b, sizeof b, r->out);
        human(k, sizeof k, r->cache);
        sbuf line = SBUF_INIT;
        sbuf_printf(&line, "%s  ↳ %s in · %s out", sgr(u, "\033[2m"), a, b);
        if (r->cache)
            sbuf_printf(&line, " · %s cached", k);
        if (c)
            sbuf_printf(&line, " · $%.4f (task $%.4f)", r->cost, tc);
        int pct = context_pct(u);
        if (pct >= 0)
            sbuf_printf(&line, " · %d%% context", pct);
        sbuf_printf(&line, "%s\n", sgr(u, "\033[0m"));
        stream_end(u);
        if (!line.err)
            screen_commit(u->scr, line.data, line.len);
        sbuf_release(&line);
    }
    json_decref(d);
}

/* ---- tools -------------------------------------------------------------------------------- */

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Which auto-approve setting an approval belongs to; 0 when "always" is not offered
 * (then *how says what would approve it unasked). */
static long ask_kind(const evq_item *it, const json_t *d, const char **name, const char **how)
{
    *how = "--auto-approve all-commands or /yolo";
    if (json_is_string(json_object_get(d, "controlFile"))) {
        *name = "hew's control files";
        *how = "/yolo (or --yolo)";
        return 0; /* each one asks: "always for file edits" does not cover them */
    }
    if (it->kind == HEW_EV_COMMAND) {
        if (json_is_true(json_object_get(d, "requires_approval"))) {
            *name = "commands the model marks risky";
            return 0; /* only --auto-approve all-commands or /yolo */
        }
        const json_t *policy = json_object_get(d, "policy");
        if (policy && (strcmp(jstr(policy, "decision"), "safe") != 0 ||
                       json_is_true(json_object_get(policy, "outside")))) {
            *name = "commands hew does not judge read-only";
            return 0; /* the policy's verdict, not the model's word */
        }
        *name = "safe commands";
        return AA_COMMANDS;
    }
    const char *tool = jstr(d, "tool");
    if (it->kind == HEW_EV_USE_MCP_SERVER || strstr(tool, "Mcp") || strstr(tool, "mcp")) {
        *name = "MCP tools";
        return AA_MCP;
    }
    if (strcmp(tool, "editedExistingFile") == 0 || strcmp(tool, "newFileCreated") == 0 ||
        strcmp(tool, "fileDeleted") == 0) {
        *name = "file edits";
        return AA_EDIT;
    }
    if (strcmp(tool, "readFile") == 0 || strncmp(tool, "listFiles", 9) == 0 ||
        strcmp(tool, "searchFiles") == 0 || strcmp(tool, "listCodeDefinitionNames") == 0) {
        *name = "reading files";
        return AA_READ;
    }
    *name = "this tool";
    return 0;
}

/* The diff of an edit, cut to `limit` lines (approval_view.c). */
static void diff_lines(struct ui *u, const char *diff, size_t limit, const char *more_hint)
{
    sbuf out = SBUF_INIT;
    approval_diff_render(&out, diff, limit, u->color, more_hint);
    if (!out.err)
        screen_commit(u->scr, out.data ? out.data : "", out.len);
    sbuf_release(&out);
}

/* One line for a tool or a command (and the diff of an edit). */
static void tool_summary(struct ui *u, const evq_item *it, const json_t *d, int asking)
{
    static const struct {
        const char *tool, *verb;
    } verbs[] = {
        { "readFile", "Read" },
        { "newFileCreated", "Create" },
        { "editedExistingFile", "Edit" },
        { "fileDeleted", "Delete" },
        { "listFilesTopLevel", "List" },
        { "listFilesRecursive", "List (recursive)" },
        { "listCodeDefinitionNames", "Definitions in" },
        { "searchFiles", "Search" },
        { "summarizeTask", "Summarised the conversation" },
    };
    stream_end(u);
    gap(u, 2);
    const char *dot = asking ? "\033[33m" : "\033[32m";
    if (it->kind == HEW_EV_COMMAND) {
        screen_commitf(u->scr, "%s●%s %s$ %s%s", sgr(u, dot), sgr(u, "\033[0m"),
                       sgr(u, "\033[1m"), d ? jstr(d, "command") : (it->text ? it->text : ""),
                       sgr(u, "\033[0m"));
        return;
    }
    if (it->kind == HEW_EV_USE_MCP_SERVER) {
        bool resource = strcmp(jstr(d, "type"), "access_mcp_resource") == 0;
        screen_commitf(u->scr, "%s●%s %s%s%s %s %s", sgr(u, dot), sgr(u, "\033[0m"),
                       sgr(u, "\033[1m"), jstr(d, "serverName"), sgr(u, "\033[0m"),
                       resource ? "read" : jstr(d, "toolName"),
                       resource ? jstr(d, "uri") : jstr(d, "arguments"));
        return;
    }
    const char *tool = jstr(d, "tool");
    const char *verb = *tool ? tool : it->type;
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strcmp(tool, verbs[i].tool) == 0)
            verb = verbs[i].verb;
    sbuf line = SBUF_INIT;
    sbuf_printf(&line, "%s●%s %s%s%s %s", sgr(u, dot), sgr(u, "\033[0m"), sgr(u, "\033[1m"),
                verb, sgr(u, "\033[0m"), jstr(d, "path"));
    if (*jstr(d, "regex"))
        sbuf_printf(&line, " /%s/", jstr(d, "regex"));
    if (*jstr(d, "filePattern"))
        sbuf_printf(&line, " (%s)", jstr(d, "filePattern"));
    if (!d && it->text)
        sbuf_printf(&line, " %s", it->text);
    const char *diff = jstr(d, "diff");
    diffstat st;
    approval_diffstat(diff, &st);
    if (*diff)
        approval_stat_text(&line, &st, u->color);
    if (!line.err)
        screen_commitf(u->scr, "%s", line.data);
    sbuf_release(&line);
    if (*diff)
        diff_lines(u, diff, asking ? approval_diff_limit(screen_rows(u->scr)) : DIFF_SHOW_SAY,
                   asking ? " — v shows them all" : NULL);
}

/* An MCP server's answer (its first line, dimmed) or notice ("[server] …"). */
static void mcp_line(struct ui *u, const evq_item *it)
{
    const char *text = it->text ? it->text : "";
    size_t n = strcspn(text, "\n"), shown = n > 200 ? 200 : n;
    while (shown < n && shown > 0 && ((unsigned char)text[shown] & 0xC0) == 0x80)
        shown--; /* never half a character */
    stream_end(u);
    screen_commitf(u->scr, "%s  %s%.*s%s%s", sgr(u, "\033[2m"),
                   it->kind == HEW_EV_MCP_SERVER_RESPONSE ? "→ " : "", (int)shown,
                   text, n > 200 || text[n] ? " …" : "", sgr(u, "\033[0m"));
}

/* ---- asks answered at an inline prompt --------------------------------------------------- */

static void stop_task(struct ui *u, const char *why)
{
    if (u->task)
        hew_task_abort(u->task, why);
    set_activity(u, "stopping");
}

/* Read one answer line under the live output. NULL: interrupted / quit / end of input
 * (*why says which). */
static char *ask_line(struct ui *u, const char *prompt, int *why)
{
    leave_live(u);
    char *line = lined_read(u->ed, prompt, 0, NULL, why);
    if (*why == LINED_CLEARED) /* Ctrl-C while the task waits for this answer: stop it */
        *why = LINED_INTERRUPT;
    if (*why == LINED_INTERRUPT)
        sigflags_take(SIGF_INT);
    if (*why == LINED_QUIT)
        u->quit = 1;
    if (!line && *why != LINED_EOF) {
        /* the cursor is still at the end of the question: the live region (its spinner)
         * starts on a line of its own */
        fputs("\n", stdout);
        fflush(stdout);
    }
    return line;
}

/* What an approval is about, for its prompt line: "Create b.txt", "$ make test" (cut to
 * 60 characters, never in the middle of one). */
static void approval_target(const evq_item *it, const json_t *d, char *out, size_t n)
{
    static const struct {
        const char *tool, *verb;
    } verbs[] = {
        { "newFileCreated", "Create" },      { "editedExistingFile", "Edit" },
        { "fileDeleted", "Delete" },         { "readFile", "Read" },
        { "listFilesTopLevel", "List" },     { "listFilesRecursive", "List" },
        { "searchFiles", "Search" },         { "listCodeDefinitionNames", "Definitions in" },
    };
    char full[400];
    if (it->kind == HEW_EV_COMMAND) {
        snprintf(full, sizeof full, "$ %s", jstr(d, "command"));
    } else if (it->kind == HEW_EV_USE_MCP_SERVER) {
        snprintf(full, sizeof full, "%s %s", jstr(d, "serverName"), jstr(d, "toolName"));
    } else {
        const char *tool = jstr(d, "tool"), *verb = *tool ? tool : it->type;
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
            if (strcmp(tool, verbs[i].tool) == 0)
                verb = verbs[i].verb;
        snprintf(full, sizeof full, "%s %s", verb, jstr(d, "path"));
    }
    full[strcspn(full, "\n")] = '\0';
    size_t len = strlen(full), cut = len > 60 ? 60 : len;
    while (cut < len && cut > 0 && ((unsigned char)full[cut] & 0xC0) == 0x80)
        cut--;
    snprintf(out, n, "%.*s%s", (int)cut, full, cut < len ? "…" : "");
}

static void error_line(struct ui *u, const char *mark, const char *text);

/* The labels of the images pasted into a message ("[image: shot.png 40x30]"), under it. */
static void show_pasted(struct ui *u, const imgpaste *p)
{
    for (int i = 0; i < p->n; i++) {
        char *safe = termsafe_dup(p->labels[i], 1); /* a file's name may hold anything */
        if (safe)
            screen_commitf(u->scr, "  %s%s%s", sgr(u, "\033[2m"), safe, sgr(u, "\033[0m"));
        free(safe);
    }
    if (p->dropped)
        screen_commitf(u->scr, "  %s(%d more image%s left as text: a message takes at most "
                               "%d)%s", sgr(u, "\033[2m"), p->dropped,
                       p->dropped == 1 ? "" : "s", HEW_TASK_IMAGES_MAX, sgr(u, "\033[0m"));
}

/* Answer the waiting ask with text and the images pasted into the line (p NULL or none:
 * text only). 0 answered; -1 the images were refused (not an image hew can send, a model
 * that reads none): said on the screen, and the ask still waits. */
/* An image the library refused (err quotes a file name): said on the screen. -1. */
static int image_refused(struct ui *u, const char *err)
{
    char *safe = termsafe_dup(err, 1);
    error_line(u, "✗", safe ? safe : err);
    free(safe);
    return -1;
}

static int answer_with(struct ui *u, hew_answer a, const char *text, const imgpaste *p)
{
    if (!p || p->n == 0) {
        hew_task_respond(u->task, a, text);
        return 0;
    }
    char err[512] = "";
    if (hew_task_respond_with_images(u->task, a, text, p->images, (size_t)p->n, err,
                                     sizeof err) == HEW_OK)
        return 0;
    return image_refused(u, err);
}

/* Whether the images pasted into a line can be sent to the session's model (checked
 * whole: hew_images_check); refused, said on the screen. Before a stopped task is resumed
 * with them, so that a bad image leaves it untouched. */
static int images_ok(struct ui *u, const imgpaste *p)
{
    char err[512] = "";
    if (!u->session ||
        hew_images_check(u->session, p->images, (size_t)p->n, err, sizeof err) == HEW_OK)
        return 1;
    image_refused(u, err);
    return 0;
}

static void approval(struct ui *u, const evq_item *it, const json_t *d)
{
    const char *kind_name = "", *kind_how = "";
    long bit = ask_kind(it, d, &kind_name, &kind_how);
    tool_summary(u, it, d, !(u->yolo || (bit && (u->always & bit))));
    if (u->yolo || (bit && (u->always & bit))) {
        hew_task_respond(u->task, HEW_ANSWER_YES, NULL);
        return;
    }
    const char *reason = jstr(json_object_get(d, "policy"), "reason");
    if (it->kind == HEW_EV_COMMAND && *reason) /* why hew asks */
        screen_commitf(u->scr, "  %s%s%s", sgr(u, "\033[2m"), reason, sgr(u, "\033[0m"));
    const char *diff = jstr(d, "diff");
    diffstat st;
    approval_diffstat(diff, &st);
    int more = st.lines > approval_diff_limit(screen_rows(u->scr)); /* v shows them all */
    char what[160];
    approval_target(it, d, what, sizeof what);
    char prompt[600];
    snprintf(prompt, sizeof prompt,
             "  \1%s\1Allow?\1%s\1 %s%s%s · y yes · n no%s%s%s · or type what to do instead › ",
             sgr(u, "\033[1;33m"), sgr(u, "\033[0m"), sgr(u, "\033[1m"), what, sgr(u, "\033[0m"),
             bit ? " · a always for " : "", bit ? kind_name : "", more ? " · v all lines" : "");
    int denied = 0;
    for (;;) {
        int why;
        char *line = ask_line(u, prompt, &why);
        if (!line) {
            if (why == LINED_EOF) {
                hew_task_respond(u->task, HEW_ANSWER_NO, NULL);
            } else {
                stop_task(u, "interrupted by the user"); /* not the first of two */
            }
            break;
        }
        const char *l = line;
        while (*l == ' ')
            l++;
        if (!*l) {
            free(line);
            continue;
        }
        if (strcmp(l, "y") == 0 || strcmp(l, "yes") == 0 || strcmp(l, "Y") == 0) {
            hew_task_respond(u->task, HEW_ANSWER_YES, NULL);
        } else if (strcmp(l, "n") == 0 || strcmp(l, "no") == 0 || strcmp(l, "N") == 0) {
            hew_task_respond(u->task, HEW_ANSWER_NO, NULL);
            denied = 1;
        } else if (more && (strcmp(l, "v") == 0 || strcmp(l, "V") == 0)) {
            /* the whole diff into the scrollback (scroll back or use the terminal's
             * search to read it), then the same question again */
            screen_commitf(u->scr, "%s── all %zu lines of the diff ──%s", sgr(u, "\033[2m"),
                           st.lines, sgr(u, "\033[0m"));
            diff_lines(u, diff, (size_t)-1, NULL);
            screen_draw(u->scr);
            free(line);
            continue;
        } else if (strcmp(l, "a") == 0 || strcmp(l, "always") == 0) {
            if (!bit) {
                screen_commitf(u->scr, "  %s\"always\" is not offered for %s — use %s%s",
                               sgr(u, "\033[2m"), kind_name, kind_how, sgr(u, "\033[0m"));
                screen_draw(u->scr);
                free(line);
                continue;
            }
            u->always |= bit;
            screen_commitf(u->scr, "  %sapproved: %s from now on, in this session%s",
                           sgr(u, "\033[2m"), kind_name, sgr(u, "\033[0m"));
            hew_task_respond(u->task, HEW_ANSWER_YES, NULL);
        } else {
            /* feedback instead: images pasted into it go with it, after the tool's result */
            lined_remember(u->ed, l);
            imgpaste pasted;
            int scanned = imgpaste_scan(l, &pasted) == 0;
            if (scanned)
                show_pasted(u, &pasted);
            if (answer_with(u, HEW_ANSWER_NO, scanned ? pasted.text : l,
                            scanned ? &pasted : NULL) != 0) {
                imgpaste_release(&pasted); /* refused: the same question again */
                free(line);
                continue;
            }
            imgpaste_release(&pasted);
            denied = 2;
        }
        free(line);
        break;
    }
    if (denied) /* the summary above says what was asked: this, that it did not happen */
        screen_commitf(u->scr, "  %s✗ denied%s%s", sgr(u, "\033[31m"),
                       denied == 2 ? " — your words go to the model instead" : "",
                       sgr(u, "\033[0m"));
    set_activity(u, "working");
    enter_live(u);
}

/* yes / no asks that are not approvals (a failed request: retry?) */
static void yes_no(struct ui *u, const char *question)
{
    char prompt[300];
    snprintf(prompt, sizeof prompt, "  \1%s\1%s\1%s\1 [y/n] › ", sgr(u, "\033[1;33m"), question,
             sgr(u, "\033[0m"));
    for (;;) {
        int why;
        char *line = ask_line(u, prompt, &why);
        if (!line) {
            if (why == LINED_EOF)
                hew_task_respond(u->task, HEW_ANSWER_NO, NULL);
            else
                stop_task(u, "interrupted by the user");
            break;
        }
        int yes = line[0] == 'y' || line[0] == 'Y';
        int no = line[0] == 'n' || line[0] == 'N';
        free(line);
        if (yes || no) {
            hew_task_respond(u->task, yes ? HEW_ANSWER_YES : HEW_ANSWER_NO, NULL);
            break;
        }
    }
    set_activity(u, "waiting for the model");
    enter_live(u);
}

/* ---- events ------------------------------------------------------------------------------- */

static int is(const evq_item *it, hew_event_kind kind)
{
    return it->kind == kind;
}

static void error_line(struct ui *u, const char *mark, const char *text)
{
    stream_end(u);
    gap(u, 2);
    screen_commitf(u->scr, "%s%s %s%s", sgr(u, "\033[31m"), mark, text ? text : "",
                   sgr(u, "\033[0m"));
}

/* The items whose text goes to the stream (stream_feed) as it grows: as handle_event
 * sends them there. */
static int streamed(const evq_item *it)
{
    return (is(it, HEW_EV_TEXT) && !it->is_ask) || is(it, HEW_EV_REASONING) ||
           is(it, HEW_EV_COMMAND_OUTPUT) || (is(it, HEW_EV_COMPLETION_RESULT) && !it->is_ask) ||
           (is(it, HEW_EV_PLAN_MODE_RESPOND) && it->is_ask) ||
           (is(it, HEW_EV_NEW_TASK) && it->is_ask);
}

/* The event's payload strings made safe to show (termsafe.h), and its append applied to
 * the terminal's copy of the message (u->mt for a streamed one, u->other for the rest).
 * A streamed message is read from there as it grows; any other item gets its whole
 * sanitised text as it->text once complete (a partial one gets none: nothing shows its
 * text before it is complete). */
static void take_event_text(struct ui *u, evq_item *it, json_t *d)
{
    termsafe_json(d);
    if (!it->text)
        return;
    int s = streamed(it);
    msgtext *m = s ? &u->mt : &u->other;
    if (s && it->index != u->mt.index && u->s_kind != K_NONE)
        stream_end(u); /* another message is streamed: the one before ends */
    int ok = msgtext_apply(m, it->index, it->offset, it->text, it->len) == 0;
    free(it->text);
    it->text = NULL;
    if (ok && !it->partial && !s) {
        size_t n = 0;
        const char *safe = msgtext_safe(m, 1, &n);
        it->text = safe ? strndup(safe, n) : NULL; /* NULL when out of memory: not shown */
    }
}

/* The options of a question or a plan (data "options"), numbered: a number typed at the
 * prompt picks one (submit). */
static void show_options(struct ui *u, const json_t *d)
{
    json_t *opts = json_object_get(d, "options");
    size_t i;
    json_t *o;
    json_array_foreach(opts, i, o) {
        char *opt = mdr_text(json_string_value(o) ? json_string_value(o) : "",
                             md_width(u) > 25 ? md_width(u) - 5 : 20, u->color);
        screen_commitf(u->scr, "  %s%zu.%s %s", sgr(u, "\033[33m"), i + 1, sgr(u, "\033[0m"),
                       opt ? opt : "");
        free(opt);
    }
    free(u->pending_options);
    u->pending_options = json_array_size(opts) ? json_dumps(opts, 0) : NULL;
}

static void handle_event(struct ui *u, evq_item *it)
{
    json_t *d = it->data_json ? json_loads(it->data_json, 0, NULL) : NULL;
    int resume_now = !it->partial && it->ts >= u->resume_ms &&
                     (is(it, HEW_EV_RESUME_TASK) || is(it, HEW_EV_RESUME_COMPLETED_TASK));
    if (u->replaying && it->is_ask && is(it, HEW_EV_COMPLETION_RESULT)) {
        json_decref(d); /* the past result's ask: its say showed "✓ Done" and the text */
        return;
    }
    if (u->replaying && !u->continue_text && !resume_now)
        it->is_ask = 0; /* an ask of the past: shown, never answered again */
    take_event_text(u, it, d);
    if (u->replaying && u->continue_text && resume_now) {
        /* Going on after Ctrl-C (or after a finished task was ended by /checkpoints,
         * /diff): the conversation is already on the screen; the user's message is the
         * new instruction. */
        u->replaying = 0;
        if (answer_with(u, HEW_ANSWER_MESSAGE, u->continue_text, &u->continue_images) == 0) {
            set_activity(u, "waiting for the model");
        } else { /* its images were refused: the task waits at its resume question */
            snprintf(u->pending, sizeof u->pending, "%s", it->type);
            u->hint = "the task waits: type your message again (↑ brings it back) · y goes "
                      "on without it · /new starts another";
        }
        free(u->continue_text);
        u->continue_text = NULL;
        imgpaste_release(&u->continue_images);
        json_decref(d);
        return;
    }
    if (u->replaying && u->continue_text) { /* the replay of what is on the screen */
        json_decref(d);
        return;
    }
    if (u->replaying && resume_now) {
        u->replaying = 0; /* the conversation so far is on the screen: go on? */
        stream_end(u);
        gap(u, 2);
        screen_commitf(u->scr, "%s↻ %s%s", sgr(u, "\033[1;33m"),
                       is(it, HEW_EV_RESUME_TASK) ? "this task was interrupted"
                                             : "this task was completed",
                       sgr(u, "\033[0m"));
        snprintf(u->pending, sizeof u->pending, "%s", it->type);
        u->hint = "y goes on with it · or type new instructions · /new starts another";
        json_decref(d);
        return;
    }
    if (u->replaying) {
        if ((is(it, HEW_EV_TASK) || is(it, HEW_EV_USER_FEEDBACK)) && it->text) {
            stream_end(u);
            gap(u, 2);
            screen_commitf(u->scr, "%s›%s %s", sgr(u, "\033[1;36m"), sgr(u, "\033[0m"),
                           it->text);
            size_t i; /* the images that came with it (data "images": their captions) */
            json_t *cap;
            json_array_foreach(json_object_get(d, "images"), i, cap)
                if (json_string_value(cap))
                    screen_commitf(u->scr, "  %s[image: %s]%s", sgr(u, "\033[2m"),
                                   json_string_value(cap), sgr(u, "\033[0m"));
            json_decref(d);
            return;
        }
    }
    if (is(it, HEW_EV_TEXT) && !it->is_ask) {
        set_activity(u, "writing");
        stream_feed(u, it->index, K_MD, it->partial, NULL);
    } else if (is(it, HEW_EV_REASONING)) {
        set_activity(u, "thinking");
        stream_feed(u, it->index, K_DIM, it->partial, NULL);
    } else if (is(it, HEW_EV_COMMAND_OUTPUT)) {
        stream_feed(u, it->index, K_OUT, it->partial, NULL);
        long long code = json_integer_value(json_object_get(d, "exitCode"));
        if (!it->partial && code != 0) { /* the command failed: say how */
            stream_end(u);
            screen_commitf(u->scr, "  %s✗ exit %lld%s", sgr(u, "\033[31m"), code,
                           sgr(u, "\033[0m"));
        }
    } else if (is(it, HEW_EV_COMPLETION_RESULT) && !it->is_ask) {
        char header[64];
        snprintf(header, sizeof header, "%s✓ Done%s", sgr(u, "\033[1;32m"), sgr(u, "\033[0m"));
        stream_feed(u, it->index, K_MD, it->partial, header);
    } else if (is(it, HEW_EV_PLAN_MODE_RESPOND) && it->is_ask) {
        char header[64];
        snprintf(header, sizeof header, "%s◆ Plan%s", sgr(u, "\033[1;35m"), sgr(u, "\033[0m"));
        stream_feed(u, it->index, K_MD, it->partial, header);
        if (!it->partial) {
            show_options(u, d);
            snprintf(u->pending, sizeof u->pending, "%s", it->type);
            u->hint = u->pending_options ? "a number picks an option · or reply to discuss the "
                                           "plan · /act carries it out"
                                         : "reply to discuss the plan, /act to carry it out";
        }
    } else if (it->partial) {
        if (is(it, HEW_EV_TOOL) && d)
            set_activity(u, "preparing a tool call");
    } else if (is(it, HEW_EV_API_REQ_STARTED)) {
        on_api_req(u, it);
    } else if (is(it, HEW_EV_API_REQ_RETRIED)) {
        set_activity(u, "waiting for the model (retried)");
    } else if (is(it, HEW_EV_ERROR_RETRY) && d) {
        double delay = json_number_value(json_object_get(d, "delaySeconds"));
        u->retry_k = (int)json_integer_value(json_object_get(d, "attempt"));
        u->retry_n = (int)json_integer_value(json_object_get(d, "maxAttempts"));
        if (json_is_true(json_object_get(d, "failed"))) {
            error_line(u, "!", jstr(d, "errorMessage"));
            u->retry_until_ms = 0;
        } else {
            u->retry_until_ms = clockms_mono() + (long long)(delay * 1000);
            stream_end(u);
            gap(u, 2);
            screen_commitf(u->scr, "%s! %s%s", sgr(u, "\033[33m"), jstr(d, "errorMessage"),
                           sgr(u, "\033[0m"));
        }
    } else if (is(it, HEW_EV_ERROR)) {
        error_line(u, "✗", it->text);
    } else if (is(it, HEW_EV_NOTICE)) {
        error_line(u, "!", it->text);
    } else if (is(it, HEW_EV_TASK) || is(it, HEW_EV_USER_FEEDBACK)) {
        /* the user's own words: already on the screen */
    } else if (is(it, HEW_EV_CONDENSING) || is(it, HEW_EV_CONDENSED)) {
        stream_end(u);
        screen_commitf(u->scr, "%s  (%s)%s", sgr(u, "\033[2m"),
                       is(it, HEW_EV_CONDENSING)
                           ? "the conversation is near the context limit: the model summarises it"
                           : "condensed: the model goes on from its summary",
                       sgr(u, "\033[0m"));
    } else if (is(it, HEW_EV_DELETED_API_REQS)) {
        stream_end(u);
        screen_commitf(u->scr, "%s  (older messages left the model's context window)%s",
                       sgr(u, "\033[2m"), sgr(u, "\033[0m"));
    } else if (is(it, HEW_EV_MCP_NOTIFICATION) || is(it, HEW_EV_MCP_SERVER_RESPONSE)) {
        mcp_line(u, it);
    } else if (!it->is_ask && (is(it, HEW_EV_TOOL) || is(it, HEW_EV_COMMAND) || is(it, HEW_EV_USE_MCP_SERVER))) {
        tool_summary(u, it, d, 0);
        if (is(it, HEW_EV_COMMAND))
            set_activity(u, "running the command");
    } else if (it->is_ask && (is(it, HEW_EV_TOOL) || is(it, HEW_EV_COMMAND) || is(it, HEW_EV_USE_MCP_SERVER))) {
        approval(u, it, d);
        if (is(it, HEW_EV_COMMAND))
            set_activity(u, "running the command");
    } else if (is(it, HEW_EV_SANDBOX_DENIED)) {
        char line[600];
        snprintf(line, sizeof line, "the sandbox stopped it: %s", it->text ? it->text : "");
        error_line(u, "✗", line);
    } else if (is(it, HEW_EV_COMMAND_UNSANDBOXED)) {
        /* leaving the sandbox: yolo and "always" never answer this one */
        stream_end(u);
        gap(u, 2);
        screen_commitf(u->scr, "%s●%s %s$ %s%s  %s(%s)%s", sgr(u, "\033[33m"), sgr(u, "\033[0m"),
                       sgr(u, "\033[1m"), jstr(d, "command"), sgr(u, "\033[0m"),
                       sgr(u, "\033[2m"), jstr(d, "reason"), sgr(u, "\033[0m"));
        if (it->is_ask)
            yes_no(u, "Run it without the sandbox?");
    } else if (it->is_ask && is(it, HEW_EV_COMPLETION_RESULT)) {
        stream_end(u);
        snprintf(u->pending, sizeof u->pending, "%s", it->type);
        u->hint = "reply to go on with this task · /new starts another";
    } else if (it->is_ask && is(it, HEW_EV_FOLLOWUP)) {
        stream_end(u);
        gap(u, K_MD);
        const char *question = d && *jstr(d, "question") ? jstr(d, "question")
                                                         : (it->text ? it->text : "");
        char *q = mdr_text(question, md_width(u) > 22 ? md_width(u) - 2 : 20, u->color);
        screen_commitf(u->scr, "%s?%s %s", sgr(u, "\033[1;33m"), sgr(u, "\033[0m"), q ? q : "");
        free(q);
        show_options(u, d);
        snprintf(u->pending, sizeof u->pending, "%s", it->type);
    } else if (it->is_ask && is(it, HEW_EV_NEW_TASK)) {
        char header[64];
        snprintf(header, sizeof header, "%s↪ New task%s", sgr(u, "\033[1;35m"), sgr(u, "\033[0m"));
        stream_feed(u, it->index, K_MD, 0, header);
        stream_end(u);
        snprintf(u->pending, sizeof u->pending, "%s", it->type);
        u->hint = "y starts a new task from this context · n keeps working here · or type a reply";
    } else if (it->is_ask && is(it, HEW_EV_API_REQ_FAILED)) {
        error_line(u, "✗", it->text);
        yes_no(u, "Retry?");
    } else if (it->is_ask && is(it, HEW_EV_MISTAKE_LIMIT_REACHED)) {
        error_line(u, "!", it->text);
        u->hint = "type guidance for the model, or y to let it try again, n to stop";
        snprintf(u->pending, sizeof u->pending, "%s", it->type);
    } else if (it->is_ask) {
        /* an ask this terminal does not know: show it, answer at the prompt */
        stream_end(u);
        gap(u, 2);
        screen_commitf(u->scr, "%s? %s%s %s", sgr(u, "\033[33m"), it->type, sgr(u, "\033[0m"),
                       it->text ? it->text : "");
        snprintf(u->pending, sizeof u->pending, "%s", it->type);
    } else if (it->text && *it->text) {
        stream_end(u);
        gap(u, 2);
        screen_commitf(u->scr, "%s%s: %s%s", sgr(u, "\033[2m"), it->type, it->text,
                       sgr(u, "\033[0m"));
    }
    json_decref(d);
}

/* ---- sessions and tasks ------------------------------------------------------------------ */

static void on_event(void *ud, hew_task *task, const hew_event *ev)
{
    (void)task;
    struct ui *u = ud;
    evq_push(u->q, ev);
}

static int ensure_session(struct ui *u)
{
    if (u->session && !u->session_dirty)
        return 0;
    /* The new session is made before the old one goes, so the MCP servers they share
     * stay connected. */
    hew_session *old = u->session;
    u->session = NULL;
    hew_options o = u->base;
    if (u->model)
        o.model = u->model;
    o.mode = u->mode_chosen ? u->mode : NULL;
    o.yolo = u->yolo;
    o.on_event = on_event;
    o.event_ud = u;
    char err[512] = "";
    (void)hew_session_new(&o, &u->session, err, sizeof err);
    hew_session_free(old);
    if (!u->session) {
        leave_live(u);
        cli_explain_session_error(err, o.provider);
        return -1;
    }
    u->session_dirty = 0;
    u->ctx_window = modelname_window(&o);
    /* Once per model: hew does not know it, and how to describe it. */
    if (!o.model || strcmp(u->noted_model, o.model) != 0) {
        leave_live(u);
        cli_note_unknown_model(&o);
        snprintf(u->noted_model, sizeof u->noted_model, "%s", o.model ? o.model : "");
    }
    return 0;
}

static void start_task(struct ui *u, const char *text, const char *const *images, int nimages);

static void finish_task(struct ui *u)
{
    hew_task_status st = hew_task_wait(u->task);
    stream_end(u);
    hew_totals run; /* what this session's run of the task added */
    hew_task_totals(u->task, NULL, &run);
    u->session_cost += run.cost;
    u->session_in += run.tokens_in;
    u->session_out += run.tokens_out;
    const char *result = hew_task_result(u->task);
    if (st == HEW_TASK_FAILED) {
        char *safe = result && *result ? termsafe_dup(result, 1) : NULL;
        error_line(u, "✗", safe ? safe : "the task failed");
        free(safe);
    }
    const char *tid = hew_task_id(u->task);
    if (st == HEW_TASK_ABORTED) {
        /* Stopped by Ctrl-C: the task is kept (when it is stored) and the next message
         * goes on with it, as new instructions; /new starts another instead. */
        bool resumable = u->base.persist && tid && *tid && !u->quit;
        snprintf(u->stopped_id, sizeof u->stopped_id, "%s", resumable ? tid : "");
        gap(u, 2);
        screen_commitf(u->scr, "%s⏹ stopped%s — %s%s", sgr(u, "\033[33m"), sgr(u, "\033[2m"),
                       resumable ? "your next message goes on with this task (/new starts "
                                   "another)"
                                 : "your next message starts a new task",
                       sgr(u, "\033[0m"));
    } else {
        u->stopped_id[0] = '\0';
    }
    snprintf(u->last_id, sizeof u->last_id, "%s", tid ? tid : "");
    const char *next = st == HEW_TASK_COMPLETED && !u->quit ? hew_task_successor(u->task) : NULL;
    char *successor = next ? strdup(next) : NULL;
    hew_task_free(u->task);
    u->task = NULL;
    u->nreqs = 0;
    u->pending[0] = '\0';
    u->retry_until_ms = 0;
    screen_set_status(u->scr, NULL);
    if (successor) { /* new_task accepted: go on in the new task, from its context */
        gap(u, 2);
        screen_commitf(u->scr, "%s↪ continuing in a new task, from the context above%s",
                       sgr(u, "\033[1;35m"), sgr(u, "\033[0m"));
        start_task(u, successor, NULL, 0);
        free(successor);
    }
}

static void start_task(struct ui *u, const char *text, const char *const *images, int nimages)
{
    if (ensure_session(u) != 0)
        return;
    sigset_t old;
    sigflags_block(&old); /* the task's threads never take our signals */
    char err[512] = "";
    (void)hew_task_start_images(u->session, text, images, (size_t)nimages, &u->task, err,
                                sizeof err);
    sigflags_unblock(&old);
    if (!u->task) {
        leave_live(u);
        fprintf(stderr, "hew: %s\n", err);
        return;
    }
    u->nreqs = 0;
    u->ctx_used = 0; /* a new conversation (a resumed one: its next request says) */
    u->last_out = 2;
    u->s_index = -1;
    msgtext_release(&u->mt); /* a task's message indices start again at 0 */
    msgtext_release(&u->other);
    set_activity(u, "starting");
    enter_live(u);
}

/* Go on with stored task id: its conversation is replayed, then it asks how to go on. */
static void resume_task(struct ui *u, const char *id)
{
    if (ensure_session(u) != 0)
        return;
    sigset_t old;
    sigflags_block(&old);
    char err[512] = "";
    u->resume_ms = clockms_wall(); /* the clock of the events' ts */
    (void)hew_task_resume(u->session, id, &u->task, err, sizeof err);
    sigflags_unblock(&old);
    if (!u->task) {
        leave_live(u);
        fprintf(stderr, "hew: %s\n", err);
        return;
    }
    u->replaying = 1;
    u->nreqs = 0;
    u->ctx_used = 0; /* a new conversation (a resumed one: its next request says) */
    u->last_out = 2;
    u->s_index = -1;
    msgtext_release(&u->mt); /* a task's message indices start again at 0 */
    msgtext_release(&u->other);
    set_activity(u, "loading the task");
    enter_live(u);
}

/* The user's message: an answer to the waiting ask, or a new task. The image files pasted
 * or dropped into the line the user typed (run_line) go with it, whichever it is; refused
 * with an answer, the ask still waits. pasted is taken (released here). */
static void submit(struct ui *u, const char *text, imgpaste *p)
{
    imgpaste pasted = *p;
    memset(p, 0, sizeof *p);
    show_pasted(u, &pasted);
    if (u->task && u->pending[0]) {
        const char *answer = text;
        char *picked = NULL;
        if ((strcmp(u->pending, "followup") == 0 ||
             strcmp(u->pending, "plan_mode_respond") == 0) && u->pending_options) {
            char *end;
            long k = strtol(text, &end, 10);
            json_t *opts = json_loads(u->pending_options, 0, NULL);
            if (*text && !*end && k >= 1 && (size_t)k <= json_array_size(opts) &&
                json_string_value(json_array_get(opts, (size_t)k - 1)))
                picked = strdup(json_string_value(json_array_get(opts, (size_t)k - 1)));
            json_decref(opts);
            if (picked)
                answer = picked;
        }
        hew_answer a = HEW_ANSWER_MESSAGE;
        if ((strcmp(u->pending, "resume_task") == 0 ||
             strcmp(u->pending, "resume_completed_task") == 0) &&
            (strcmp(text, "y") == 0 || strcmp(text, "yes") == 0))
            a = HEW_ANSWER_YES;
        else if ((strcmp(u->pending, "mistake_limit_reached") == 0 ||
                  strcmp(u->pending, "new_task") == 0) &&
                 (strcmp(text, "y") == 0 || strcmp(text, "n") == 0 ||
                  strcmp(text, "yes") == 0 || strcmp(text, "no") == 0))
            a = text[0] == 'y' ? HEW_ANSWER_YES : HEW_ANSWER_NO;
        int refused = answer_with(u, a, a == HEW_ANSWER_MESSAGE ? answer : NULL, &pasted) != 0;
        free(picked);
        imgpaste_release(&pasted);
        if (refused) { /* nothing was answered: the prompt again, for the same ask */
            u->hint = "nothing was sent: answer again (↑ brings the line back)";
            return;
        }
        u->pending[0] = '\0';
        u->last_out = 2;
        set_activity(u, "waiting for the model");
        enter_live(u);
        return;
    }
    if (u->task) { /* cannot happen: the prompt shows only when nothing runs */
        imgpaste_release(&pasted);
        return;
    }
    if (u->stopped_id[0] && pasted.n && !images_ok(u, &pasted)) {
        imgpaste_release(&pasted); /* the stopped task stays as it was, to go on with */
        u->hint = "nothing was sent: type your message again (↑ brings the line back); it "
                  "goes on with the stopped task";
        return;
    }
    if (u->stopped_id[0]) {
        /* after a stop the message goes on with the task: the answer to its resume ask,
         * with the images (handle_event) */
        char id[sizeof u->stopped_id];
        memcpy(id, u->stopped_id, sizeof id);
        u->stopped_id[0] = '\0';
        free(u->continue_text);
        imgpaste_release(&u->continue_images);
        u->continue_text = strdup(text);
        resume_task(u, id); /* its events are handled later, in pump */
        if (u->task) {
            u->continue_images = pasted; /* owned there now */
            return;
        }
        free(u->continue_text); /* could not go on: a new task instead */
        u->continue_text = NULL;
    }
    start_task(u, text, (const char *const *)pasted.paths, pasted.n);
    imgpaste_release(&pasted);
}

/* A message typed while the task ran (Enter): queued, shown as a dim line, sent when the
 * task next waits for a message or ends (the main loop). */
static void queue_text(struct ui *u, char *text)
{
    if (!text)
        return;
    char *safe = termsafe_dup(text, 1);
    size_t first = safe ? strcspn(safe, "\n") : 0, shown = first > 200 ? 200 : first;
    while (shown < first && shown > 0 && ((unsigned char)safe[shown] & 0xC0) == 0x80)
        shown--; /* never half a character */
    screen_commitf(u->scr, "%s  queued: %.*s%s%s", sgr(u, "\033[2m"), (int)shown,
                   safe ? safe : "", safe && safe[shown] ? " …" : "", sgr(u, "\033[0m"));
    free(safe);
    if (!u->queued) {
        u->queued = text;
        return;
    }
    sbuf both = SBUF_INIT;
    sbuf_printf(&both, "%s\n\n%s", u->queued, text);
    free(text);
    char *joined = sbuf_detach(&both);
    if (joined) {
        free(u->queued);
        u->queued = joined;
    }
}

/* The keys typed while the task runs (stdin is readable): into the input line; Enter
 * queues it, Esc stops the task (the text stays, for the prompt). -1 at the end of
 * input. */
static int read_keys(struct ui *u)
{
    char buf[4096];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0)
        return -1; /* the terminal is gone: keys are no longer read */
    for (size_t off = 0; off < (size_t)n;) {
        size_t used = 0;
        int a = typeahead_feed(&u->ta, buf + off, (size_t)n - off, &used);
        off += used;
        if (a == TA_SUBMIT)
            queue_text(u, typeahead_take(&u->ta));
        else if (a == TA_STOP)
            stop_task(u, "interrupted by the user");
    }
    return 0;
}

/* The input line under the status line: shown while it holds text. */
static void show_input(struct ui *u)
{
    size_t n = 0;
    const char *t = typeahead_text(&u->ta, &n);
    char marker[32];
    snprintf(marker, sizeof marker, "%s›%s ", sgr(u, "\033[1;36m"), sgr(u, "\033[0m"));
    screen_set_input(u->scr, n ? marker : NULL, t, n);
}

/* Run the task's events onto the screen until it waits for the prompt or ends. The keys
 * are read all along (at least every SLICE_MS while events pour in): what is typed shows
 * at once and is never lost. */
static void pump(struct ui *u)
{
    enter_live(u);
    int tty = isatty(0);
    while (u->task && !u->pending[0] && !u->quit) {
        evq_item *it;
        long long slice_end = clockms_mono() + SLICE_MS;
        int more = 0;
        while (!u->pending[0] && !u->quit && (it = evq_pop(u->q))) {
            handle_event(u, it);
            evq_item_free(it);
            if (!u->task)
                return;
            if (clockms_mono() >= slice_end) {
                more = 1; /* look at the keys, then go on */
                break;
            }
        }
        if (sigflags_take(SIGF_WINCH))
            screen_resize(u->scr);
        if (sigflags_peek(SIGF_QUIT)) {
            u->quit = 1;
            break;
        }
        /* Ctrl-C while a task runs stops it, never leaves (and is not the first of the
         * two that leave at the prompt) */
        if (sigflags_take(SIGF_INT))
            stop_task(u, "interrupted by the user");
        if (u->pending[0])
            break;
        if (!more && hew_task_status_now(u->task) != HEW_TASK_RUNNING) {
            while ((it = evq_pop(u->q))) {
                if (!it->is_ask)
                    handle_event(u, it);
                evq_item_free(it);
            }
            finish_task(u);
            screen_draw(u->scr);
            return;
        }
        update_status(u);
        show_input(u);
        screen_draw(u->scr);
        struct pollfd p[2] = { { .fd = evq_fd(u->q), .events = POLLIN },
                               { .fd = 0, .events = POLLIN } };
        int esc = typeahead_esc_pending(&u->ta);
        int r = poll(p, tty ? 2 : 1, more ? 0 : esc ? ESC_MS : TICK_MS);
        if (tty && r > 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            if (read_keys(u) != 0)
                tty = 0;
            show_input(u);
            screen_draw(u->scr); /* the key shows now, not after the next event */
        } else if (esc && r == 0 && typeahead_timeout(&u->ta) == TA_STOP) {
            stop_task(u, "interrupted by the user");
        }
    }
    if (u->pending[0] && u->task) {
        /* the task waits for the prompt: what it still says (the request's cost) first */
        long long until = clockms_mono() + 60;
        for (;;) {
            evq_item *it = evq_pop(u->q);
            if (it) {
                handle_event(u, it);
                evq_item_free(it);
                continue;
            }
            long long left = until - clockms_mono();
            if (left <= 0)
                break;
            struct pollfd p = { .fd = evq_fd(u->q), .events = POLLIN };
            poll(&p, 1, (int)left);
        }
    }
    update_status(u);
    screen_draw(u->scr);
}

/* ---- in-session commands ------------------------------------------------------------------ */

static void say(struct ui *u, const char *fmt, const char *arg)
{
    leave_live(u);
    char *safe = termsafe_dup(arg, 1); /* an error may quote a file */
    printf("%s", sgr(u, "\033[2m"));
    printf(fmt, safe ? safe : "");
    free(safe);
    printf("%s\n", sgr(u, "\033[0m"));
    fflush(stdout);
}

static void show_cost(struct ui *u)
{
    hew_totals tot, run; /* the task's, kept by the library (NULL task: zeros) */
    hew_task_totals(u->task, &tot, &run);
    leave_live(u);
    if (u->task)
        printf("this task: %lld in, %lld out, %lld cache reads, %lld cache writes, $%.4f "
               "(%lld requests)\n",
               tot.tokens_in, tot.tokens_out, tot.cache_reads, tot.cache_writes, tot.cost,
               tot.requests);
    printf("this session: %lld in, %lld out, $%.4f\n", u->session_in + run.tokens_in,
           u->session_out + run.tokens_out, u->session_cost + run.cost);
}

/* /help: the commands from the table, then the keys. */
void interactive_cmd_help(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    (void)arg;
    sbuf cmds = SBUF_INIT;
    help_view_commands(&cmds, screen_width(u->scr));
    leave_live(u);
    printf("%s", sgr(u, "\033[1m"));
    printf("commands%s\n", sgr(u, "\033[0m"));
    fputs(cmds.data ? cmds.data : "", stdout);
    sbuf_release(&cmds);
    puts("  other /commands go to the model's prompt layer (/newtask, /smol, workflows)\n"
         "keys\n"
         "  Enter sends · Alt-Enter or a trailing \\ continues on a new line · pastes stay one\n"
         "  message · Ctrl-C stops what runs; at the prompt it clears the line, twice within\n"
         "  1 s on an empty line leaves · Ctrl-D leaves\n"
         "  while the model works: type on, Enter queues the message, Esc stops (text kept)\n"
         "  Tab completes commands, their arguments and @paths · @path attaches a file\n"
         "  approvals: y yes · n no · a always for this kind · anything else: what to do instead");
}

/* /mcp: the session's MCP servers; /mcp reload: read the settings again. */
void interactive_cmd_mcp(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    if (ensure_session(u) != 0)
        return;
    if (strcmp(arg, "reload") == 0) {
        char err[1024] = "";
        if (hew_mcp_reload(u->session, err, sizeof err) != 0)
            say(u, "MCP settings not reloaded: %s", err);
        else
            say(u, "%s", "MCP settings read again: changed servers reconnect");
        return;
    }
    if (*arg) {
        say(u, "%s", "usage: /mcp [reload]");
        return;
    }
    char *status = NULL;
    (void)hew_mcp_status_json(u->session, &status);
    leave_live(u);
    if (status)
        cli_mcp_print(status);
    fflush(stdout);
    hew_free(status);
}

/* /restore: what it will change, then y/n; only a yes restores. */
static void confirm_restore(struct ui *u, const char *target, const char *mode)
{
    if (strcmp(mode, "files") != 0 && strcmp(mode, "task") != 0 && strcmp(mode, "both") != 0) {
        say(u, "%s", "usage: /restore N [files|task|both]");
        return;
    }
    char err[1024] = "";
    int changes = 0;
    char *preview = restore_preview(&u->base, u->last_id, target, mode, &changes, err,
                                    sizeof err);
    if (!preview) {
        fprintf(stderr, "hew: %s\n", err);
        return;
    }
    fputs(preview, stdout);
    free(preview);
    if (!changes)
        return;
    char prompt[160];
    snprintf(prompt, sizeof prompt, "  \1%s\1Restore?\1%s\1 [y/n] › ", sgr(u, "\033[1;33m"),
             sgr(u, "\033[0m"));
    int why;
    char *line = ask_line(u, prompt, &why);
    const char *l = line ? line : "";
    while (*l == ' ')
        l++;
    if (strcmp(l, "y") == 0 || strcmp(l, "Y") == 0 || strcmp(l, "yes") == 0)
        cli_checkpoint_restore_print(&u->base, u->last_id, target, mode, 0);
    else
        printf("%snot restored%s\n", sgr(u, "\033[2m"), sgr(u, "\033[0m"));
    free(line);
}

/* /checkpoints, /diff N [M], /restore N [files|task|both] on the task that ended last
 * (a running task holds its lock: /new ends it first). A finished task waiting at the
 * prompt (its result shown) is ended here, its completion checkpoint made; the next
 * message still goes on with it. */
void interactive_cmd_checkpoint(struct ui *u, const char *name, const char *arg)
{
    if (u->task && strcmp(u->pending, "completion_result") == 0) {
        hew_task_respond(u->task, HEW_ANSWER_YES, NULL);
        hew_task_wait(u->task);
        u->pending[0] = '\0';
        finish_task(u);
        screen_release(u->scr);
        if (u->base.persist && u->last_id[0])
            snprintf(u->stopped_id, sizeof u->stopped_id, "%s", u->last_id);
    }
    if (u->task) {
        say(u, "%s", "the task is still running: /new ends it (it stays resumable), then "
                     "try again");
        return;
    }
    if (!u->last_id[0]) {
        say(u, "%s", "no task has ended in this session yet (hew checkpoints ID for a stored "
                     "one)");
        return;
    }
    char w[3][80] = { "", "", "" };
    int nw = 0;
    while (*arg && nw < 3) {
        size_t n = strcspn(arg, " \t");
        snprintf(w[nw++], sizeof w[0], "%.*s", (int)(n < 79 ? n : 79), arg);
        arg += n;
        while (*arg == ' ' || *arg == '\t')
            arg++;
    }
    if (*arg || (name[0] == 'c' && nw) || (name[0] != 'c' && !nw)) {
        say(u, "%s", name[0] == 'c' ? "usage: /checkpoints"
                     : name[0] == 'd' ? "usage: /diff N [M]"
                                      : "usage: /restore N [files|task|both]");
        return;
    }
    leave_live(u);
    if (name[0] == 'c')
        cli_checkpoints_print(&u->base, u->last_id, 0);
    else if (name[0] == 'd')
        cli_checkpoint_diff_print(&u->base, u->last_id, w[0], nw > 1 ? w[1] : NULL, 0);
    else
        confirm_restore(u, w[0], nw > 1 ? w[1] : "files");
    fflush(stdout);
}

/* /exit, /quit */
void interactive_cmd_exit(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    (void)arg;
    u->quit = 1;
}

/* /plan, /act: the mode of this and later tasks; /act on a waiting plan carries it out. */
void interactive_cmd_mode(struct ui *u, const char *name, const char *arg)
{
    (void)arg;
    snprintf(u->mode, sizeof u->mode, "%s", name[0] == 'p' ? "plan" : "act");
    u->mode_chosen = 1;
    u->session_dirty = 1;
    if (u->task)
        hew_task_set_mode(u->task, name);
    say(u, "%s mode", name);
    if (u->task && strcmp(name, "act") == 0 && strcmp(u->pending, "plan_mode_respond") == 0) {
        hew_task_respond(u->task, HEW_ANSWER_YES, NULL);
        u->pending[0] = '\0';
        set_activity(u, "waiting for the model");
        enter_live(u);
    }
}

/* The options a session on the model u->model (or the configured one) gets. */
static hew_options model_options(const struct ui *u)
{
    hew_options o = u->base;
    if (u->model)
        o.model = u->model;
    return o;
}

/* /model [NAME]: no name lists the provider's known models, the current one marked; an
 * unknown name is used as given, with what hew assumes about it. */
void interactive_cmd_model(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    hew_options o = model_options(u);
    if (!*arg) {
        char *label = modelname_label(&o);
        char *list = modelname_list(&o, NULL, u->color);
        leave_live(u);
        printf("model: %s%s%s\n", sgr(u, "\033[1m"), label, sgr(u, "\033[0m"));
        if (list && *list)
            printf("%sthe models hew knows for %s (/model NAME switches; other names work "
                   "too):%s\n%s",
                   sgr(u, "\033[2m"), o.provider ? o.provider : "anthropic", sgr(u, "\033[0m"),
                   list);
        fflush(stdout);
        free(label);
        free(list);
        return;
    }
    free(u->model);
    u->model = strdup(arg);
    u->session_dirty = 1;
    o = model_options(u);
    char *why = NULL;
    if (!modelname_known(&o, &why) && why) {
        leave_live(u);
        printf("%s! %s%s\n", sgr(u, "\033[33m"), why, sgr(u, "\033[0m"));
        snprintf(u->noted_model, sizeof u->noted_model, "%s", arg); /* said once */
    }
    free(why);
    if (u->task) {
        /* The task waits at the prompt: stop it there (a finished one is accepted, so
         * it stays completed); the next message goes on with it (resumed in a session
         * on the new model). */
        int done = strcmp(u->pending, "completion_result") == 0;
        if (done)
            hew_task_respond(u->task, HEW_ANSWER_YES, NULL);
        else
            hew_task_abort(u->task, "the user switched the model");
        hew_task_wait(u->task);
        u->pending[0] = '\0';
        finish_task(u);
        screen_release(u->scr);
        if (done && u->base.persist && u->last_id[0])
            snprintf(u->stopped_id, sizeof u->stopped_id, "%s", u->last_id);
        say(u, u->stopped_id[0] ? "model %s: your next message goes on with this task on it"
                                : "model %s",
            arg);
    } else {
        say(u, "model %s", arg);
    }
}

/* /yolo */
void interactive_cmd_yolo(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    (void)arg;
    u->yolo = !u->yolo;
    u->session_dirty = 1;
    say(u, "%s", u->yolo ? "yolo: every action is approved without asking"
                         : "yolo off: actions ask again");
}

/* /cost */
void interactive_cmd_cost(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    (void)arg;
    show_cost(u);
}

/* /new, /clear */
void interactive_cmd_new(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    (void)arg;
    u->stopped_id[0] = '\0';
    if (u->task) {
        if (strcmp(u->pending, "completion_result") == 0)
            hew_task_respond(u->task, HEW_ANSWER_YES, NULL);
        else
            hew_task_abort(u->task, "the user started a new task");
        hew_task_wait(u->task);
        u->pending[0] = '\0';
        finish_task(u);
        screen_release(u->scr);
    }
    say(u, "%s", "the next message starts a new task");
}

/* /skills */
void interactive_cmd_skills(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    (void)arg;
    char err[512] = "";
    char *text = cli_skills_text(&u->base, err, sizeof err);
    leave_live(u);
    if (text)
        fputs(text, stdout);
    else
        fprintf(stderr, "hew: %s\n", err);
    fflush(stdout);
    free(text);
}

/* /history [--all] [--page N] [SEARCH]: this workspace's tasks, a page the height of the
 * terminal; --all: every workspace's (a WORKSPACE column) and the probe runs too. */
void interactive_cmd_history(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    cli_history_query q = { .page = 1, .bold = u->color };
    int all = 0;
    for (;;) {
        while (*arg == ' ' || *arg == '\t')
            arg++;
        if (strncmp(arg, "--all", 5) == 0 && (!arg[5] || arg[5] == ' ' || arg[5] == '\t')) {
            all = 1;
            arg += 5;
        } else if (strncmp(arg, "--page", 6) == 0 && (arg[6] == ' ' || arg[6] == '\t')) {
            char *end;
            long p = strtol(arg + 6, &end, 10);
            if (end == arg + 6 || p < 1 || p > 100000 || (*end && *end != ' ' && *end != '\t')) {
                say(u, "%s", "usage: /history [--all] [--page N] [SEARCH] (N from 1)");
                return;
            }
            q.page = (int)p;
            arg = end;
        } else {
            break;
        }
    }
    q.search = *arg ? arg : NULL;
    char *ws = all ? NULL : realpath(u->base.cwd ? u->base.cwd : ".", NULL);
    q.workspace = ws;
    q.probes = all;
    size_t rows = screen_rows(u->scr);
    q.per_page = rows > 8 ? (int)rows - 4 : 4; /* the header, the footer, the prompt */
    char err[512] = "";
    char *table = cli_history_page(&u->base, &q, err, sizeof err);
    free(ws);
    leave_live(u);
    if (table)
        fputs(table, stdout);
    else
        fprintf(stderr, "hew: %s\n", err);
    fflush(stdout);
    free(table);
}

/* /resume [ID] */
void interactive_cmd_resume(struct ui *u, const char *name, const char *arg)
{
    (void)name;
    u->stopped_id[0] = '\0';
    if (u->task) {
        say(u, "%s", "a task is running: /new finishes it first");
        return;
    }
    char err[512] = "";
    char *id = NULL, *latest = NULL;
    if (*arg)
        id = strdup(arg);
    else if (hew_history_latest(&u->base, NULL, &latest, err, sizeof err) == HEW_OK)
        id = strdup(latest); /* ours: freed with free() as the other one */
    hew_free(latest);
    if (!id) {
        say(u, "%s", *err ? err : "out of memory");
        return;
    }
    say(u, "resuming task %s", id);
    resume_task(u, id);
    free(id);
}

/* 1 when the line was a command of this terminal (slashcmd.c's table), run now; 0 for a
 * line the prompt layer gets (/newtask, /smol, workflows). */
static int command(struct ui *u, const char *line)
{
    char name[32];
    size_t n = strcspn(line + 1, " \t");
    if (n >= sizeof name)
        return 0;
    memcpy(name, line + 1, n);
    name[n] = '\0';
    const char *arg = line + 1 + n;
    while (*arg == ' ' || *arg == '\t')
        arg++;
    const slashcmd *c = slashcmd_find(name);
    if (c) {
        c->run(u, name, arg);
        return 1;
    }
    /* "/word" that is no command here nor of the prompt layer (/newtask, a workflow) and
     * no folder at the root (/tmp is full): a mistyped command, never sent (and billed) */
    char root[40];
    snprintf(root, sizeof root, "/%s", name);
    if (!slashcmd_looks_like(line) || hew_slash_known(u->base.cwd, name) ||
        access(root, F_OK) == 0)
        return 0;
    const char *near = slashcmd_suggest(name);
    char *safe = termsafe_dup(name, 1);
    leave_live(u);
    if (near)
        printf("%sunknown command /%s — did you mean /%s? (/help lists them)%s\n",
               sgr(u, "\033[33m"), safe ? safe : "", near, sgr(u, "\033[0m"));
    else
        printf("%sunknown command /%s — /help lists the commands%s\n", sgr(u, "\033[33m"),
               safe ? safe : "", sgr(u, "\033[0m"));
    fflush(stdout);
    free(safe);
    return 1;
}

/* A message as the user sent it (typed at the prompt, or queued while a task ran): a
 * command of this terminal, or a message whose @mentions attach their files (mention.h)
 * and that answers the waiting ask or starts a task. */
static void run_line(struct ui *u, const char *line)
{
    const char *t = line;
    while (*t == ' ' || *t == '\t' || *t == '\n')
        t++;
    if (!*t)
        return;
    lined_remember(u->ed, line);
    if (t[0] == '/' && command(u, t))
        return;
    /* Images only from what the user typed or pasted, before @mentions add files' text: a
     * path written in a mentioned file (a hostile repository's) attaches nothing. */
    imgpaste pasted;
    if (imgpaste_scan(t, &pasted) != 0) /* out of memory: the line as typed, no images */
        memset(&pasted, 0, sizeof pasted);
    if (pasted.text)
        t = pasted.text;
    sbuf notes = SBUF_INIT;
    int attached = 0;
    char *expanded = mention_expand(u->base.cwd, t, &notes, &attached);
    if (notes.len || attached) {
        char *safe = notes.len ? termsafe_dup(notes.data, 1) : NULL;
        leave_live(u);
        if (safe)
            printf("%s%s%s", sgr(u, "\033[33m"), safe, sgr(u, "\033[0m"));
        if (attached)
            printf("%s  (%d file%s attached)%s\n", sgr(u, "\033[2m"), attached,
                   attached == 1 ? "" : "s", sgr(u, "\033[0m"));
        fflush(stdout);
        free(safe);
    }
    sbuf_release(&notes);
    submit(u, expanded ? expanded : t, &pasted); /* takes pasted, and t with it */
    free(expanded);
}

/* ---- the session ---------------------------------------------------------------------------- */

static char *history_path(const cli_options *co)
{
    sbuf p = SBUF_INIT;
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    const char *data = getenv("HEW_DATA_DIR"); /* --data-dir: everything under it */
    if (co->ephemeral)
        return NULL; /* --ephemeral: the typed lines are not kept either */
    if (data && *data)
        sbuf_printf(&p, "%s/history", data);
    else if (xdg && *xdg == '/')
        sbuf_printf(&p, "%s/hew/history", xdg);
    else if (home && *home)
        sbuf_printf(&p, "%s/.local/state/hew/history", home);
    else
        return NULL;
    return sbuf_detach(&p);
}

static int want_color(void)
{
    const char *nc = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    return !(nc && *nc) && !(term && strcmp(term, "dumb") == 0);
}

/* Before the session starts its MCP servers: when the workspace's project files are not
 * trusted, show what they would run and ask once. Yes stores the trust (hew trust); no,
 * or anything else, runs without them and does not ask again in this session. */
static void trust_dialog(struct ui *u)
{
    if (u->co->trust || !u->base.mcp)
        return;
    char err[512] = "";
    char *rep = NULL;
    (void)hew_trust_check(&u->base, u->base.cwd, &rep, err, sizeof err);
    json_t *r = rep ? json_loads(rep, 0, NULL) : NULL;
    const char *state = json_string_value(json_object_get(r, "state"));
    if (state && strcmp(state, "untrusted") == 0) {
        printf("%sThis folder's project files would start programs or connect to servers:%s\n",
               sgr(u, "\033[1;33m"), sgr(u, "\033[0m"));
        cli_trust_print(stdout, rep);
        fflush(stdout);
        char prompt[128];
        snprintf(prompt, sizeof prompt, "\1%s\1Trust this folder?\1%s\1 [y/N] › ",
                 sgr(u, "\033[1;33m"), sgr(u, "\033[0m"));
        int why;
        char *line = lined_read(u->ed, prompt, 0, NULL, &why);
        const char *l = line ? line : "";
        while (*l == ' ')
            l++;
        bool yes = strcmp(l, "y") == 0 || strcmp(l, "Y") == 0 || strcmp(l, "yes") == 0;
        if (yes && u->co->ephemeral) { /* nothing stored: trusted as --trust would */
            u->base.trust_workspace = 1;
            printf("trusted for this session only (--ephemeral stores nothing)\n");
        } else if (yes) {
            if (hew_trust_grant(&u->base, rep, err, sizeof err) == 0)
                printf("trusted: its servers start now and in later sessions, until the "
                       "files change (hew trust --revoke to undo)\n");
            else
                printf("not trusted: %s\n", err);
        } else {
            if (why == LINED_INTERRUPT)
                sigflags_take(SIGF_INT);
            printf("not trusted: this session runs without its servers (hew trust to allow "
                   "them later)\n");
        }
        free(line);
    }
    json_decref(r);
    hew_free(rep);
}

/* "landlock", "bwrap", "off" (danger-full-access), "none" (nothing can confine the
 * commands hew would: it asks before each) — what protects the commands the model runs
 * unasked. */
static void sandbox_word(const hew_options *o, char *out, size_t n)
{
    char *text = NULL;
    snprintf(out, n, "?");
    if (hew_sandbox_report(o, &text, NULL, 0) != HEW_OK)
        return;
    json_t *r = json_loads(text, 0, NULL);
    hew_free(text);
    const char *applies = json_string_value(json_object_get(r, "applies"));
    const char *backend = json_string_value(json_object_get(r, "backend"));
    if (applies && strcmp(applies, "danger-full-access") == 0)
        snprintf(out, n, "off");
    else if (backend)
        snprintf(out, n, "%s", backend);
    json_decref(r);
}

static void banner(struct ui *u)
{
    hew_options o = model_options(u);
    char *model = modelname_label(&o); /* sanitised: it may come from a project's file */
    char sandbox[32];
    sandbox_word(&u->base, sandbox, sizeof sandbox);
    printf("%shew %s%s · %s · %s · %s mode · /help for commands, Ctrl-D to leave · "
           "sandbox: %s%s\n",
           sgr(u, "\033[1m"), hew_version(), sgr(u, "\033[0;2m"), u->base.provider, model,
           u->mode, sandbox, sgr(u, "\033[0m"));
    free(model);
    fflush(stdout);
}

int cli_interactive(const cli_options *co)
{
    if (!setlocale(LC_CTYPE, "") || strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
        setlocale(LC_CTYPE, "C.UTF-8");
    struct ui *u = calloc(1, sizeof *u);
    if (!u)
        return 1;
    u->co = co;
    u->s_index = -1;
    msgtext_init(&u->mt);
    msgtext_init(&u->other);
    hew_options_init(&u->base);
    if (cli_setup_options(co, &u->base, &u->cfg) != 0) {
        free(u);
        return 2;
    }
    snprintf(u->mode, sizeof u->mode, "%s", u->base.mode ? u->base.mode : "act");
    u->mode_chosen = u->base.mode != NULL;
    u->yolo = u->base.yolo;
    u->color = want_color();
    u->q = evq_new();
    u->scr = screen_new(1, u->color);
    char *hist = history_path(co);
    u->ed = lined_new(stdin, stdout, hist);
    u->cc.base = &u->base;
    u->cc.cwd = u->base.cwd;
    u->cc.last_id = u->last_id;
    typeahead_init(&u->ta);
    if (u->ed)
        lined_set_complete(u->ed, complete_line, &u->cc);
    free(hist);
    int rc = 0;
    if (!u->q || !u->scr || !u->ed) {
        fprintf(stderr, "hew: cannot set up the terminal\n");
        rc = 1;
        goto out;
    }
    trust_dialog(u);
    if (ensure_session(u) != 0) {
        rc = 2;
        goto out;
    }
    sigflags_install();
    banner(u);
    if (co->resume_id) {
        resume_task(u, co->resume_id);
    } else if (co->task && *co->task) {
        printf("%s›%s %s\n", sgr(u, "\033[1;36m"), sgr(u, "\033[0m"), co->task);
        lined_remember(u->ed, co->task);
        for (int i = 0; i < co->nimages; i++)
            printf("  %s[image: %s]%s\n", sgr(u, "\033[2m"), co->images[i], sgr(u, "\033[0m"));
        start_task(u, co->task, co->images, co->nimages);
    }
    char prompt[64];
    while (!u->quit) {
        if (u->task && !u->pending[0]) {
            pump(u);
            continue;
        }
        if (u->hint) {
            stream_end(u);
            screen_commitf(u->scr, "%s  %s%s", sgr(u, "\033[2m"), u->hint, sgr(u, "\033[0m"));
            u->hint = NULL;
        }
        leave_live(u);
        if (u->queued) { /* typed while the task ran: sent now, as if typed here */
            char *q = u->queued;
            u->queued = NULL;
            char *safe = termsafe_dup(q, 1);
            printf("%s›%s %s\n", sgr(u, "\033[1;36m"), sgr(u, "\033[0m"), safe ? safe : "");
            fflush(stdout);
            free(safe);
            u->last_int_ms = 0;
            run_line(u, q);
            free(q);
            continue;
        }
        int why;
        char *typed = typeahead_take(&u->ta); /* typed while the task ran, not sent */
        prompt_text(prompt, sizeof prompt, u->mode, u->color);
        char *line = lined_read(u->ed, prompt, 1, typed, &why);
        free(typed);
        if (!line) {
            if (why == LINED_CLEARED) { /* Ctrl-C with text: the text goes, hew stays */
                u->last_int_ms = 0;
                printf("\n");
                continue;
            }
            if (why == LINED_INTERRUPT) {
                sigflags_take(SIGF_INT);
                long long now = clockms_mono();
                if (u->last_int_ms && now - u->last_int_ms < DOUBLE_INT_MS)
                    break;
                u->last_int_ms = now;
                printf("\n%s(Ctrl-C again to leave, or Ctrl-D)%s\n", sgr(u, "\033[2m"),
                       sgr(u, "\033[0m"));
                continue;
            }
            printf("\n");
            break; /* Ctrl-D, a quit signal, an error */
        }
        u->last_int_ms = 0;
        run_line(u, line);
        free(line);
    }
out:
    if (u->task) {
        if (strcmp(u->pending, "completion_result") == 0)
            hew_task_respond(u->task, HEW_ANSWER_YES, NULL); /* accepted: the task is done */
        else
            hew_task_abort(u->task, "the user left");
        finish_task(u);
    }
    if (u->scr)
        leave_live(u);
    if (u->session_cost > 0 && rc == 0)
        printf("%ssession: $%.4f%s\n", sgr(u, "\033[2m"), u->session_cost, sgr(u, "\033[0m"));
    sigflags_restore();
    hew_session_free(u->session);
    lined_free(u->ed);
    screen_free(u->scr);
    evq_free(u->q);
    msgtext_release(&u->mt);
    msgtext_release(&u->other);
    free(u->reqs);
    free(u->continue_text);
    imgpaste_release(&u->continue_images);
    free(u->queued);
    typeahead_release(&u->ta);
    complete_release(&u->cc);
    free(u->model);
    free(u->pending_options);
    cli_config_release(&u->cfg);
    free(u);
    fflush(stdout);
    return rc;
}
