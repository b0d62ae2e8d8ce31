/* history — the stored tasks on the command line: `hew history [--json] [SEARCH]`,
 * `hew history show ID`, `hew history delete ID`, `hew export ID DIR`, `hew import DIR`,
 * the table /history prints in the interactive session, and which task --continue and
 * --resume mean. Everything goes through the "Task history" part of include/hew.h.
 * What it prints for a person is sanitised (termsafe): titles, results and conversations
 * are the model's and the files' text; --json prints the stored bytes, JSON-escaped. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clockms.h"
#include "sbuf.h"
#include "termsafe.h"

static void age(char *out, size_t n, long long ms)
{
    long long s = ms > 0 ? ms / 1000 : 0;
    if (s < 60)
        snprintf(out, n, "%llds", s);
    else if (s < 3600)
        snprintf(out, n, "%lldm", s / 60);
    else if (s < 86400)
        snprintf(out, n, "%lldh", s / 3600);
    else
        snprintf(out, n, "%lldd", s / 86400);
}

static void count(char *out, size_t n, long long v)
{
    if (v < 1000)
        snprintf(out, n, "%lld", v);
    else if (v < 1000000)
        snprintf(out, n, "%.1fk", (double)v / 1e3);
    else
        snprintf(out, n, "%.1fM", (double)v / 1e6);
}

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long jint(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

/* The title's first line, at most max bytes, cut before a UTF-8 continuation byte. */
static void short_title(sbuf *b, const char *t, size_t max)
{
    size_t n = strcspn(t, "\r\n");
    int cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)t[n] & 0xC0) == 0x80)
            n--;
    }
    sbuf_printf(b, "%.*s%s", (int)n, t, cut ? "…" : "");
}

/* A search hit's line under its task: "  #N: " and the snippet on one line, each marked
 * word (between U+0002 and U+0003, hew.h) bold, or in [ ] without styles; the text
 * sanitised piece by piece, hew's own styles added after. */
static void snippet_line(sbuf *b, long long index, const char *snip, int bold)
{
    sbuf_printf(b, "  #%lld: ", index);
    bool in = false;
    const char *p = snip;
    while (*p) {
        size_t n = strcspn(p, "\x02\x03\r\n\t");
        termsafe_add(b, p, n);
        p += n;
        if (!*p)
            break;
        if (*p == '\x02' || *p == '\x03') {
            bool open = *p == '\x02';
            if (open != in)
                sbuf_printf(b, "%s", bold ? (open ? "\033[1m" : "\033[22m") : (open ? "[" : "]"));
            in = open;
        } else {
            sbuf_printf(b, " "); /* one line: line breaks and tabs as spaces */
        }
        p++;
    }
    if (in)
        sbuf_printf(b, "%s", bold ? "\033[22m" : "]");
    sbuf_printf(b, "\n");
}

/* A task that never got past its first request (a probe of the provider, a key that did
 * not work): no stored message, or failed without a word of output. */
static bool is_probe(const json_t *t)
{
    return jint(t, "messages") == 0 ||
           (strcmp(jstr(t, "status"), "failed") == 0 && jint(t, "tokens_out") == 0 &&
            jint(t, "messages") <= 1);
}

/* The workspace in at most 24 columns: $HOME as ~, the start cut ("…/src/proj"). */
static void short_workspace(char *out, size_t n, const char *ws)
{
    const char *home = getenv("HOME");
    char full[1024];
    size_t hl = home ? strlen(home) : 0;
    if (hl > 1 && strncmp(ws, home, hl) == 0 && (ws[hl] == '/' || !ws[hl]))
        snprintf(full, sizeof full, "~%s", ws + hl);
    else
        snprintf(full, sizeof full, "%s", ws);
    size_t len = strlen(full);
    if (len <= 24) {
        snprintf(out, n, "%s", full);
        return;
    }
    const char *tail = full + len - 23;
    while (((unsigned char)*tail & 0xC0) == 0x80)
        tail++; /* never half a character */
    snprintf(out, n, "…%s", tail);
}

/* The table of rows [from, to) of arr (sanitised, the snippets in snips), with a
 * WORKSPACE column when ws_column. */
