/* field — typed readers for the fields of a scenario's JSON, each failing with an error
 * that names the JSON path ("responses[2].delay_ms: must be a non-negative integer").
 * Used by every scenario part; never does I/O and never keeps references. */
#ifndef HEW_FAKE_FIELD_H
#define HEW_FAKE_FIELD_H

#include <jansson.h>
#include <stdbool.h>

#include "base/err.h"

struct fp_plan;

/* Optional non-negative integer <= max. Absent: *present = false (when given), *out untouched. */
hew_code field_uint(const json_t *obj, const char *key, const char *path, long long max,
                    long long *out, bool *present, hew_err *err);

/* Optional string; *out is borrowed from obj (NULL when absent). */
hew_code field_string(const json_t *obj, const char *key, const char *path, const char **out,
                      hew_err *err);

/* Optional boolean (absent: false). */
hew_code field_bool(const json_t *obj, const char *key, const char *path, bool *out,
                    hew_err *err);

/* Every key of obj must be in allowed (a NULL-terminated list), else an error naming it. */
hew_code field_check_keys(const json_t *obj, const char *path, const char *const *allowed,
                          const char *const *allowed2, hew_err *err);

/* Optional object of header name -> string value, set on the plan in order. */
hew_code field_headers(const json_t *obj, const char *key, const char *path,
                       struct fp_plan *p, hew_err *err);

#endif
