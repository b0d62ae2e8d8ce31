/* api_decode — every provider stream fixture decodes to its .expect.json (text, reasoning,
 * tool calls, usage, stop reason, completeness, error class), fed whole, one byte at a
 * time, at the fixture's transport_splits, and at random splits; and every way of
 * splitting gives exactly the same chunks' result. Error-body fixtures classify as their
 * expect files' `classification` says (not cline_sdk_verdict). */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decoder.h"
#include "api/error.h"
#include "api/turn.h"
#include "base/redact.h"
#include "check.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p) {
        p[n] = '\0';
        *len = (size_t)n;
    }
    return p;
}

static api_protocol proto_of(const char *name)
{
    api_protocol p = API_PROTO_OPENAI_CHAT;
    api_protocol_parse(name, &p);
    return p;
}

/* Decode body cut at the given ascending offsets; returns the debug JSON. */
static json_t *decode_cuts(api_protocol p, const char *body, size_t len, const size_t *cuts,
                           size_t ncuts)
{
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(p, 200, api_turn_add, &t);
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        if (end > len)
            end = len;
        if (end > at)
            api_decoder_feed(d, body + at, end - at);
        if (end > at)
            at = end;
    }
    api_decoder_end(d);
    api_decoder_free(d);
    json_t *o = api_turn_debug_json(&t);
    api_turn_release(&t);
    return o;
}

static void check_field(const char *name, const char *key, const json_t *got, const json_t *want)
{
    check_count++;
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT);
        char *w = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT);
        check_fail(__FILE__, __LINE__, "%s: %s = %s, expected %s", name, key, g ? g : "?",
                   w ? w : "?");
        free(g);
        free(w);
    }
}

static void compare_stream(const char *name, const json_t *got, const json_t *exp)
{
    check_field(name, "text", json_object_get(got, "text"), json_object_get(exp, "text"));
    check_field(name, "reasoning", json_object_get(got, "reasoning"),
                json_object_get(exp, "reasoning"));
    json_t *want_calls = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(exp, "tool_calls"), i, c) {
        json_array_append_new(want_calls,
                              json_pack("{s:O,s:O,s:O}", "id", json_object_get(c, "id"), "name",
                                        json_object_get(c, "name"), "arguments",
                                        json_object_get(c, "arguments")));
    }
    check_field(name, "tool_calls", json_object_get(got, "tool_calls"), want_calls);
    json_decref(want_calls);
    static const char *const ukeys[] = { "input_tokens_total", "input_tokens_uncached",
                                         "cache_read_tokens",  "cache_write_tokens",
                                         "output_tokens",      "reasoning_tokens" };
    const json_t *eu = json_object_get(exp, "usage"), *gu = json_object_get(got, "usage");
    if (json_is_null(eu) || !eu) {
        check_field(name, "usage", gu, json_null());
    } else {
        for (size_t k = 0; k < 6; k++)
            check_field(name, ukeys[k], json_object_get(gu, ukeys[k]),
                        json_object_get(eu, ukeys[k]));
        if (json_object_get(eu, "cost_usd"))
            check_field(name, "cost_usd", json_object_get(gu, "cost_usd"),
                        json_object_get(eu, "cost_usd"));
    }
    check_field(name, "stop_reason", json_object_get(got, "stop_reason"),
                json_object_get(exp, "stop_reason_normalized"));
    check_field(name, "stream_complete", json_object_get(got, "stream_complete"),
                json_object_get(exp, "stream_complete"));
    const json_t *ee = json_object_get(exp, "error"), *ge = json_object_get(got, "error");
    if (json_is_null(ee)) {
        check_field(name, "error", ge, json_null());
    } else {
        static const char *const ekeys[] = { "category", "retryable", "context_window_exceeded",
                                             "retry_after_seconds" };
        for (size_t k = 0; k < 4; k++)
            check_field(name, ekeys[k], json_object_get(ge, ekeys[k]),
                        json_object_get(ee, ekeys[k]));
    }
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static size_t next_rand(size_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (size_t)(rng % n) : 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static void one_stream(const char *dir, const char *base, const json_t *exp)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.sse", dir, base);
    size_t len;
    char *body = slurp(path, &len);
    if (!body) {
        check_fail(__FILE__, __LINE__, "cannot read %s", path);
        return;
    }
    api_protocol p = proto_of(json_string_value(json_object_get(exp, "protocol")));

    json_t *whole = decode_cuts(p, body, len, NULL, 0);
    compare_stream(base, whole, exp);

    size_t *cuts = malloc((len + 1) * sizeof *cuts);
    for (size_t i = 0; i < len; i++)
        cuts[i] = i + 1;
    json_t *bytes = decode_cuts(p, body, len, cuts, len);
    check_field(base, "byte-by-byte", bytes, whole);
    json_decref(bytes);

    const json_t *ts = json_object_get(exp, "transport_splits");
    size_t n = 0, i;
    json_t *v;
    json_array_foreach(ts, i, v) cuts[n++] = (size_t)json_integer_value(v);
    json_t *tsr = decode_cuts(p, body, len, cuts, n);
    check_field(base, "transport_splits", tsr, whole);
    json_decref(tsr);

    for (int round = 0; round < 200; round++) {
        size_t k = 1 + next_rand(len < 40 ? len : 40);
        for (size_t j = 0; j < k; j++)
            cuts[j] = next_rand(len + 1);
        qsort(cuts, k, sizeof *cuts, cmp_size);
        json_t *r = decode_cuts(p, body, len, cuts, k);
        check_field(base, "random splits", r, whole);
        json_decref(r);
    }
    free(cuts);
    json_decref(whole);
    free(body);
}

