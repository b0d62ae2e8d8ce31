/* toolenv — scripted tool_env for tool unit tests (see toolenv.h). */
#include "toolenv.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TOOLENV_MAX_PARAMS 16

static toolenv *te_of(tool_env *env)
{
    return env->task;
}

static void record(toolenv *te, const char *kind, const char *type, const char *text,
                   json_t *data, int partial)
{
    json_t *ev = json_pack("{s:s, s:s, s:i}", "kind", kind, "type", type, "partial", partial);
    if (text)
        json_object_set_new(ev, "text", json_string(text));
    if (data)
        json_object_set(ev, "data", data);
    json_array_append_new(te->events, ev);
}

static void te_say(tool_env *env, const char *type, const char *text, json_t *data, int partial)
{
    record(te_of(env), "say", type, text, data, partial);
}

static void take_answer(toolenv *te, tool_answer *answer)
{
    json_t *a = json_array_get(te->answers, 0);
    const char *kind = a ? json_string_value(json_object_get(a, "kind")) : "yes";
    const char *text = a ? json_string_value(json_object_get(a, "text")) : NULL;
    if (answer) {
        answer->kind = strcmp(kind, "yes") == 0  ? TOOL_ANSWER_YES
                       : strcmp(kind, "no") == 0 ? TOOL_ANSWER_NO
                                                 : TOOL_ANSWER_MESSAGE;
        answer->text = text ? strdup(text) : NULL;
    }
    if (a)
        json_array_remove(te->answers, 0);
}

static hew_code te_ask(tool_env *env, const char *type, const char *text, json_t *data,
                       int partial, tool_answer *answer)
{
    toolenv *te = te_of(env);
    record(te, "ask", type, text, data, partial);
    if (partial == 1)
        return HEW_OK;
    take_answer(te, answer);
    return HEW_OK;
}

/* An approval's event also records its group and outside flag. */
static void record_approval(toolenv *te, const char *kind, const char *type, json_t *data,
                            const char *group, bool outside)
{
    record(te, kind, type, NULL, data, 0);
    json_t *ev = json_array_get(te->events, json_array_size(te->events) - 1);
    json_object_set_new(ev, "group", json_string(group));
    json_object_set_new(ev, "outside", json_boolean(outside));
}

static hew_code te_approve(tool_env *env, const char *group, bool outside, const char *type,
                           json_t *data, bool *approved, tool_answer *answer)
{
    toolenv *te = te_of(env);
    if (te->approve_all || env->yolo) {
        record_approval(te, "say", type, data, group, outside);
        *approved = true;
        return HEW_OK;
    }
    record_approval(te, "ask", type, data, group, outside);
    tool_answer a = { .kind = TOOL_ANSWER_YES };
    take_answer(te, &a);
    *approved = a.kind == TOOL_ANSWER_YES;
    a.by_hand = *approved; /* the test's scripted answers stand for a person's */
    if (!*approved)
        te->rejected = true;
    if (answer)
        *answer = a;
    else
        tool_answer_release(&a);
    return HEW_OK;
}

static bool te_ask_nowait(tool_env *env, const char *type, const char *text, json_t *data,
                          int partial, tool_answer *answer)
{
    toolenv *te = te_of(env);
    json_t *head = json_array_get(te->nowait_answers, 0);
    const char *after = head ? json_string_value(json_object_get(head, "after")) : NULL;
    if (after && type && text && strstr(text, after))
        json_object_del(head, "after"); /* what it waited for is shown: ready */
    else if (after)
        head = NULL; /* not yet */
    if (te->nowait_open && head) {
        json_t *a = head;
        const char *kind = json_string_value(json_object_get(a, "kind"));
        const char *atext = json_string_value(json_object_get(a, "text"));
        if (answer) {
            answer->kind = strcmp(kind, "yes") == 0  ? TOOL_ANSWER_YES
                           : strcmp(kind, "no") == 0 ? TOOL_ANSWER_NO
                                                     : TOOL_ANSWER_MESSAGE;
            answer->text = atext ? strdup(atext) : NULL;
        }
        json_array_remove(te->nowait_answers, 0);
        te->nowait_open = false;
        return true;
    }
    if (!type)
        return false;
    record(te, "ask", type, text, data, partial);
    te->nowait_open = partial == 1;
    return false;
}

