/* field — typed, path-naming readers for scenario JSON fields (see field.h).
 * Never does I/O; never keeps references to the JSON it reads. */
#include "field.h"

#include <string.h>

#include "plan.h"

hew_code field_uint(const json_t *obj, const char *key, const char *path, long long max,
                    long long *out, bool *present, hew_err *err)
{
    json_t *v = json_object_get(obj, key);
    if (present)
        *present = v != NULL;
    if (!v)
        return HEW_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.%s: must be a whole number from 0 to %lld", path, key, max);
    *out = json_integer_value(v);
    return HEW_OK;
}

hew_code field_string(const json_t *obj, const char *key, const char *path, const char **out,
                      hew_err *err)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v)
        return HEW_OK;
    if (!json_is_string(v))
        return hew_err_set(err, HEW_E_INVALID, "%s.%s: must be a string", path, key);
    *out = json_string_value(v);
    return HEW_OK;
}

hew_code field_bool(const json_t *obj, const char *key, const char *path, bool *out,
                    hew_err *err)
{
    json_t *v = json_object_get(obj, key);
    *out = false;
    if (!v)
        return HEW_OK;
    if (!json_is_boolean(v))
        return hew_err_set(err, HEW_E_INVALID, "%s.%s: must be true or false", path, key);
    *out = json_is_true(v);
    return HEW_OK;
}

static bool listed(const char *const *list, const char *key)
{
    if (strcmp(key, "comment") == 0) /* free text for the reader, allowed everywhere */
        return true;
    for (; list && *list; list++)
        if (strcmp(*list, key) == 0)
            return true;
    return false;
}

hew_code field_check_keys(const json_t *obj, const char *path, const char *const *allowed,
                          const char *const *allowed2, hew_err *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        (void)v;
        if (!listed(allowed, key) && !listed(allowed2, key))
            return hew_err_set(err, HEW_E_INVALID,
                               "%s: unknown key \"%s\" (see docs/fake-provider.md)", path, key);
    }
    return HEW_OK;
}

hew_code field_headers(const json_t *obj, const char *key, const char *path, fp_plan *p,
                       hew_err *err)
{
    json_t *h = json_object_get(obj, key);
    if (!h)
        return HEW_OK;
    if (!json_is_object(h))
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.%s: must be an object of header name to string value", path,
                           key);
    const char *name;
    json_t *v;
    json_object_foreach(h, name, v)
    {
        if (!json_is_string(v))
            return hew_err_set(err, HEW_E_INVALID, "%s.%s.%s: must be a string", path, key,
                               name);
        if (!*name || strpbrk(name, " \t\r\n:") || strpbrk(json_string_value(v), "\r\n"))
            return hew_err_set(err, HEW_E_INVALID,
                               "%s.%s.%s: not a valid header name or value", path, key, name);
        plan_set_header(p, name, json_string_value(v));
    }
    return HEW_OK;
}
