/* batch_line — one line of a `hew batch` TASKS file → a task (id, prompt, cwd, the child's
 * flags). The options are a table: key, kind of value, the `hew -p` flag it becomes. It
 * must never do I/O, and never let a value reach the child as anything but the value of
 * its own flag (argv entries, no command line is ever glued together). */
#include "lib/batch_line.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"

typedef enum opt_kind {
    OPT_STR,       /* a non-empty string: FLAG VALUE */
    OPT_INT,       /* a whole number >= 0: FLAG N */
    OPT_NUM,       /* a number >= 0: FLAG X */
    OPT_BOOL,      /* true: FLAG; false: nothing */
    OPT_LIST_JOIN, /* a string, or an array of strings joined with ',': FLAG A,B */
    OPT_LIST_EACH, /* a string, or an array of strings: FLAG A FLAG B */
    OPT_CHOICE     /* one of the words of choices: that word's flag alone */
} opt_kind;

typedef struct opt_choice {
    const char *word, *flag;
} opt_choice;

static const opt_choice mode_choices[] = { { "plan", "--plan" }, { "act", "--act" }, { NULL, NULL } };
static const opt_choice tools_choices[] = { { "native", "--native-tools" },
                                            { "xml", "--xml-tools" },
                                            { NULL, NULL } };

static const struct batch_opt {
    const char *key;
    opt_kind kind;
    const char *flag;
    const opt_choice *choices; /* OPT_CHOICE */
    bool is_timeout;           /* also the runner's deadline for the child */
} batch_opts[] = {
    { "model", OPT_STR, "--model", NULL, false },
    { "provider", OPT_STR, "--provider", NULL, false },
    { "protocol", OPT_STR, "--protocol", NULL, false },
    { "base_url", OPT_STR, "--base-url", NULL, false },
    { "timeout", OPT_INT, "--timeout", NULL, true },
    { "auto_approve", OPT_LIST_JOIN, "--auto-approve", NULL, false },
    { "yolo", OPT_BOOL, "--yolo", NULL, false },
    { "mode", OPT_CHOICE, NULL, mode_choices, false },
    { "tools", OPT_CHOICE, NULL, tools_choices, false },
    { "thinking", OPT_INT, "--thinking", NULL, false },
    { "retry_delay_ms", OPT_INT, "--retry-delay-ms", NULL, false },
    { "allow_command", OPT_LIST_EACH, "--allow-command", NULL, false },
    { "deny_command", OPT_LIST_EACH, "--deny-command", NULL, false },
    { "no_config", OPT_BOOL, "--no-config", NULL, false },
    { "trust", OPT_BOOL, "--trust", NULL, false },
    { "max_cost", OPT_NUM, "--max-cost", NULL, false },
    { "max_requests", OPT_INT, "--max-requests", NULL, false },
    { "data_dir", OPT_STR, "--data-dir", NULL, false },
    { "ephemeral", OPT_BOOL, "--ephemeral", NULL, false },
    { "no_checkpoints", OPT_BOOL, "--no-checkpoints", NULL, false },
    { "no_mcp", OPT_BOOL, "--no-mcp", NULL, false },
    { "api_key_file", OPT_STR, "--api-key-file", NULL, false },
    { "output", OPT_STR, "-o", NULL, false },
    { "record", OPT_STR, "--record", NULL, false },
    { "sandbox", OPT_STR, "--sandbox", NULL, false },
};

#define NOPTS (sizeof batch_opts / sizeof batch_opts[0])

const char *batch_line_keys(void)
{
    return "id, prompt, cwd, model, provider, protocol, base_url, timeout, auto_approve, "
           "yolo, mode, tools, thinking, retry_delay_ms, allow_command, deny_command, "
           "no_config, trust, max_cost, max_requests, data_dir, ephemeral, no_checkpoints, "
           "no_mcp, api_key_file, output, record, sandbox";
}

bool batch_line_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

