/* headless — `hew -p "task"`: run one task to the end without a terminal and print the
 * result (or, with --json, every event as one JSON line and nothing else on stdout).
 * Asks that need a human are answered by policy: --yolo approves everything; otherwise
 * tool approvals are denied with a message and questions get a note that nobody can
 * answer — never a hang. With --resume/--continue (hew resume ID) a stored task goes on:
 * its resume ask is answered yes, or with the -p text as new instructions and the -i
 * images after them. An image that cannot be sent stops the run with exit status 2 before
 * any request, as for a new task: checked whole before the stored task is opened
 * (hew_images_check), so the store stays as it was; one that changed since is refused at
 * the resume ask, which is then answered no (the task keeps its status and conversation,
 * as a resume not gone on with).
 * Nobody approves here (hew_options.unattended): every action refused for want of
 * approval is kept with the narrowest flag that would allow it (the approval words in
 * use plus the one it needs, an --allow-command rule for a command when one suffices,
 * --yolo only when nothing narrower does), listed on standard error at the end ("hew: 2
 * actions were denied ...") and in the end line's "denied".
 * Exit status by class (hew_task_outcome; docs/events.md "Exit status", man hew EXIT
 * STATUS): 0 completed with nothing denied, 1 failed, 2 usage or configuration, 3 key or
 * account refused, 4 provider unavailable after the retries, 5 --timeout, 6 a budget
 * (--max-cost, --max-requests), 7 ended with actions denied, 130 interrupted — the
 * timeout is this file's own fact (its watcher fired), the rest the library's. The end
 * line of --json carries the same code and the totals (usage, cost_usd, requests,
 * tool_calls, retries, duration_ms).
 * Text from outside hew (the result, errors, the --verbose transcript) is sanitised
 * (termsafe) wherever it goes, except the result on a standard output that is not a
 * terminal, which stays byte-exact for the program reading it (and --json, which is
 * JSON-escaped). */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "hew.h"
#include "sbuf.h"
#include "sigwatch.h"
#include "termsafe.h"

struct headless {
    int json;
    render_plain *show; /* --verbose: the transcript on stderr */
    int yolo;
    int interrupted;
    int timed_out;
    long timeout_s;
    hew_task *task;
    int resuming;            /* a resumed task: asks before the resume ask are replayed */
    const char *resume_text; /* new instructions for the resume ask, or NULL: yes */
    hew_image resume_images[HEW_TASK_IMAGES_MAX]; /* -i: with the instructions */
    size_t nresume_images;
    char refused[512]; /* why the resume ask refused the images ("" they went) */
    char approve_words[128]; /* the --auto-approve words in use ("read"), for the flags */
    pthread_mutex_t lock;
};

#define HEADLESS_MAX_TASKS 10

