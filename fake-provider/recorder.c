/* recorder — append one masked JSON line per request (see recorder.h). Never writes a
 * secret header value unmasked; never writes anything but the record file. */
#include "recorder.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/redact.h"
#include "sys/clock.h"

struct recorder {
    FILE *f;
    char *path;
};

recorder *recorder_open(const char *path, hew_err *err)
{
    recorder *r = calloc(1, sizeof *r);
    if (!r) {
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
        return NULL;
    }
    r->f = fopen(path, "a");
    r->path = strdup(path);
    if (!r->f || !r->path) {
        hew_err_set(err, HEW_E_IO, "cannot open the record file %s: %s", path,
                    strerror(errno));
        recorder_free(r);
        return NULL;
    }
    return r;
}

void recorder_free(recorder *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->path);
    free(r);
}

/* Keep a short ASCII prefix of long secrets ("sk-***"), hide short ones entirely. */
static void mask_secret(buf *b, const char *secret)
{
    char hint[16];
    redact_key_hint(secret, hint, sizeof hint);
    buf_puts(b, hint);
}

char *recorder_mask(const char *name, const char *value)
{
    if (!redact_header_is_secret(name))
        return strdup(value);
    buf b = BUF_INIT(8192);
    buf_puts(&b, "");
    const char *sp = strchr(value, ' ');
    if ((strcmp(name, "authorization") == 0 || strcmp(name, "proxy-authorization") == 0) &&
        sp) {
        buf_append(&b, value, (size_t)(sp - value) + 1); /* keep the scheme */
        while (*sp == ' ')
            sp++;
        mask_secret(&b, sp);
    } else {
        mask_secret(&b, value);
    }
    return buf_detach(&b, NULL);
}

/* A JSON string of the raw bytes; bytes that are not valid UTF-8 become '?'. */
static json_t *raw_string(const char *s, size_t len)
{
    json_t *j = json_stringn(s, len);
    if (j)
        return j;
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < len; i++)
        copy[i] = (unsigned char)s[i] < 0x80 && s[i] ? s[i] : '?';
    j = json_stringn(copy, len);
    free(copy);
    return j;
}

json_t *recorder_entry(size_t index, const char *method, const char *uri,
                       const json_t *headers, const char *body, size_t body_len)
{
    const char *q = strchr(uri, '?');
    size_t path_len = q ? (size_t)(q - uri) : strlen(uri);
    json_t *masked = json_object();
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)headers, name, v)
    {
        char *m = recorder_mask(name, json_string_value(v) ? json_string_value(v) : "");
        json_object_set_new(masked, name, m ? json_string(m) : json_null());
        free(m);
    }
    json_t *jbody = json_null();
    if (body_len) {
        jbody = json_loadb(body, body_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        if (!jbody)
            jbody = raw_string(body, body_len);
    }
    return json_pack("{s:I,s:s,s:o,s:o,s:o,s:o}", "index", (json_int_t)index, "method", method,
                     "path", raw_string(uri, path_len), "query",
                     q ? raw_string(q + 1, strlen(q + 1)) : json_null(), "headers", masked,
                     "body", jbody ? jbody : json_null());
}

json_t *recorder_outcome_entry(size_t index, const char *outcome, unsigned status,
                               size_t bytes_sent, size_t bytes_total)
{
    json_int_t ms = (json_int_t)clock_wall_ms();
    return json_pack("{s:I,s:s,s:I,s:I,s:I,s:I}", "index", (json_int_t)index, "outcome", outcome,
                     "status", (json_int_t)status, "bytes_sent", (json_int_t)bytes_sent,
                     "bytes_total", (json_int_t)bytes_total, "finished_ms", ms);
}

hew_code recorder_write(recorder *r, const json_t *entry, hew_err *err)
{
    char *line = entry ? json_dumps(entry, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (!line)
        return hew_err_set(err, HEW_E_NOMEM, "cannot serialise a request record");
    int bad = fputs(line, r->f) < 0 || fputc('\n', r->f) == EOF || fflush(r->f) != 0;
    free(line);
    if (bad)
        return hew_err_set(err, HEW_E_IO, "cannot write the record file %s: %s", r->path,
                           strerror(errno));
    return HEW_OK;
}