static void table_rows(sbuf *b, json_t *arr, json_t *snips, size_t from, size_t to,
                       int ws_column, int bold)
{
    sbuf_printf(b, "%-14s %5s  %-9s %7s %8s  ", "ID", "AGE", "STATUS", "TOKENS", "COST");
    if (ws_column)
        sbuf_printf(b, "%-24s  ", "WORKSPACE");
    sbuf_printf(b, "TITLE\n");
    long long now = clockms_wall();
    for (size_t i = from; i < to; i++) {
        json_t *t = json_array_get(arr, i);
        char a[32], tok[32]; /* room for any long long */
        age(a, sizeof a, now - jint(t, "updated_ms"));
        count(tok, sizeof tok, jint(t, "tokens_in") + jint(t, "tokens_out") +
                                   jint(t, "cache_reads") + jint(t, "cache_writes"));
        sbuf_printf(b, "%-14s %5s  %-9s %7s %8.4f  ", jstr(t, "id"), a, jstr(t, "status"), tok,
                    json_number_value(json_object_get(t, "cost")));
        if (ws_column) {
            char w[1100]; /* room for any path short_workspace is given */
            short_workspace(w, sizeof w, jstr(t, "workspace"));
            /* pad by characters: "…" and ~ paths are several bytes, one column */
            size_t cols = 0;
            for (const char *p = w; *p; p++)
                cols += ((unsigned char)*p & 0xC0) != 0x80;
            sbuf_printf(b, "%s%*s  ", w, (int)(cols < 24 ? 24 - cols : 0), "");
        }
        short_title(b, jstr(t, "title"), 60);
        sbuf_printf(b, "\n");
        const char *snip = json_string_value(json_array_get(snips, i));
        if (snip && json_is_integer(json_object_get(t, "match_index")))
            snippet_line(b, jint(t, "match_index"), snip, bold);
    }
}

/* The tasks (hew_history_json), their snippets moved to *snips and the rest sanitised; the
 * probe runs left out (counted in *hidden) unless probes. NULL with err on failure. */
static json_t *load_tasks(const hew_options *o, const char *search, const char *workspace,
                          int limit, int probes, json_t **snips, size_t *hidden, char *err,
                          size_t errlen)
{
    char *js = NULL;
    *hidden = 0;
    if (hew_history_json(o, search, workspace, limit, &js, err, errlen) != HEW_OK)
        return NULL;
    json_t *all = json_loads(js, 0, NULL);
    hew_free(js);
    json_t *arr = json_array();
    *snips = json_array();
    size_t k;
    json_t *item;
    json_array_foreach(all, k, item) {
        if (!probes && is_probe(item)) {
            (*hidden)++;
            continue;
        }
        /* the snippets are taken out before the rest is sanitised: their marks are
         * control characters, sanitised around (snippet_line) */
        json_t *sn = json_object_get(item, "snippet");
        json_array_append(*snips, json_is_string(sn) ? sn : json_null());
        json_object_del(item, "snippet");
        json_array_append(arr, item);
    }
    json_decref(all);
    termsafe_json(arr);
    return arr;
}

char *cli_history_table(const char *search, int limit, int bold, char *err, size_t errlen)
{
    json_t *snips = NULL;
    size_t hidden;
    json_t *arr = load_tasks(NULL, search, NULL, limit, 1, &snips, &hidden, err, errlen);
    if (!arr)
        return NULL;
    sbuf b = SBUF_INIT;
    if (!json_array_size(arr))
        sbuf_printf(&b, "%s", search && *search ? "no stored task matches\n" : "no stored tasks yet\n");
    else
        table_rows(&b, arr, snips, 0, json_array_size(arr), 0, bold);
    json_decref(arr);
    json_decref(snips);
    return sbuf_detach(&b);
}