static void te_complete(tool_env *env, const char *result)
{
    toolenv *te = te_of(env);
    te->completed = true;
    free(te->completion);
    te->completion = strdup(result);
}

/* new_task accepted: recorded like a completion, with the successor's text. */
static void te_hand_over(tool_env *env, const char *text, const char *result)
{
    toolenv *te = te_of(env);
    te_complete(env, result);
    free(te->successor);
    te->successor = strdup(text);
}

static bool te_auto_approved(tool_env *env, const char *group, bool outside)
{
    (void)group;
    (void)outside;
    return te_of(env)->approve_all || env->yolo;
}

static void te_mistake(tool_env *env, bool made)
{
    toolenv *te = te_of(env);
    te->mistakes = made ? te->mistakes + 1 : 0;
}

static void te_set_mode(tool_env *env, mode_kind mode)
{
    te_of(env)->mode = mode;
}

static mode_kind te_mode_now(tool_env *env)
{
    return te_of(env)->mode;
}

void toolenv_init(toolenv *te, const char *cwd)
{
    memset(te, 0, sizeof *te);
    te->events = json_array();
    te->answers = json_array();
    te->nowait_answers = json_array();
    te->mode = MODE_ACT;
    tool_env *e = &te->env;
    e->task = te;
    e->cwd = cwd;
    e->abort = abort_new();
    e->mode_now = te_mode_now;
    e->set_mode = te_set_mode;
    e->say = te_say;
    e->ask = te_ask;
    e->approve = te_approve;
    e->ask_nowait = te_ask_nowait;
    e->complete = te_complete;
    e->hand_over = te_hand_over;
    e->auto_approved = te_auto_approved;
    e->mistake = te_mistake;
}

void toolenv_release(toolenv *te)
{
    json_decref(te->events);
    json_decref(te->answers);
    json_decref(te->nowait_answers);
    abort_free(te->env.abort);
    free(te->completion);
    free(te->successor);
}

void toolenv_answer(toolenv *te, const char *kind, const char *text)
{
    json_t *a = json_pack("{s:s}", "kind", kind);
    if (text)
        json_object_set_new(a, "text", json_string(text));
    json_array_append_new(te->answers, a);
}

void toolenv_answer_nowait(toolenv *te, const char *kind, const char *text)
{
    toolenv_answer_nowait_after(te, kind, text, NULL);
}

void toolenv_answer_nowait_after(toolenv *te, const char *kind, const char *text,
                                 const char *after)
{
    json_t *a = json_pack("{s:s}", "kind", kind);
    if (text)
        json_object_set_new(a, "text", json_string(text));
    if (after)
        json_object_set_new(a, "after", json_string(after));
    json_array_append_new(te->nowait_answers, a);
}

static bool matches(const json_t *ev, const char *kind, const char *type)
{
    const char *k = json_string_value(json_object_get(ev, "kind"));
    const char *t = json_string_value(json_object_get(ev, "type"));
    return (!kind || strcmp(k, kind) == 0) && (!type || strcmp(t, type) == 0);
}

int toolenv_count(const toolenv *te, const char *kind, const char *type)
{
    int n = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(te->events, i, ev)
        if (matches(ev, kind, type))
            n++;
    return n;
}

json_t *toolenv_last(const toolenv *te, const char *kind, const char *type)
{
    json_t *found = NULL;
    size_t i;
    json_t *ev;
    json_array_foreach(te->events, i, ev)
        if (matches(ev, kind, type))
            found = ev;
    return found;
}

hew_code toolenv_run(toolenv *te, const tool_def *def, tool_result *out, ...)
{
    const char *keys[TOOLENV_MAX_PARAMS], *values[TOOLENV_MAX_PARAMS];
    size_t n = 0;
    va_list ap;
    va_start(ap, out);
    const char *k;
    while ((k = va_arg(ap, const char *)) && n < TOOLENV_MAX_PARAMS) {
        keys[n] = k;
        values[n] = va_arg(ap, const char *);
        n++;
    }
    va_end(ap);
    tool_call call = { .name = def->name, .id = "toolu_test", .nparams = n, .keys = keys,
                       .values = values };
    memset(out, 0, sizeof *out);
    buf_init(&out->text, (size_t)8 << 20);
    return def->run(&te->env, &call, out);
}
