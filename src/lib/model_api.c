/* model_api — the public face of the model table (include/hew.h: hew_model_json,
 * hew_models_json): which model a session would use (the provider's default resolved to
 * its name), what hew assumes about it, and which models the table lists for a provider,
 * so a front end shows the real name and warns about an unknown one. Pure lookups over
 * api/model.h and api/provider.h; no I/O. */
#include <jansson.h>
#include <string.h>

#include "api/model.h"
#include "api/provider.h"
#include "base/json.h"
#include "lib/lib_store.h"
#include "hew.h"

/* One model's facts as a JSON object (a new reference). */
static json_t *model_obj(const char *name, const api_model *m)
{
    json_t *o = json_pack("{s:s, s:s, s:b, s:I, s:I, s:b, s:b, s:b}", "model", name, "family",
                          m->id, "known", m->known, "context_window",
                          (json_int_t)m->context_window, "max_output",
                          (json_int_t)m->max_output, "images", m->images, "thinking",
                          m->thinking, "prices", m->price.input > 0 || m->price.output > 0);
    if (o && (m->price.input > 0 || m->price.output > 0)) {
        json_object_set_new(o, "input_price", json_real(m->price.input));
        json_object_set_new(o, "output_price", json_real(m->price.output));
    }
    return o;
}

static hew_code dump(json_t *j, char **out, char *err, size_t errlen)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    if (!text)
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    *out = text;
    return HEW_OK;
}

hew_code hew_model_json(const hew_options *o, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the model (out is NULL)");
    *out = NULL;
    const char *provider = o && o->provider ? o->provider : "anthropic";
    const api_profile *p = api_profile_find(provider);
    if (!p)
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "unknown provider: see `hew --help` for the providers hew knows");
    const char *model = o && o->model && *o->model ? o->model : NULL;
    int dflt = model == NULL;
    if (!model)
        model = p->default_model;
    api_model m = api_model_lookup(provider, model);
    if (o && o->model_info) {
        json_t *desc = NULL;
        hew_err e = HEW_ERR_INIT;
        hew_code rc = json_parse(o->model_info, strlen(o->model_info), "model_info", &desc, &e);
        if (rc == HEW_OK)
            rc = api_model_from_json(desc, &m, &e);
        json_decref(desc);
        if (rc != HEW_OK)
            return lib_fail(rc, err, errlen, e.msg);
    }
    json_t *j = model_obj(model, &m);
    if (j)
        json_object_set_new(j, "provider_default", json_boolean(dflt));
    return dump(j, out, err, errlen);
}

hew_code hew_models_json(const hew_options *o, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the list (out is NULL)");
    *out = NULL;
    const char *provider = o && o->provider ? o->provider : "anthropic";
    if (!api_profile_find(provider))
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "unknown provider: see `hew --help` for the providers hew knows");
    /* OpenRouter and an OpenAI-compatible server serve any vendor's models */
    int all = strcmp(provider, "openrouter") == 0 || strcmp(provider, "openai-compatible") == 0;
    size_t n = 0;
    const api_model *t = api_model_table(&n);
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        if (!all && strcmp(api_model_vendor(&t[i]), provider) != 0)
            continue;
        api_model m = t[i];
        m.known = true;
        json_array_append_new(arr, model_obj(t[i].id, &m));
    }
    return dump(arr, out, err, errlen);
}