static void header_list(const json_t *obj, http_header *h, size_t *n)
{
    const char *k;
    json_t *v;
    *n = 0;
    json_object_foreach((json_t *)obj, k, v) {
        if (*n >= 32)
            break;
        h[*n].name = (char *)k;
        h[*n].value = (char *)json_string_value(v);
        (*n)++;
    }
}

static void one_error(const char *dir, const char *base, const json_t *exp)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, base);
    size_t len;
    char *body = slurp(path, &len);
    snprintf(path, sizeof path, "%s/%s.meta.json", dir, base);
    json_t *meta = json_load_file(path, 0, NULL);
    if (!body || !meta) {
        check_fail(__FILE__, __LINE__, "cannot read %s", path);
        free(body);
        json_decref(meta);
        return;
    }
    http_header h[32];
    size_t nh;
    header_list(json_object_get(meta, "headers"), h, &nh);
    api_error e;
    api_classify((long)json_integer_value(json_object_get(meta, "status")), h, nh, body, len, &e);
    json_t *got = api_error_debug_json(&e);
    const json_t *c = json_object_get(exp, "classification");
    static const char *const ekeys[] = { "category", "retryable", "context_window_exceeded",
                                         "retry_after_seconds" };
    for (size_t k = 0; k < 4; k++)
        check_field(base, ekeys[k], json_object_get(got, ekeys[k]), json_object_get(c, ekeys[k]));
    if (json_object_get(c, "affordable_max_tokens"))
        check_field(base, "affordable_max_tokens", json_object_get(got, "affordable_max_tokens"),
                    json_object_get(c, "affordable_max_tokens"));
    /* The user's message carries the provider's own words, redacted (error_401's echoes
     * a masked key: "sk-proj-****…zX9w" becomes "sk-proj-[REDACTED]"). */
    const char *pm = json_string_value(json_object_get(exp, "error_message"));
    char *shown = redact_dup(pm);
    CHECK(shown && strstr(e.message, shown) != NULL);
    if (pm && strstr(pm, "sk-proj-"))
        CHECK(strstr(e.message, "sk-proj-[REDACTED]") && !strstr(e.message, "zX9w"));
    free(shown);
    json_decref(got);
    json_decref(meta);
    free(body);
}

static void test_fixtures(void)
{
    const char *dir = HEW_TEST_FIXTURES "/providers";
    DIR *dp = opendir(dir);
    REQUIRE(dp != NULL);
    struct dirent *de;
    int streams = 0, errors = 0;
    while ((de = readdir(dp))) {
        size_t n = strlen(de->d_name);
        const char *suffix = ".expect.json";
        if (n <= strlen(suffix) || strcmp(de->d_name + n - strlen(suffix), suffix) != 0)
            continue;
        char base[256];
        snprintf(base, sizeof base, "%.*s", (int)(n - strlen(suffix)), de->d_name);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        json_t *exp = json_load_file(path, 0, NULL);
        if (!exp) {
            check_fail(__FILE__, __LINE__, "cannot parse %s", path);
            continue;
        }
        if (json_object_get(exp, "classification")) {
            one_error(dir, base, exp);
            errors++;
        } else {
            one_stream(dir, base, exp);
            streams++;
        }
        json_decref(exp);
    }
    closedir(dp);
    CHECK(streams >= 11);
    CHECK(errors >= 6);
}

int main(void)
{
    RUN(test_fixtures);
    return check_report();
}