static char *dup_str(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Set the error once (the first one wins); false only for want of memory. */
static bool fail(batch_task *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(batch_task *t, const char *fmt, ...)
{
    if (t->error)
        return true;
    buf b = BUF_INIT(4096);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    t->error = buf_detach(&b, NULL);
    buf_release(&b);
    return t->error != NULL;
}

static bool add_arg(batch_task *t, const char *a)
{
    char **grown = realloc(t->args, (t->nargs + 2) * sizeof *grown);
    if (!grown)
        return false;
    t->args = grown;
    if (!(t->args[t->nargs] = strdup(a)))
        return false;
    t->args[++t->nargs] = NULL;
    return true;
}

static bool add_pair(batch_task *t, const char *flag, const char *value)
{
    return add_arg(t, flag) && add_arg(t, value);
}

/* The strings of v (a string, or an array of strings), checked; false with t->error set
 * (or for want of memory: then t->error is NULL). */
static bool list_ok(batch_task *t, const char *key, const json_t *v)
{
    if (json_is_string(v))
        return json_string_length(v) > 0 || !fail(t, "%s: the string is empty", key);
    if (!json_is_array(v) || json_array_size(v) == 0)
        return !fail(t, "%s: expected a string or a non-empty array of strings, got %s", key,
                     json_type_phrase(v));
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!json_is_string(e) || json_string_length(e) == 0)
            return !fail(t, "%s[%zu]: expected a non-empty string, got %s", key, i,
                         json_type_phrase(e));
    }
    return true;
}

/* One option; false only for want of memory. */
static bool take_option(batch_task *t, const struct batch_opt *o, const json_t *v)
{
    char num[64];
    switch (o->kind) {
    case OPT_STR:
        if (!json_is_string(v) || json_string_length(v) == 0)
            return fail(t, "%s: expected a non-empty string, got %s", o->key,
                        json_is_string(v) ? "an empty one" : json_type_phrase(v));
        return add_pair(t, o->flag, json_string_value(v));
    case OPT_INT:
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return fail(t, "%s: expected a whole number >= 0, got %s", o->key,
                        json_is_integer(v) ? "a negative one" : json_type_phrase(v));
        if (o->is_timeout)
            t->timeout_s = (long)json_integer_value(v);
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        return add_pair(t, o->flag, num);
    case OPT_NUM:
        if (!json_is_number(v) || json_number_value(v) < 0)
            return fail(t, "%s: expected a number >= 0, got %s", o->key,
                        json_is_number(v) ? "a negative one" : json_type_phrase(v));
        if (json_is_integer(v))
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        else
            snprintf(num, sizeof num, "%.15g", json_real_value(v));
        return add_pair(t, o->flag, num);
    case OPT_BOOL:
        if (!json_is_boolean(v))
            return fail(t, "%s: expected true or false, got %s", o->key, json_type_phrase(v));
        return json_is_false(v) || add_arg(t, o->flag);
    case OPT_LIST_JOIN:
    case OPT_LIST_EACH: {
        if (!list_ok(t, o->key, v))
            return t->error != NULL;
        if (json_is_string(v))
            return add_pair(t, o->flag, json_string_value(v));
        if (o->kind == OPT_LIST_EACH) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                if (!add_pair(t, o->flag, json_string_value(e)))
                    return false;
            }
            return true;
        }
        buf b = BUF_INIT(1 << 20);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (i)
                buf_putc(&b, ',');
            buf_puts(&b, json_string_value(e));
        }
        char *joined = buf_detach(&b, NULL);
        buf_release(&b);
        bool ok = joined && add_pair(t, o->flag, joined);
        free(joined);
        return ok;
    }
    case OPT_CHOICE: {
        const char *word = json_string_value(v);
        for (const opt_choice *c = o->choices; word && c->word; c++)
            if (strcmp(word, c->word) == 0)
                return add_arg(t, c->flag);
        buf b = BUF_INIT(1024);
        for (const opt_choice *c = o->choices; c->word; c++)
            buf_printf(&b, "%s\"%s\"", c == o->choices ? "" : " or ", c->word);
        bool ok = fail(t, "%s: expected %s, got %s", o->key, b.data ? b.data : "?",
                       word ? "another word" : json_type_phrase(v));
        buf_release(&b);
        return ok;
    }
    }
    return true;
}