char *cli_history_page(const hew_options *o, const cli_history_query *q, char *err,
                       size_t errlen)
{
    json_t *snips = NULL;
    size_t hidden;
    json_t *arr = load_tasks(o, q->search, q->workspace, 0, q->probes, &snips, &hidden, err,
                             errlen);
    if (!arr)
        return NULL;
    size_t n = json_array_size(arr);
    size_t per = q->per_page > 0 ? (size_t)q->per_page : (n ? n : 1);
    size_t pages = n ? (n + per - 1) / per : 1;
    size_t page = q->page > 0 ? (size_t)q->page : 1;
    sbuf b = SBUF_INIT;
    if (!n) {
        sbuf_printf(&b, "%s", q->search && *q->search ? "no stored task matches"
                                                      : "no stored tasks yet");
        sbuf_printf(&b, "%s\n", q->workspace ? " in this workspace" : "");
    } else if (page > pages) {
        sbuf_printf(&b, "there %s only %zu page%s\n", pages == 1 ? "is" : "are", pages,
                    pages == 1 ? "" : "s");
    } else {
        size_t from = (page - 1) * per, to = from + per < n ? from + per : n;
        table_rows(&b, arr, snips, from, to, q->workspace == NULL, q->bold);
    }
    /* what is not on this page, and how to see it */
    const char *dim = q->bold ? "\033[2m" : "", *reset = q->bold ? "\033[0m" : "";
    sbuf more = SBUF_INIT;
    if (n && pages > 1)
        sbuf_printf(&more, "page %zu of %zu (%zu tasks)", page > pages ? pages : page, pages,
                    n);
    if (page < pages)
        sbuf_printf(&more, " · more: /history%s --page %zu%s%s", q->workspace ? "" : " --all",
                    page + 1, q->search && *q->search ? " " : "", q->search ? q->search : "");
    if (hidden)
        sbuf_printf(&more, "%s%zu probe run%s hidden", more.len ? " · " : "", hidden,
                    hidden == 1 ? "" : "s");
    if (q->workspace)
        sbuf_printf(&more, "%sthis workspace's tasks: /history --all for every workspace's",
                    more.len ? " · " : "");
    if (more.len)
        sbuf_printf(&b, "%s%s%s\n", dim, more.data, reset);
    sbuf_release(&more);
    json_decref(arr);
    json_decref(snips);
    return sbuf_detach(&b);
}

