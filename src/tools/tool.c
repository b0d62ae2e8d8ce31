/* tool — small helpers every tool shares: parameter lookup, the call's description for
 * result headers, result text. Knows no particular tool. */
#include "tools/tool.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *tool_call_param(const tool_call *call, const char *name)
{
    for (size_t i = 0; i < call->nparams; i++)
        if (strcmp(call->keys[i], name) == 0)
            return call->values[i];
    return NULL;
}

const char *tool_param_value(const tool_param *p, const tool_call *call)
{
    const char *v = tool_call_param(call, p->name);
    if ((!v || !*v) && p->alias) {
        const char *a = tool_call_param(call, p->alias);
        if (a)
            return a;
    }
    return v;
}

void tool_answer_release(tool_answer *a)
{
    if (!a)
        return;
    free(a->text);
    a->text = NULL;
    json_decref(a->images);
    json_decref(a->captions);
    a->images = a->captions = NULL;
}

bool tool_answer_has_message(const tool_answer *a)
{
    return a && ((a->text && *a->text) || json_array_size(a->captions));
}

json_t *tool_answer_data(const tool_answer *a)
{
    return a && json_array_size(a->captions) ? json_pack("{s:O}", "images", a->captions)
                                             : NULL;
}

void tool_say_feedback(tool_env *env, const tool_answer *a)
{
    if (!tool_answer_has_message(a))
        return;
    json_t *data = tool_answer_data(a);
    env->say(env, "user_feedback", a->text ? a->text : "", data, 0);
    json_decref(data);
}

void tool_describe(const tool_def *def, const tool_call *call, buf *out)
{
    if (def && def->describe) {
        def->describe(call, out);
        return;
    }
    const char *first = call->nparams ? call->values[0] : NULL;
    if (def && def->nparams) {
        first = tool_call_param(call, def->params[0].name);
    }
    if (first && *first && strlen(first) <= 200 && !strchr(first, '\n'))
        buf_printf(out, "[%s for '%s']", call->name, first);
    else
        buf_printf(out, "[%s]", call->name);
}

void tool_result_printf(tool_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&r->text, fmt, ap);
    va_end(ap);
}

void tool_result_error(tool_result *r, const char *fmt, ...)
{
    r->is_error = true;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&r->text, fmt, ap);
    va_end(ap);
}