/* Answer an ask by policy; called on the task thread. */
static void answer_by_policy(struct headless *h, hew_task *task, const hew_event *ev)
{
    const char *type = ev->type;
    hew_event_kind k = ev->kind;
    if (h->resuming) { /* the replayed conversation: only the resume ask is live */
        if (k != HEW_EV_RESUME_TASK && k != HEW_EV_RESUME_COMPLETED_TASK)
            return;
        if (h->nresume_images) {
            char err[sizeof h->refused] = "";
            hew_code rc = hew_task_respond_with_images(task, HEW_ANSWER_MESSAGE, h->resume_text,
                                                       h->resume_images, h->nresume_images,
                                                       err, sizeof err);
            if (rc == HEW_E_STATE)
                return;
            if (rc != HEW_OK) { /* not gone on with: read after the task ends */
                snprintf(h->refused, sizeof h->refused, "%s", err[0] ? err : "image refused");
                hew_task_respond(task, HEW_ANSWER_NO, NULL);
            }
            h->resuming = 0;
            return;
        }
        if (hew_task_respond(task, h->resume_text ? HEW_ANSWER_MESSAGE : HEW_ANSWER_YES,
                             h->resume_text) == 0)
            h->resuming = 0;
        return;
    }
    if (k == HEW_EV_COMMAND_OUTPUT)
        return; /* a running command's output: nothing to answer (the command goes on) */
    if (k == HEW_EV_COMPLETION_RESULT || k == HEW_EV_RESUME_TASK ||
        k == HEW_EV_RESUME_COMPLETED_TASK) {
        hew_task_respond(task, HEW_ANSWER_YES, NULL);
    } else if (k == HEW_EV_FOLLOWUP) { /* a question only a human can answer */
        hew_task_respond(task, HEW_ANSWER_MESSAGE,
                         "(hew runs headless: nobody can answer questions. Decide with the "
                         "information you have and go on.)");
    } else if (k == HEW_EV_PLAN_MODE_RESPOND) {
        hew_task_respond(task, HEW_ANSWER_MESSAGE,
                         "(hew runs headless: nobody can review the plan. Finish with "
                         "attempt_completion, giving the plan as the result.)");
    } else if (k == HEW_EV_NEW_TASK && !h->yolo) {
        hew_task_respond(task, HEW_ANSWER_NO,
                         "(hew runs headless: a new task starts only with --yolo. Go on with "
                         "the current task here.)");
    } else if (k == HEW_EV_API_REQ_FAILED || k == HEW_EV_MISTAKE_LIMIT_REACHED) {
        hew_task_respond(task, HEW_ANSWER_NO, NULL);
    } else if (h->yolo) {
        hew_task_respond(task, HEW_ANSWER_YES, NULL);
    } else {
        /* An edit of one of hew's control files (.hew/, .git/, …) asks whatever the
         * auto-approval: headless, only --yolo allows it. */
        json_t *d = ev->data_json ? json_loads(ev->data_json, 0, NULL) : NULL;
        const char *control = json_string_value(json_object_get(d, "controlFile"));
        const char *path = json_string_value(json_object_get(d, "path"));
        if (!h->json && control) {
            fputs("hew: denied a change to hew's control file ", stderr);
            for (const char *p = path ? path : "?"; *p; p++) /* no control bytes from a name */
                fputc((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p, stderr);
            fprintf(stderr, " (%s; headless: only --yolo allows it)\n", control);
        } else if (!h->json) {
            fprintf(stderr, "hew: denied %s (nobody can approve it headless; the flag that "
                            "allows it is listed at the end)\n", type);
        }
        json_decref(d);
        hew_task_respond(task, HEW_ANSWER_NO,
                         "Denied automatically: hew runs headless without approval for this "
                         "action (the user can allow it with --yolo).");
    }
}

static void on_event(void *ud, hew_task *task, const hew_event *ev)
{
    struct headless *h = ud;
    if (h->json) {
        fputs(hew_event_json(ev), stdout);
        fputc('\n', stdout);
        fflush(stdout);
    } else if (h->show) {
        render_plain_event(h->show, ev);
    } else if (!ev->partial && ev->kind == HEW_EV_ERROR) {
        fputs("hew: ", stderr);
        termsafe_fputs(ev->text ? ev->text : "error", stderr);
        fputc('\n', stderr);
    } else if (!ev->partial && ev->kind == HEW_EV_NOTICE) {
        fputs("hew: warning: ", stderr);
        termsafe_fputs(ev->text ? ev->text : "", stderr);
        fputc('\n', stderr);
    } else if (!ev->partial && ev->kind == HEW_EV_ERROR_RETRY && ev->data_json) {
        json_t *d = json_loads(ev->data_json, 0, NULL);
        termsafe_json(d); /* a provider's error message */
        const char *why = json_string_value(json_object_get(d, "errorMessage"));
        long long k = json_integer_value(json_object_get(d, "attempt"));
        long long n = json_integer_value(json_object_get(d, "maxAttempts"));
        if (json_is_true(json_object_get(d, "failed")))
            ; /* the error that follows says it */
        else
            fprintf(stderr, "hew: retrying in %.3g s (%lld/%lld): %s\n",
                    json_number_value(json_object_get(d, "delaySeconds")), k, n,
                    why ? why : "the request failed");
        json_decref(d);
    }
    if (ev->is_ask && !ev->partial)
        answer_by_policy(h, task, ev);
}

/* SIGINT/SIGTERM, or the --timeout (sig 0), from sigwatch: abort the task. */
static void on_signal(void *ud, int sig)
{
    struct headless *h = ud;
    pthread_mutex_lock(&h->lock);
    if (sig == 0)
        h->timed_out = 1;
    else
        h->interrupted = 1;
    if (h->task)
        hew_task_abort(h->task, sig == 0 ? "the --timeout was reached" : "interrupted");
    pthread_mutex_unlock(&h->lock);
}

/* ---- the denied actions and the flags that allow them ---------------------------------- */

/* Is word in the comma-separated list? */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, word, n) == 0)
            return 1;
        p += k;
        p += *p == ',';
    }
    return 0;
}