/* `hew history show ID [--json]`: the row, then the conversation as a transcript. */
static int show(const char *id, int as_json)
{
    char err[512] = "";
    char *js = NULL;
    if (hew_history_task_json(NULL, id, 1, &js, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    if (as_json) {
        printf("%s\n", js);
        hew_free(js);
        return 0;
    }
    json_t *t = json_loads(js, 0, NULL);
    hew_free(js);
    if (!t) {
        fprintf(stderr, "hew: the task's record does not parse\n");
        return 1;
    }
    termsafe_json(t);
    char tok_in[32], tok_out[32];
    count(tok_in, sizeof tok_in, jint(t, "tokens_in"));
    count(tok_out, sizeof tok_out, jint(t, "tokens_out"));
    printf("task %s  %s\n", jstr(t, "id"), jstr(t, "status"));
    printf("  workspace  %s\n", jstr(t, "workspace"));
    printf("  model      %s / %s (%s mode)\n", jstr(t, "provider"), jstr(t, "model"),
           jstr(t, "mode"));
    char tok_cr[32], tok_cw[32];
    count(tok_cr, sizeof tok_cr, jint(t, "cache_reads"));
    count(tok_cw, sizeof tok_cw, jint(t, "cache_writes"));
    printf("  usage      %s in, %s out, %s cache reads, %s cache writes, $%.4f (%lld "
           "requests)\n",
           tok_in, tok_out, tok_cr, tok_cw, json_number_value(json_object_get(t, "cost")),
           jint(t, "requests"));
    if (json_is_string(json_object_get(t, "result")))
        printf("  result     %s\n", jstr(t, "result"));
    printf("\n");
    const char *no_color = getenv("NO_COLOR");
    render_plain *r = render_plain_new(stdout, isatty(1) && !(no_color && *no_color));
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(t, "events"), i, e) {
        if (!json_is_object(e))
            continue;
        json_t *data = json_object_get(e, "data");
        char *data_json = data ? json_dumps(data, JSON_COMPACT) : NULL;
        hew_event ev = { 0 };
        ev.version = (int)jint(e, "v");
        ev.index = (long)jint(e, "index");
        ev.ts = jint(e, "ts");
        ev.is_ask = strcmp(jstr(e, "kind"), "ask") == 0;
        ev.type = jstr(e, "type");
        ev.kind = hew_event_kind_of(ev.type);
        ev.text = json_string_value(json_object_get(e, "text"));
        /* a stored message is whole: its append is the whole text */
        ev.append_text = ev.text;
        ev.append_len = ev.text ? strlen(ev.text) : 0;
        ev.data_json = data_json;
        ev.partial = 0;
        render_plain_event(r, &ev);
        free(data_json);
    }
    render_plain_free(r);
    json_decref(t);
    return 0;
}

/* Styles on standard output: a terminal, and NO_COLOR unset or empty. */
static int use_bold(void)
{
    const char *no_color = getenv("NO_COLOR");
    return isatty(1) && !(no_color && *no_color);
}

static int usage_error(const char *msg)
{
    fprintf(stderr, "hew: %s\n"
                    "usage: hew history [--json] [--limit N] [--] [SEARCH]  the stored tasks, newest\n"
                    "                                  first; SEARCH: words in their messages\n"
                    "       hew history show [--json] ID   one task and its conversation\n"
                    "       hew history delete ID          forget a task\n"
                    "       hew export ID DIR   |   hew import DIR [--cwd WORKSPACE]\n",
            msg);
    return 2;
}

int cli_history(int argc, char **argv)
{
    int as_json = 0, limit = 0;
    const char *words[3] = { NULL, NULL, NULL };
    int nw = 0;
    bool words_only = false; /* after "--": a search starting with '-' */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (words_only || (a[0] != '-' || !a[1])) {
            if (nw == 3)
                return usage_error("too many words");
            words[nw++] = a;
        } else if (strcmp(a, "--") == 0) {
            words_only = true;
        } else if (strcmp(a, "--json") == 0) {
            as_json = 1;
        } else if (strcmp(a, "--limit") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 1000000)
                return usage_error("--limit wants a number");
            limit = (int)v;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_error("the task history");
            return 0;
        } else {
            return usage_error("unknown option for history (a search starting with '-' "
                               "goes after --)");
        }
    }
    char err[512] = "";
    if (words[0] && (strcmp(words[0], "show") == 0 || strcmp(words[0], "delete") == 0)) {
        if (nw != 2)
            return usage_error("history show/delete want one task id");
        if (words[0][0] == 's')
            return show(words[1], as_json);
        if (hew_history_delete(NULL, words[1], err, sizeof err) != 0) {
            fprintf(stderr, "hew: %s\n", err);
            return 1;
        }
        printf("deleted task %s\n", words[1]);
        return 0;
    }
    if (nw > 1)
        return usage_error("history takes one search text (quote it)");
    char *out = NULL;
    if (as_json)
        (void)hew_history_json(NULL, words[0], NULL, limit, &out, err, sizeof err);
    else
        out = cli_history_table(words[0], limit, use_bold(), err, sizeof err);
    if (!out) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    fputs(out, stdout);
    if (as_json) {
        fputc('\n', stdout);
        hew_free(out);
    } else {
        free(out);
    }
    return 0;
}

int cli_export(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("export wants a task id and a directory");
    char err[512] = "";
    if (hew_history_export(NULL, argv[0], argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    printf("exported task %s to %s\n", argv[0], argv[1]);
    return 0;
}

int cli_import(int argc, char **argv)
{
    const char *dir = NULL, *ws = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--cwd") == 0 && i + 1 < argc)
            ws = argv[++i];
        else if (argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            return usage_error("import wants a directory (and optionally --cwd WORKSPACE)");
    }
    if (!dir)
        return usage_error("import wants a directory");
    char err[512] = "", id[80] = "";
    if (hew_history_import(NULL, dir, ws, id, sizeof id, err, sizeof err) != 0) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    printf("imported task %s\n", id);
    return 0;
}

char *cli_resume_target(const cli_options *co)
{
    if (co->resume_id) {
        char err[512] = "";
        char *js = NULL;
        if (hew_history_task_json(NULL, co->resume_id, 0, &js, err, sizeof err) != HEW_OK) {
            fprintf(stderr, "hew: %s\n", err);
            return NULL;
        }
        hew_free(js);
        return strdup(co->resume_id);
    }
    hew_options o;
    hew_options_init(&o);
    o.cwd = co->cwd;
    char err[512] = "";
    char *latest = NULL, *id = NULL;
    if (hew_history_latest(&o, NULL, &latest, err, sizeof err) != HEW_OK)
        fprintf(stderr, "hew: --continue: %s\n", err);
    else if (!(id = strdup(latest))) /* ours, freed with free() as the other answer */
        fprintf(stderr, "hew: --continue: out of memory\n");
    hew_free(latest);
    return id;
}
