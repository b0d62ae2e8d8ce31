/* modelname — the model's name, window and the known models, as the terminal shows them
 * (modelname.h). */
#include "modelname.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "termsafe.h"

/* hew_model_json for o, parsed; NULL when it cannot be told. */
static json_t *model_of(const hew_options *o)
{
    char *text = NULL;
    if (hew_model_json(o, &text, NULL, 0) != HEW_OK)
        return NULL;
    json_t *j = json_loads(text, 0, NULL);
    hew_free(text);
    return j;
}

char *modelname_label(const hew_options *o)
{
    json_t *j = model_of(o);
    const char *name = json_string_value(json_object_get(j, "model"));
    char *safe = termsafe_dup(name && *name ? name : "?", 1);
    sbuf s = SBUF_INIT;
    sbuf_puts(&s, safe ? safe : "?");
    if (json_is_true(json_object_get(j, "provider_default")))
        sbuf_puts(&s, " (provider default)");
    free(safe);
    json_decref(j);
    char *out = sbuf_detach(&s);
    return out ? out : strdup("?");
}

long long modelname_window(const hew_options *o)
{
    json_t *j = model_of(o);
    long long w = (long long)json_integer_value(json_object_get(j, "context_window"));
    json_decref(j);
    return w;
}

/* 200000 → "200k", 1048576 → "1M" */
static void tokens_short(char *buf, size_t n, long long v)
{
    if (v >= 1000000)
        snprintf(buf, n, "%.3gM", (double)v / 1e6);
    else if (v >= 1000)
        snprintf(buf, n, "%lldk", v / 1000);
    else
        snprintf(buf, n, "%lld", v);
}

int modelname_known(const hew_options *o, char **why)
{
    json_t *j = model_of(o);
    int known = !j || json_is_true(json_object_get(j, "known"));
    if (!known && why) {
        const char *name = json_string_value(json_object_get(j, "model"));
        char *safe = termsafe_dup(name ? name : "?", 1);
        long long w = (long long)json_integer_value(json_object_get(j, "context_window"));
        sbuf s = SBUF_INIT;
        sbuf_printf(&s,
                    "hew does not know \"%s\": it is used as given, and hew assumes a "
                    "%lld-token context window, %lld tokens of output, %s, %s and no prices "
                    "(no cost is shown); describe it under \"models\" in "
                    "~/.config/hew/config.json",
                    safe ? safe : "?", w,
                    (long long)json_integer_value(json_object_get(j, "max_output")),
                    json_is_true(json_object_get(j, "images")) ? "images" : "no images",
                    json_is_true(json_object_get(j, "thinking")) ? "thinking" : "no thinking");
        free(safe);
        *why = sbuf_detach(&s);
    }
    json_decref(j);
    return known;
}

char *modelname_list(const hew_options *o, const char *current, int color)
{
    char *text = NULL;
    if (hew_models_json(o, &text, NULL, 0) != HEW_OK)
        return NULL;
    json_t *arr = json_loads(text, 0, NULL);
    hew_free(text);
    /* the current model's family: "claude-sonnet-4-5-20250929" marks claude-sonnet-4-5 */
    hew_options q = *o;
    if (current)
        q.model = current;
    json_t *cur = model_of(&q);
    const char *family = json_string_value(json_object_get(cur, "family"));
    sbuf s = SBUF_INIT;
    size_t width = 0, i;
    json_t *m;
    json_array_foreach(arr, i, m) {
        size_t n = strlen(json_string_value(json_object_get(m, "model")));
        width = n > width ? n : width;
    }
    json_array_foreach(arr, i, m) {
        const char *id = json_string_value(json_object_get(m, "model"));
        int here = family && *family && strcmp(family, id) == 0;
        char w[32];
        tokens_short(w, sizeof w, (long long)json_integer_value(json_object_get(m,
                                                                   "context_window")));
        sbuf_printf(&s, "%s %s%-*s%s  %s context", here ? "●" : " ",
                    here && color ? "\033[1m" : "", (int)width, id,
                    here && color ? "\033[0m" : "", w);
        if (json_is_true(json_object_get(m, "prices")))
            sbuf_printf(&s, " · $%g/$%g per M tokens",
                        json_number_value(json_object_get(m, "input_price")),
                        json_number_value(json_object_get(m, "output_price")));
        if (json_is_true(json_object_get(m, "images")))
            sbuf_puts(&s, " · images");
        sbuf_putc(&s, '\n');
    }
    json_decref(arr);
    json_decref(cur);
    return sbuf_detach(&s);
}