/* Shell-quoted for a command line a user pastes: '…' with ' as '\''. */
static void put_quoted(sbuf *b, const char *s)
{
    sbuf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            sbuf_puts(b, "'\\''");
        else
            sbuf_putc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
    }
    sbuf_putc(b, '\'');
}

/* The flag(s) that would allow the denied entries of list (one entry, or all of them):
 * --yolo when one of them needs it, else --auto-approve with the words in use and those
 * they need, plus their --allow-command rules. A new string (NULL: out of memory). */
static char *allow_flag(const struct headless *h, json_t *list)
{
    char words[512];
    snprintf(words, sizeof words, "%s", strcmp(h->approve_words, "none") ? h->approve_words : "");
    size_t before = strlen(words);
    size_t i, j;
    json_t *e, *w;
    json_array_foreach(list, i, e) {
        json_array_foreach(json_object_get(e, "allow"), j, w) {
            const char *word = json_string_value(w);
            if (!word)
                continue;
            if (strcmp(word, "yolo") == 0)
                return strdup("--yolo");
            size_t len = strlen(words);
            if (!has_word(words, word) && len + strlen(word) + 2 < sizeof words)
                snprintf(words + len, sizeof words - len, "%s%s", len ? "," : "", word);
        }
    }
    sbuf b = SBUF_INIT;
    if (strlen(words) != before)
        sbuf_printf(&b, "--auto-approve %s", words);
    json_array_foreach(list, i, e) {
        const char *rule = json_string_value(json_object_get(e, "rule"));
        if (rule) {
            sbuf_puts(&b, b.len ? " --allow-command " : "--allow-command ");
            put_quoted(&b, rule);
        }
    }
    /* a command refused a run without the sandbox: only the mode allows it */
    json_array_foreach(list, i, e) {
        const char *mode = json_string_value(json_object_get(e, "sandbox"));
        if (mode && !strstr(b.data ? b.data : "", "--sandbox ")) {
            sbuf_printf(&b, "%s--sandbox %s", b.len ? " " : "", mode);
        }
    }
    if (!b.len)
        sbuf_puts(&b, "--yolo");
    return sbuf_detach(&b);
}

/* The task's denied actions, each with its "flag" (a new array, [] when none). */
static json_t *denied_list(const struct headless *h, const hew_task *t)
{
    hew_outcome oc;
    char *text = NULL;
    json_t *list = hew_task_outcome(t, &oc, &text) == HEW_OK && text
                       ? json_loads(text, 0, NULL)
                       : NULL;
    hew_free(text);
    if (!json_is_array(list)) {
        json_decref(list);
        return json_array();
    }
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        json_t *one = json_pack("[O]", e);
        char *flag = allow_flag(h, one);
        json_object_set_new(e, "flag", json_string(flag ? flag : "--yolo"));
        free(flag);
        json_decref(one);
    }
    return list;
}

/* What a denied action was, for a line on standard error. */
static void print_action(json_t *e)
{
    static const char *const what[] = { "command", "path", "server", "uri" };
    const char *tool = json_string_value(json_object_get(e, "tool"));
    const char *type = json_string_value(json_object_get(e, "type"));
    fputs(tool ? tool : type ? type : "an action", stderr);
    for (size_t k = 0; k < sizeof what / sizeof what[0]; k++) {
        const char *v = json_string_value(json_object_get(e, what[k]));
        if (v) {
            fputs(" ", stderr);
            termsafe_fputs(v, stderr);
        }
    }
    const char *mcp_tool = json_string_value(json_object_get(e, "mcp_tool"));
    if (mcp_tool) {
        fputs(" ", stderr);
        termsafe_fputs(mcp_tool, stderr);
    }
}