/* A control character makes an id unusable in messages and file names. */
static bool id_clean(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

static bool take_id(batch_task *t, const json_t *v)
{
    char num[32];
    const char *id = NULL;
    if (json_is_integer(v)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        id = num;
    } else if (json_is_string(v)) {
        id = json_string_value(v);
        if (!*id)
            return fail(t, "id: the string is empty");
        if (strlen(id) > BATCH_ID_MAX)
            return fail(t, "id: longer than %d bytes", BATCH_ID_MAX);
        if (!id_clean(id))
            return fail(t, "id: holds a control character");
    } else {
        return fail(t, "id: expected a string or a whole number, got %s", json_type_phrase(v));
    }
    char *copy = strdup(id);
    if (!copy)
        return false;
    free(t->id);
    t->id = copy;
    return true;
}

static bool take_text(batch_task *t, const char *key, const json_t *v, char **out)
{
    if (!json_is_string(v) || json_string_length(v) == 0)
        return fail(t, "%s: expected a non-empty string, got %s", key,
                    json_is_string(v) ? "an empty one" : json_type_phrase(v));
    return (*out = dup_str(json_string_value(v))) != NULL;
}

bool batch_line_parse(const char *s, size_t n, long lineno, batch_task *t)
{
    memset(t, 0, sizeof *t);
    t->line = lineno;
    t->timeout_s = -1;
    char fallback[32];
    snprintf(fallback, sizeof fallback, "line-%ld", lineno);
    if (!(t->id = strdup(fallback)))
        return false;
    json_t *root = NULL;
    hew_err err = HEW_ERR_INIT;
    if (json_parse(s, n, "the line", &root, &err) != HEW_OK)
        return fail(t, "%s", err.msg);
    bool ok = true;
    if (!json_is_object(root)) {
        ok = fail(t, "expected a JSON object {\"id\", \"prompt\", \"cwd\", ...}, got %s",
                  json_type_phrase(root));
        json_decref(root);
        return ok;
    }
    json_t *id = json_object_get(root, "id");
    if (id && !json_is_null(id))
        ok = take_id(t, id);
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (!ok || t->error)
            break;
        if (strcmp(key, "id") == 0)
            continue;
        if (strcmp(key, "prompt") == 0) {
            ok = take_text(t, key, v, &t->prompt);
            continue;
        }
        if (strcmp(key, "cwd") == 0) {
            ok = take_text(t, key, v, &t->cwd);
            continue;
        }
        size_t i = 0;
        while (i < NOPTS && strcmp(batch_opts[i].key, key) != 0)
            i++;
        if (i == NOPTS)
            ok = fail(t, "unknown key \"%s\" (known: %s)", key, batch_line_keys());
        else if (!json_is_null(v)) /* null: as if absent */
            ok = take_option(t, &batch_opts[i], v);
    }
    if (ok && !t->error && !t->prompt)
        ok = fail(t, "no prompt: each line needs {\"prompt\": \"the task\"}");
    json_decref(root);
    if (t->error) { /* a bad line runs nothing */
        free(t->prompt);
        t->prompt = NULL;
    }
    return ok;
}

void batch_task_release(batch_task *t)
{
    if (!t)
        return;
    free(t->id);
    free(t->prompt);
    free(t->cwd);
    for (size_t i = 0; i < t->nargs; i++)
        free(t->args[i]);
    free(t->args);
    free(t->error);
    memset(t, 0, sizeof *t);
    t->timeout_s = -1;
}