/* "hew: 2 actions were denied for want of approval: …" on standard error. */
static void print_denied(const struct headless *h, json_t *list)
{
    size_t n = json_array_size(list);
    if (!n)
        return;
    fprintf(stderr, "hew: %zu action%s denied for want of approval (hew -p asks nobody):\n", n,
            n == 1 ? " was" : "s were");
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        fputs("  ", stderr);
        print_action(e);
        fprintf(stderr, " — allow with %s\n", json_string_value(json_object_get(e, "flag")));
    }
    if (n > 1) {
        char *all = allow_flag(h, list);
        fprintf(stderr, "hew: allow them all with %s\n", all ? all : "--yolo");
        free(all);
    }
}

/* ---- the end ---------------------------------------------------------------------------- */

/* The exit status of a task that ended with st: the library's class, or 130 / 5 when a
 * signal / this run's --timeout stopped it (the library only knows it was stopped). */
static int exit_code_of(const struct headless *h, const hew_task *t, hew_task_status st)
{
    hew_outcome oc;
    if (hew_task_outcome(t, &oc, NULL) != HEW_OK)
        return st == HEW_TASK_COMPLETED ? 0 : 1;
    if (st != HEW_TASK_COMPLETED && h->interrupted) /* a signal: whatever the task said */
        return HEW_EXIT_INTERRUPTED;
    if (st != HEW_TASK_COMPLETED && h->timed_out)
        return HEW_EXIT_TIMEOUT;
    return (int)oc.exit_code;
}

static const char *class_word(int code)
{
    static const struct {
        int code;
        const char *word;
    } words[] = {
        { 0, "completed" }, { 1, "failed" }, { 2, "config" }, { 3, "refused" },
        { 4, "unavailable" }, { 5, "timeout" }, { 6, "budget" }, { 7, "denied" },
        { 130, "interrupted" },
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (words[i].code == code)
            return words[i].word;
    return "failed";
}

/* The end line of a task (docs/events.md, "The end line"); next_id: the task it handed
 * over to, or NULL. denied: its denied actions (borrowed). */
static void print_json_end(const hew_task *t, hew_task_status st, const char *result,
                           const char *next_id, json_t *denied, int code)
{
    const char *name = st == HEW_TASK_COMPLETED ? "completed"
                       : st == HEW_TASK_ABORTED ? "aborted"
                                                : "failed";
    hew_totals tot;
    hew_task_totals(t, &tot, NULL);
    hew_outcome oc;
    if (hew_task_outcome(t, &oc, NULL) != HEW_OK)
        memset(&oc, 0, sizeof oc);
    json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s}", "v", HEW_EVENT_VERSION, "kind", "end",
                          "type", "task_end", "task", hew_task_id(t), "status", name);
    if (!o) {
        fputs("{\"v\":2,\"kind\":\"end\",\"type\":\"task_end\",\"status\":\"failed\"}\n",
              stdout);
        fflush(stdout);
        return;
    }
    json_t *r = json_string(result);
    if (!r) { /* not valid UTF-8 (rare: the texts hew makes are): its ASCII, '?' for the rest */
        char *ascii = strdup(result);
        for (char *p = ascii; p && *p; p++)
            if ((unsigned char)*p >= 0x80)
                *p = '?';
        r = json_string(ascii ? ascii : "");
        free(ascii);
    }
    json_object_set_new(o, "result", r);
    if (next_id)
        json_object_set_new(o, "next_task", json_string(next_id));
    json_object_set_new(o, "totals",
                        json_pack("{s:I, s:I, s:I, s:I, s:f, s:I}", "tokens_in",
                                  (json_int_t)tot.tokens_in, "tokens_out",
                                  (json_int_t)tot.tokens_out, "cache_reads",
                                  (json_int_t)tot.cache_reads, "cache_writes",
                                  (json_int_t)tot.cache_writes, "cost", tot.cost, "requests",
                                  (json_int_t)tot.requests));
    json_object_set_new(o, "usage",
                        json_pack("{s:I, s:I, s:I, s:I}", "input_tokens",
                                  (json_int_t)tot.tokens_in, "output_tokens",
                                  (json_int_t)tot.tokens_out, "cache_read_tokens",
                                  (json_int_t)tot.cache_reads, "cache_write_tokens",
                                  (json_int_t)tot.cache_writes));
    json_object_set_new(o, "cost_usd", json_real(tot.cost));
    json_object_set_new(o, "requests", json_integer((json_int_t)tot.requests));
    json_object_set_new(o, "tool_calls", json_integer((json_int_t)oc.tool_calls));
    json_object_set_new(o, "retries", json_integer((json_int_t)oc.retries));
    json_object_set_new(o, "duration_ms", json_integer((json_int_t)oc.duration_ms));
    json_object_set_new(o, "exit_code", json_integer(code));
    json_object_set_new(o, "reason", json_string(class_word(code)));
    if (oc.error_category && *oc.error_category)
        json_object_set_new(o, "error_category", json_string(oc.error_category));
    json_object_set(o, "denied", denied);
    char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (line) {
        fputs(line, stdout);
        fputc('\n', stdout);
    }
    free(line);
    fflush(stdout);
}

/* The task the finished one handed over to (new_task), started; NULL when there is none
 * or it cannot start (said on standard error). */
static hew_task *start_successor(struct headless *h, hew_session *s, hew_task *done,
                                 hew_task_status st, int started)
{
    const char *next = hew_task_successor(done);
    if (!next || st != HEW_TASK_COMPLETED || h->interrupted || h->timed_out)
        return NULL;
    if (started >= HEADLESS_MAX_TASKS) {
        fprintf(stderr, "hew: not starting another new task: %d tasks in a row already\n",
                started);
        return NULL;
    }
    char err[512] = "";
    hew_task *t = NULL;
    if (hew_task_start(s, next, &t, err, sizeof err) != HEW_OK)
        fprintf(stderr, "hew: cannot start the new task: %s\n", err);
    else if (!h->json)
        fprintf(stderr, "hew: the model handed over to a new task; going on in it\n");
    return t;
}

/* Wait for the task and each task it hands over to; prints the end(s), returns the exit
 * status. */
static int run_tasks(struct headless *h, hew_session *s)
{
    for (int started = 1;; started++) {
        hew_task_status st = hew_task_wait(h->task);
        const char *result = hew_task_result(h->task);
        hew_task *next = start_successor(h, s, h->task, st, started);
        int code = h->refused[0] ? 2 : exit_code_of(h, h->task, st); /* -i: a usage error */
        if (h->refused[0])
            result = h->refused;
        json_t *denied = denied_list(h, h->task);
        if (h->json)
            print_json_end(h->task, st, result, next ? hew_task_id(next) : NULL, denied, code);
        else
            print_denied(h, denied);
        json_decref(denied);
        if (next) {
            pthread_mutex_lock(&h->lock);
            hew_task *done = h->task;
            h->task = next;
            if (h->interrupted || h->timed_out) /* a signal while it started */
                hew_task_abort(next, h->timed_out ? "the --timeout was reached" : "interrupted");
            pthread_mutex_unlock(&h->lock);
            hew_task_free(done);
            continue;
        }
        if (!h->json && st == HEW_TASK_COMPLETED) {
            if (isatty(1)) /* a person reads it: nothing in it may drive the terminal */
                termsafe_fputs(result, stdout);
            else /* a program reads it: the exact bytes */
                fputs(result, stdout);
            fputc('\n', stdout);
        } else if (!h->json) {
            fprintf(stderr, "hew: %s", h->timed_out ? "timed out: " : "");
            termsafe_fputs(result, stderr);
            fputc('\n', stderr);
        }
        return code;
    }
}

/* The -i images of a resumed task, checked whole before the stored task is opened, so
 * that one that cannot be sent leaves it untouched (the model, each file read, decoded and
 * prepared: hew_images_check). 0, or -1 said on standard error. */
static int resume_images_check(const struct headless *h, hew_session *s)
{
    if (!h->nresume_images)
        return 0;
    char err[512] = "";
    if (hew_images_check(s, h->resume_images, h->nresume_images, err, sizeof err) == HEW_OK)
        return 0;
    fputs("hew: ", stderr);
    termsafe_fputs(err, stderr); /* it quotes the name */
    fputs(" (-i)\n", stderr);
    return -1;
}

int cli_headless(const cli_options *co)
{
    struct headless h;
    memset(&h, 0, sizeof h);
    h.json = co->json;
    if (co->verbose && !co->json) {
        const char *no_color = getenv("NO_COLOR");
        h.show = render_plain_new(stderr, isatty(2) && !(no_color && *no_color));
    }
    pthread_mutex_init(&h.lock, NULL);

    char *owned = NULL;
    const char *text = co->task;
    if (co->resume_id) {
        h.resuming = 1;
        h.resume_text = text && *text ? text : NULL;
        for (int i = 0; i < co->nimages; i++)
            h.resume_images[h.nresume_images++].path = co->images[i];
    } else if (!(owned = cli_stdin_task(text))) { /* -p TEXT joined with stdin */
        return 2;
    } else {
        text = owned;
    }
    if (!co->resume_id && (!text || !*text)) {
        fprintf(stderr, "hew: no task given — pass it after -p or on standard input\n");
        free(owned);
        return 2;
    }

    hew_options o;
    hew_options_init(&o);
    cli_config cfg;
    if (cli_setup_options(co, &o, &cfg) != 0) {
        free(owned);
        return 2;
    }
    h.yolo = o.yolo;
    o.unattended = 1; /* nobody approves: a refusal is a denial for want of approval */
    snprintf(h.approve_words, sizeof h.approve_words, "%s",
             cli_auto_approve_str(cfg.num[CFG_AUTO_APPROVE]));
    h.timeout_s = cfg.num[CFG_TASK_TIMEOUT_S];
    o.on_event = on_event;
    o.event_ud = &h;
    char err[512] = "";
    hew_session *s = NULL;
    if (hew_session_new(&o, &s, err, sizeof err) != HEW_OK) {
        cli_explain_session_error(err, o.provider);
        cli_config_release(&cfg);
        free(owned);
        return 2;
    }
    cli_note_unknown_model(&o);
    int images_bad = resume_images_check(&h, s) != 0;
    cli_config_release(&cfg); /* (o's strings are its) */
    if (images_bad) {
        hew_session_free(s);
        free(owned);
        return 2;
    }

    sigwatch watch;
    sigwatch_start(&watch, h.timeout_s, true, on_signal, &h);

    pthread_mutex_lock(&h.lock);
    hew_code started = co->resume_id
                           ? hew_task_resume(s, co->resume_id, &h.task, err, sizeof err)
                           : hew_task_start_images(s, text, co->images, (size_t)co->nimages,
                                                   &h.task, err, sizeof err);
    pthread_mutex_unlock(&h.lock);
    int code;
    if (!h.task) {
        fprintf(stderr, "hew: %s\n", err);
        /* an image -i named that cannot be sent is a usage error, as a bad flag is */
        code = co->nimages && !co->resume_id &&
                       (started == HEW_E_INVALID || started == HEW_E_NOTFOUND)
                   ? 2
                   : 1;
    } else {
        code = run_tasks(&h, s);
    }
    code = cli_outfile_finish(co->output, h.task, code); /* -o FILE */
    pthread_mutex_lock(&h.lock);
    hew_task *task = h.task;
    h.task = NULL;
    pthread_mutex_unlock(&h.lock);
    sigwatch_stop(&watch);
    hew_task_free(task);
    hew_session_free(s);
    pthread_mutex_destroy(&h.lock);
    render_plain_free(h.show);
    free(owned);
    return code;
}
