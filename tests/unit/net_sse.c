/* Unit tests for net/sse: every provider fixture decoded under many feedings (whole, one
 * byte at a time, at the fixture's transport_splits, at seeded random cuts) must give the
 * same events; SSE-level facts from the expect files; an independent text cross-check via
 * jansson; and one hand-written case per framing rule, each also run at every cut point.
 * Never touches the network; reads only tests/fixtures. */
#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "check.h"
#include "net/sse.h"

#define FIXTURES HEW_TEST_FIXTURES "/providers"

/* ---- decoding under a given feeding, recorded as one comparable string ---------------- */

/* Serialize an event as "type|data|id\n" with \n, \r, \\, | and NUL escaped, so a whole run
 * is one string that hand-written cases can spell out and feedings can compare. */
static void put_escaped(buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '\n': buf_puts(out, "\\n"); break;
        case '\r': buf_puts(out, "\\r"); break;
        case '\0': buf_puts(out, "\\0"); break;
        case '\\': buf_puts(out, "\\\\"); break;
        case '|': buf_puts(out, "\\|"); break;
        default: buf_putc(out, s[i]);
        }
    }
}

typedef struct run {
    buf text;       /* serialized events, then "ERR:<code>" if it failed */
    size_t events;  /* dispatched events */
    json_t *datas;  /* array of the data strings (when collect is set) */
    json_t *types;  /* array of the event types */
    hew_err err;
    char last_id[256];
    long retry;
} run;

static void run_init(run *r, int collect)
{
    buf_init(&r->text, 0);
    r->events = 0;
    r->datas = collect ? json_array() : NULL;
    r->types = collect ? json_array() : NULL;
    hew_err_clear(&r->err);
    r->last_id[0] = '\0';
    r->retry = -2;
}

static void run_release(run *r)
{
    buf_release(&r->text);
    json_decref(r->datas);
    json_decref(r->types);
}

static void record(run *r, const sse_event *ev)
{
    /* The documented invariants of every event. */
    CHECK(ev->event && ev->data && ev->id);
    CHECK_INT(ev->data[ev->data_len], '\0');
    CHECK_INT(ev->event[ev->event_len], '\0');
    CHECK_INT(ev->id[ev->id_len], '\0');
    put_escaped(&r->text, ev->event, ev->event_len);
    buf_putc(&r->text, '|');
    put_escaped(&r->text, ev->data, ev->data_len);
    buf_putc(&r->text, '|');
    put_escaped(&r->text, ev->id, ev->id_len);
    buf_putc(&r->text, '\n');
    r->events++;
    if (r->datas) {
        json_array_append_new(r->datas, json_stringn(ev->data, ev->data_len));
        json_array_append_new(r->types, json_stringn(ev->event, ev->event_len));
    }
}

/* Feed input cut at the given ascending offsets, draining after every feed, then end. */
static void decode(const char *in, size_t n, const size_t *cuts, size_t ncuts,
                   const sse_limits *lim, run *r)
{
    sse_decoder *d = sse_decoder_new(lim);
    if (!d) {
        check_fail(__FILE__, __LINE__, "sse_decoder_new failed");
        return;
    }
    size_t at = 0;
    int failed = 0;
    for (size_t i = 0; i <= ncuts && !failed; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        if (to < at || to > n)
            continue;
        if (sse_feed(d, in + at, to - at, &r->err) != HEW_OK) {
            failed = 1;
            break;
        }
        at = to;
        sse_event ev = { 0 };
        int rc;
        while ((rc = sse_next(d, &ev, &r->err)) == 1)
            record(r, &ev);
        if (rc < 0)
            failed = 1;
    }
    if (!failed) {
        sse_end(d);
        sse_event ev = { 0 };
        int rc;
        while ((rc = sse_next(d, &ev, &r->err)) == 1)
            record(r, &ev);
        if (rc < 0)
            failed = 1;
        else
            CHECK_INT(sse_next(d, &ev, &r->err), 0); /* stays done */
    }
    if (failed) {
        CHECK(r->err.code != HEW_OK);
        buf_printf(&r->text, "ERR:%s", hew_code_name(r->err.code));
        /* Sticky: the same error again, whatever comes next. */
        hew_err again = HEW_ERR_INIT;
        sse_event ev = { 0 };
        CHECK_INT(sse_next(d, &ev, &again), -1);
        CHECK_INT(again.code, r->err.code);
        CHECK_STR(again.msg, r->err.msg);
        CHECK_INT(sse_feed(d, "\n\n", 2, &again), r->err.code);
    }
    snprintf(r->last_id, sizeof r->last_id, "%s", sse_last_event_id(d));
    r->retry = sse_retry_ms(d);
    sse_decoder_free(d);
    CHECK_INT(r->text.err, HEW_OK);
}

/* ---- feedings ------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: fixed seeds give the same cuts on every machine. */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Random ascending cuts: piece sizes 1..maxpiece, maxpiece itself drawn per seed. */
static size_t random_cuts(size_t n, uint64_t seed, size_t *cuts)
{
    uint64_t s = seed;
    static const size_t spans[] = { 2, 5, 17, 64, 300, 4096 };
    size_t maxpiece = spans[rng_next(&s) % (sizeof spans / sizeof spans[0])];
    size_t k = 0, at = 0;
    for (;;) {
        at += 1 + (size_t)(rng_next(&s) % maxpiece);
        if (at >= n)
            break;
        cuts[k++] = at;
    }
    return k;
}

static size_t *every_cut(size_t n, size_t *ncuts)
{
    size_t *cuts = malloc((n ? n : 1) * sizeof *cuts);
    for (size_t i = 1; i < n; i++)
        cuts[i - 1] = i;
    *ncuts = n ? n - 1 : 0;
    return cuts;
}

static const uint64_t SEEDS[] = { 1, 2, 3, 42, 1234, 99991, 0xC0FFEE, 0xDEADBEEF };

/* ---- fixtures ------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf b = BUF_INIT(0);
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_append(&b, chunk, got);
    fclose(f);
    return buf_detach(&b, len);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.sse fixture names (without extension), sorted; NULL-terminated. */
static char **list_fixtures(void)
{
    DIR *dir = opendir(FIXTURES);
    if (!dir)
        return NULL;
    size_t n = 0, cap = 16;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".sse") != 0)
            continue;
        if (n + 1 >= cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        names[n++] = strndup(e->d_name, len - 4);
    }
    closedir(dir);
    qsort(names, n, sizeof *names, cmp_str);
    names[n] = NULL;
    return names;
}

static const char *jstr(json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* Concatenate the assistant text from decoded events, per protocol, independently of the
 * provider adapters. Returns 0 when the protocol has no simple text rule here. */
static int extract_text(const char *protocol, const run *r, buf *text)
{
    size_t i;
    json_t *jdata;
    int known = 1;
    json_array_foreach(r->datas, i, jdata) {
        const char *data = json_string_value(jdata);
        const char *type = json_string_value(json_array_get(r->types, i));
        if (strcmp(data, "[DONE]") == 0)
            continue;
        json_t *o = json_loads(data, 0, NULL);
        if (!o)
            continue; /* reported by the JSON check */
        if (strcmp(protocol, "openai-chat") == 0) {
            json_t *delta = json_object_get(json_array_get(json_object_get(o, "choices"), 0),
                                            "delta");
            const char *c = jstr(delta, "content");
            if (c)
                buf_puts(text, c);
        } else if (strcmp(protocol, "anthropic-messages") == 0) {
            CHECK_STR(type, jstr(o, "type")); /* Anthropic: event: equals data.type */
            json_t *delta = json_object_get(o, "delta");
            if (jstr(o, "type") && strcmp(jstr(o, "type"), "content_block_delta") == 0 &&
                jstr(delta, "type") && strcmp(jstr(delta, "type"), "text_delta") == 0)
                buf_puts(text, jstr(delta, "text"));
        } else if (strcmp(protocol, "openai-responses") == 0) {
            CHECK_STR(type, jstr(o, "type"));
            if (jstr(o, "type") && strcmp(jstr(o, "type"), "response.output_text.delta") == 0)
                buf_puts(text, jstr(o, "delta"));
        } else if (strcmp(protocol, "gemini") == 0) {
            json_t *parts = json_object_get(
                json_object_get(json_array_get(json_object_get(o, "candidates"), 0), "content"),
                "parts");
            size_t k;
            json_t *part;
            json_array_foreach(parts, k, part) {
                if (json_is_true(json_object_get(part, "thought")))
                    continue;
                if (jstr(part, "text"))
                    buf_puts(text, jstr(part, "text"));
            }
        } else {
            known = 0;
        }
        json_decref(o);
    }
    return known;
}

static void check_fixture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, FIXTURES "/%s.sse", name);
    size_t n = 0;
    char *body = read_file(path, &n);
    if (!body) {
        check_fail(__FILE__, __LINE__, "%s: cannot read %s", name, path);
        return;
    }
    snprintf(path, sizeof path, FIXTURES "/%s.expect.json", name);
    json_error_t jerr;
    json_t *expect = json_load_file(path, 0, &jerr);
    if (!expect)
        check_fail(__FILE__, __LINE__, "%s: %s: %s", name, path, jerr.text);

    run whole;
    run_init(&whole, 1);
    decode(body, n, NULL, 0, NULL, &whole);
    if (whole.err.code != HEW_OK)
        check_fail(__FILE__, __LINE__, "%s: whole feed failed: %s", name, whole.err.msg);
    if (whole.events == 0)
        check_fail(__FILE__, __LINE__, "%s: no events", name);

    size_t *cuts = malloc((n + 1) * sizeof *cuts);
    size_t ncuts;

    /* One byte at a time. */
    size_t *all = every_cut(n, &ncuts);
    run r;
    run_init(&r, 0);
    decode(body, n, all, ncuts, NULL, &r);
    if (strcmp(r.text.data, whole.text.data) != 0 || strcmp(r.last_id, whole.last_id) != 0 ||
        r.retry != whole.retry)
        check_fail(__FILE__, __LINE__, "%s: byte-at-a-time feeding differs from whole", name);
    run_release(&r);
    free(all);

    /* The fixture's transport_splits. */
    json_t *splits = json_object_get(expect, "transport_splits");
    if (!json_is_array(splits) || json_array_size(splits) == 0)
        check_fail(__FILE__, __LINE__, "%s: no transport_splits in expect file", name);
    ncuts = 0;
    size_t i;
    json_t *v;
    json_array_foreach(splits, i, v) {
        json_int_t at = json_integer_value(v);
        if (at > 0 && (size_t)at < n && (ncuts == 0 || (size_t)at > cuts[ncuts - 1]))
            cuts[ncuts++] = (size_t)at;
    }
    run_init(&r, 0);
    decode(body, n, cuts, ncuts, NULL, &r);
    if (strcmp(r.text.data, whole.text.data) != 0 || strcmp(r.last_id, whole.last_id) != 0)
        check_fail(__FILE__, __LINE__, "%s: feeding at transport_splits differs from whole",
                   name);
    run_release(&r);

    /* Seeded random cuts. */
    for (size_t s = 0; s < sizeof SEEDS / sizeof SEEDS[0]; s++) {
        ncuts = random_cuts(n, SEEDS[s], cuts);
        run_init(&r, 0);
        decode(body, n, cuts, ncuts, NULL, &r);
        if (strcmp(r.text.data, whole.text.data) != 0 || strcmp(r.last_id, whole.last_id) != 0)
            check_fail(__FILE__, __LINE__,
                       "%s: random feeding (seed %llu, %zu cuts) differs from whole", name,
                       (unsigned long long)SEEDS[s], ncuts);
        run_release(&r);
    }
    free(cuts);

    /* Every event's data is JSON or the [DONE] sentinel, never holds a CR. */
    json_t *jdata;
    json_array_foreach(whole.datas, i, jdata) {
        const char *data = json_string_value(jdata);
        CHECK(strchr(data, '\r') == NULL);
        if (strcmp(data, "[DONE]") == 0)
            continue;
        json_t *o = json_loads(data, 0, &jerr);
        if (!json_is_object(o))
            check_fail(__FILE__, __LINE__, "%s: event %zu data is not a JSON object: %s",
                       name, i, jerr.text);
        json_decref(o);
    }

    /* SSE-level facts where the expect file states them. */
    json_t *fact = json_object_get(expect, "sse_events_with_data");
    if (fact && json_integer_value(fact) != (json_int_t)whole.events)
        check_fail(__FILE__, __LINE__, "%s: %zu events, expected %lld", name, whole.events,
                   (long long)json_integer_value(fact));
    fact = json_object_get(expect, "sse_last_event_id");
    if (fact)
        CHECK_STR(whole.last_id, json_string_value(fact));
    fact = json_object_get(expect, "sse_retry_ms");
    if (fact)
        CHECK_INT(whole.retry, json_integer_value(fact));
    const char *endings = jstr(expect, "line_endings");
    if (endings && strcmp(endings, "CRLF") == 0)
        CHECK(strstr(body, "\r\n") != NULL); /* the fixture really is CRLF */

    /* Independent cross-check: the assistant text rebuilt from the events. */
    const char *protocol = jstr(expect, "protocol");
    const char *want = jstr(expect, "text");
    buf text = BUF_INIT(0);
    if (protocol && want && extract_text(protocol, &whole, &text)) {
        const char *got = text.data ? text.data : "";
        if (strcmp(got, want) != 0)
            check_fail(__FILE__, __LINE__, "%s: text \"%s\" != expected \"%s\"", name, got,
                       want);
    } else {
        check_fail(__FILE__, __LINE__, "%s: no text cross-check for protocol %s", name,
                   protocol ? protocol : "(none)");
    }
    buf_release(&text);

    run_release(&whole);
    json_decref(expect);
    free(body);
}

static void test_fixtures_all_feedings(void)
{
    char **names = list_fixtures();
    REQUIRE(names != NULL);
    size_t count = 0;
    for (char **p = names; *p; p++, count++) {
        check_fixture(*p);
        free(*p);
    }
    free(names);
    CHECK(count >= 8); /* the directory really was enumerated */
}

static void test_edge_cases_fixture_events(void)
{
    size_t n = 0;
    char *body = read_file(FIXTURES "/openai_sse_edge_cases.sse", &n);
    REQUIRE(body != NULL);
    run r;
    run_init(&r, 1);
    decode(body, n, NULL, 0, NULL, &r);
    CHECK_INT(r.events, 6);
    CHECK_STR(r.last_id, "2");
    CHECK_INT(r.retry, 3000);
    /* Event 2: two data lines joined with "\n"; "data:{" with no space kept whole. */
    const char *d0 = json_string_value(json_array_get(r.datas, 0));
    const char *d1 = json_string_value(json_array_get(r.datas, 1));
    const char *t2 = json_string_value(json_array_get(r.types, 2));
    const char *d5 = json_string_value(json_array_get(r.datas, 5));
    CHECK(d0 && strncmp(d0, "{\"id\"", 5) == 0);
    CHECK(d1 && strstr(d1, "\"chat.completion.chunk\",\n\"created\"") != NULL);
    CHECK_STR(t2, "message");
    CHECK_STR(d5, "[DONE]");
    CHECK(strstr(r.text.data, "|1\n") != NULL); /* event 1 carried id 1 */
    run_release(&r);
    free(body);
}

/* ---- hand-written cases, one rule each ------------------------------------------------ */

/* Decode input (n bytes) whole, byte by byte, at every single cut and (for short inputs)
 * at every pair of cuts; all must serialize to want. */
static void expect_with(const char *in, size_t n, const sse_limits *lim, const char *want,
                        int line)
{
    run r;
    run_init(&r, 0);
    decode(in, n, NULL, 0, lim, &r);
    if (strcmp(r.text.data ? r.text.data : "", want) != 0)
        check_fail(__FILE__, line, "whole: got \"%s\" want \"%s\"", r.text.data, want);
    run_release(&r);

    size_t ncuts;
    size_t *all = every_cut(n, &ncuts);
    run_init(&r, 0);
    decode(in, n, all, ncuts, lim, &r);
    if (strcmp(r.text.data ? r.text.data : "", want) != 0)
        check_fail(__FILE__, line, "byte by byte: got \"%s\" want \"%s\"", r.text.data, want);
    run_release(&r);
    free(all);

    for (size_t a = 1; a < n; a++) {
        for (size_t b = a; b < n && (b == a || n <= 80); b++) {
            size_t cuts[2] = { a, b };
            run_init(&r, 0);
            decode(in, n, cuts, b == a ? 1 : 2, lim, &r);
            if (strcmp(r.text.data ? r.text.data : "", want) != 0)
                check_fail(__FILE__, line, "cut at %zu,%zu: got \"%s\" want \"%s\"", a, b,
                           r.text.data, want);
            run_release(&r);
        }
    }
}

#define EXPECT(in, want) expect_with((in), sizeof(in) - 1, NULL, (want), __LINE__)
#define EXPECT_LIM(in, lim, want) expect_with((in), sizeof(in) - 1, (lim), (want), __LINE__)

static void test_line_endings(void)
{
    EXPECT("data: a\n\n", "|a|\n");
    EXPECT("data: a\r\n\r\n", "|a|\n");
    EXPECT("data: a\r\r", "|a|\n");
    EXPECT("data: a\r\ndata: b\rdata: c\n\r\n", "|a\\nb\\nc|\n"); /* mixed */
    EXPECT("event: x\r\ndata: 1\r\n\r\nevent: y\rdata: 2\r\rdata: 3\n\n",
           "x|1|\ny|2|\n|3|\n");
    /* CRLF must not count as two line ends: "data: a\r\n" + "\r\n" is one blank line. */
    EXPECT("data: a\r\n\r\ndata: b\r\n", "|a|\n");
}

/* A CR at the very end of a feed: followed by LF (no extra empty line) or by something else
 * (the CR alone ended the line; no stall waiting for the next byte). */
static void test_cr_at_feed_end(void)
{
    sse_decoder *d = sse_decoder_new(NULL);
    REQUIRE(d != NULL);
    sse_event ev = { 0 };
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(sse_feed(d, "data: a\r", 8, &err), HEW_OK);
    CHECK_INT(sse_next(d, &ev, &err), 0);
    CHECK_INT(sse_feed(d, "\n", 1, &err), HEW_OK); /* second half of CRLF: not a blank line */
    CHECK_INT(sse_next(d, &ev, &err), 0);
    CHECK_INT(sse_feed(d, "\r", 1, &err), HEW_OK); /* blank line: dispatch now, no waiting */
    CHECK_INT(sse_next(d, &ev, &err), 1);
    CHECK_STR(ev.data, "a");
    CHECK_INT(sse_next(d, &ev, &err), 0);
    CHECK_INT(sse_feed(d, "\ndata: b\r", 9, &err), HEW_OK); /* the LF completes the CRLF */
    CHECK_INT(sse_next(d, &ev, &err), 0);
    CHECK_INT(sse_feed(d, "data: c\r", 8, &err), HEW_OK); /* CR then not-LF: two lines */
    CHECK_INT(sse_next(d, &ev, &err), 0);
    CHECK_INT(sse_feed(d, "\r", 1, &err), HEW_OK);
    CHECK_INT(sse_next(d, &ev, &err), 1);
    CHECK_STR(ev.data, "b\nc");
    /* A trailing CR at EOF ends its line: here the blank line that dispatches. */
    CHECK_INT(sse_feed(d, "data: d\n\r", 9, &err), HEW_OK);
    sse_end(d);
    CHECK_INT(sse_next(d, &ev, &err), 1);
    CHECK_STR(ev.data, "d");
    CHECK_INT(sse_next(d, &ev, &err), 0);
    CHECK_INT(sse_feed(d, "x", 1, &err), HEW_E_INVALID); /* feed after end */
    sse_decoder_free(d);

    EXPECT("data: a\r\r\n\n", "|a|\n"); /* \r\r: dispatch; \n completes CRLF; \n: blank */
}

static void test_bom(void)
{
    EXPECT("\xEF\xBB\xBF" "data: a\n\n", "|a|\n");
    EXPECT("\xEF\xBB\xBF" "\xEF\xBB\xBF" "data: a\n\ndata: b\n\n", "|b|\n"); /* 2nd BOM is data
                                                                               of a field name */
    EXPECT("\xEF\xBB" "data: a\n\ndata: b\n\n", "|b|\n"); /* half a BOM is content */
    EXPECT("data: \xEF\xBB\xBF\n\n", "|\xEF\xBB\xBF|\n");   /* BOM in a value is data */
    EXPECT("\xEF\xBB\xBF", "");
    EXPECT("\xEF\xBB", "");
    /* Split across feeds, one byte per feed, explicitly. */
    sse_decoder *d = sse_decoder_new(NULL);
    REQUIRE(d != NULL);
    sse_event ev = { 0 };
    CHECK_INT(sse_feed(d, "\xEF", 1, NULL), HEW_OK);
    CHECK_INT(sse_feed(d, "\xBB", 1, NULL), HEW_OK);
    CHECK_INT(sse_feed(d, "\xBF" "data:x\n\n", 9, NULL), HEW_OK);
    CHECK_INT(sse_next(d, &ev, NULL), 1);
    CHECK_STR(ev.data, "x");
    sse_decoder_free(d);
}

static void test_fields_and_spaces(void)
{
    EXPECT("data:x\n\n", "|x|\n");
    EXPECT("data: x\n\n", "|x|\n");
    EXPECT("data:  x\n\n", "| x|\n"); /* only one space removed */
    EXPECT("data:\tx\n\n", "|\tx|\n"); /* a tab is not a space */
    EXPECT("data: x \n\n", "|x |\n");  /* trailing space kept */
    EXPECT("data\n\n", "||\n");        /* no colon: field "data" with empty value */
    EXPECT("data:\n\n", "||\n");
    EXPECT("data: \n\n", "||\n");
    EXPECT("data: a:b: c\n\n", "|a:b: c|\n"); /* split at the first colon only */
    EXPECT("Data: x\n\n", "");                 /* names are case-sensitive */
    EXPECT("data : x\n\n", "");                /* "data " is another field */
    EXPECT("foo: bar\ndata: x\nbaz\n\n", "|x|\n");
    EXPECT("data: a\0b\n\n", "|a\\0b|\n"); /* NUL in data is data */
}

static void test_comments_and_multiline(void)
{
    EXPECT(": hello\n\n", "");
    EXPECT(":\n\n", "");
    EXPECT("data: a\n: keep-alive\ndata: b\n\n", "|a\\nb|\n");
    EXPECT("data: a\ndata\ndata: c\n\n", "|a\\n\\nc|\n");
    EXPECT("data:\ndata:\n\n", "|\\n|\n");
    EXPECT("data: 1\ndata: 2\ndata: 3\n\n", "|1\\n2\\n3|\n");
    /* Comments between events with an event: line in force. */
    EXPECT("event: e\n: OPENROUTER PROCESSING\n: x\ndata: d\n\n", "e|d|\n");
}

static void test_event_type(void)
{
    EXPECT("event: a\ndata: 1\n\ndata: 2\n\n", "a|1|\n|2|\n"); /* reset after dispatch */
    EXPECT("event: a\n\ndata: 2\n\n", "|2|\n");               /* reset by a blank line too */
    EXPECT("event: a\nevent: b\ndata: 1\n\n", "b|1|\n");       /* last one wins */
    EXPECT("event\ndata: 1\n\n", "|1|\n");                     /* empty type */
    EXPECT("data: 1\nevent: late\n\n", "late|1|\n");           /* order in the block is free */
}

static void test_id(void)
{
    EXPECT("id: 7\ndata: a\n\ndata: b\n\n", "|a|7\n|b|7\n"); /* persists across events */
    EXPECT("id: 7\ndata: a\n\nid\ndata: b\n\n", "|a|7\n|b|\n"); /* empty id resets to "" */
    EXPECT("id: 7\ndata: a\n\nid: 8\0x\ndata: b\n\n", "|a|7\n|b|7\n"); /* NUL: ignored */
    EXPECT("id: 1\n\ndata: a\n\n", "|a|1\n"); /* an id-only block sets it, dispatches none */

    sse_decoder *d = sse_decoder_new(NULL);
    REQUIRE(d != NULL);
    sse_event ev = { 0 };
    CHECK_STR(sse_last_event_id(d), "");
    CHECK_INT(sse_retry_ms(d), -1);
    sse_feed(d, "id: 5\ndata: x\n\nid: 6\ndata: y\n", 29, NULL);
    CHECK_INT(sse_next(d, &ev, NULL), 1);
    CHECK_STR(ev.id, "5");
    CHECK_INT(sse_next(d, &ev, NULL), 0);
    sse_end(d);
    CHECK_INT(sse_next(d, &ev, NULL), 0);
    /* Event 6 never completed: the last id a reconnect would send is still 5. */
    CHECK_STR(sse_last_event_id(d), "5");
    sse_decoder_free(d);
}

static void test_retry(void)
{
    struct {
        const char *in;
        long want;
    } cases[] = {
        { "retry: 3000\n\n", 3000 },  { "retry:0\n\n", 0 },        { "retry: 12a\n\n", -1 },
        { "retry: -5\n\n", -1 },      { "retry: 1.5\n\n", -1 },    { "retry:\n\n", -1 },
        { "retry:  10\n\n", -1 },     { "retry: 10 \n\n", -1 },    { "retry: +10\n\n", -1 },
        { "retry: 99999999999999999999999\n\n", -1 },
        { "retry: 100\nretry: x\n\n", 100 }, /* an invalid value keeps the last valid one */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run r;
        run_init(&r, 0);
        decode(cases[i].in, strlen(cases[i].in), NULL, 0, NULL, &r);
        if (r.retry != cases[i].want)
            check_fail(__FILE__, __LINE__, "\"%s\": retry %ld, want %ld", cases[i].in, r.retry,
                       cases[i].want);
        CHECK_INT(r.events, 0); /* a retry-only block dispatches nothing */
        run_release(&r);
    }
}

static void test_blank_lines_and_eof(void)
{
    EXPECT("\n\n\n\r\n\r\r", "");
    EXPECT("event: a\nid: 1\nretry: 5\n\n", ""); /* WHATWG: no data, no event */
    EXPECT("data: a", "");                      /* cut off by EOF: dropped */
    EXPECT("data: a\n", "");
    EXPECT("data: a\r", "");
    EXPECT("data: a\r\n", "");
    EXPECT("data: a\n\ndata: b\n", "|a|\n");
    EXPECT("data: a\n\ndata: b\r", "|a|\n");
    EXPECT("data: a\n\ndata: b\ndata: c", "|a|\n");
    EXPECT("", "");
}

static void test_limits(void)
{
    sse_limits lim = { .max_line = 16, .max_event = 24 };
    /* A line of exactly max_line bytes is fine, one more is an error. */
    EXPECT_LIM("data: 0123456789\n\n", &lim, "|0123456789|\n");     /* 16 bytes */
    EXPECT_LIM("data: 0123456789a\n\n", &lim, "ERR:toobig");        /* 17 bytes */
    EXPECT_LIM("data: a\n\n: 0123456789abcdefgh", &lim, "|a|\nERR:toobig"); /* no terminator */
    EXPECT_LIM(": comment that is far too long\n", &lim, "ERR:toobig"); /* comments too */
    /* Event cap counts the joined data: 10 + 1 + 10 + 1 + 2 = 24 fits, 25 does not. */
    EXPECT_LIM("data:0123456789\ndata:0123456789\ndata:ab\n\n", &lim,
               "|0123456789\\n0123456789\\nab|\n");
    EXPECT_LIM("data:0123456789\ndata:0123456789\ndata:abc\n\ndata: z\n\n", &lim,
               "ERR:toobig");
    EXPECT_LIM("data: ok\n\ndata:0123456789\ndata:0123456789\ndata:abc\n\n", &lim,
               "|ok|\nERR:toobig");

    /* The message names the limit and says what happened; the error is sticky. */
    sse_limits small = { .max_line = 8, .max_event = 0 };
    sse_decoder *d = sse_decoder_new(&small);
    REQUIRE(d != NULL);
    hew_err err = HEW_ERR_INIT;
    sse_event ev = { 0 };
    CHECK_INT(sse_feed(d, "data: 12345\n\n", 13, &err), HEW_OK);
    CHECK_INT(sse_next(d, &ev, &err), -1);
    CHECK_INT(err.code, HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "SSE line longer than 8 bytes") != NULL);
    CHECK(strstr(err.msg, "malformed stream") != NULL);
    hew_err_clear(&err);
    CHECK_INT(sse_feed(d, "data: x\n\n", 9, &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "8 bytes") != NULL);
    hew_err_clear(&err);
    CHECK_INT(sse_next(d, &ev, &err), -1);
    CHECK_INT(err.code, HEW_E_TOOBIG);
    sse_end(d);
    CHECK_INT(sse_next(d, &ev, NULL), -1);
    sse_decoder_free(d);

    sse_limits ev_cap = { .max_line = 0, .max_event = 4 };
    d = sse_decoder_new(&ev_cap);
    REQUIRE(d != NULL);
    CHECK_INT(sse_feed(d, "data: 12\ndata: 34\n\n", 20, &err), HEW_OK);
    CHECK_INT(sse_next(d, &ev, &err), -1);
    CHECK(strstr(err.msg, "SSE event larger than 4 bytes") != NULL);
    sse_decoder_free(d);

    /* Defaults: a 1 MiB line passes, 1 MiB + 1 does not; the default event cap is 8 MiB. */
    size_t big = SSE_DEFAULT_MAX_LINE;
    char *line = malloc(big + 3);
    REQUIRE(line != NULL);
    memcpy(line, "data:", 5);
    memset(line + 5, 'x', big - 5);
    memcpy(line + big, "\n\n", 2);
    d = sse_decoder_new(NULL);
    CHECK_INT(sse_feed(d, line, big + 2, &err), HEW_OK);
    CHECK_INT(sse_next(d, &ev, &err), 1);
    CHECK_INT(ev.data_len, big - 5);
    sse_decoder_free(d);
    d = sse_decoder_new(NULL);
    line[big] = 'x';
    line[big + 1] = '\n';
    line[big + 2] = '\n';
    for (size_t at = 0; at < big + 3; at += 4096) /* detected before the line ends */
        if (sse_feed(d, line + at, at + 4096 < big + 3 ? 4096 : big + 3 - at, &err) != HEW_OK ||
            sse_next(d, &ev, &err) != 0)
            break;
    CHECK_INT(err.code, HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "1048576") != NULL);
    sse_decoder_free(d);
    free(line);
    sse_decoder_free(NULL);
}

/* Events borrowed from the internal buffer survive the decoder compacting it: an event
 * whose lines span many feeds and a buffer compaction must come out intact. */
static void test_compaction_keeps_pending_event(void)
{
    buf in = BUF_INIT(0);
    for (int i = 0; i < 2000; i++) {
        buf_printf(&in, "event: e%d\n", i);
        for (int k = 0; k < 30; k++)
            buf_puts(&in, ": keep-alive padding padding padding padding padding\n");
        buf_printf(&in, "data: first %d\n", i);
        for (int k = 0; k < 20; k++)
            buf_puts(&in, ": more padding padding padding padding padding padding\n");
        buf_printf(&in, "id: %d\n\n", i);
    }
    sse_decoder *d = sse_decoder_new(NULL);
    REQUIRE(d != NULL);
    int seen = 0, bad = 0;
    for (size_t at = 0; at < in.len; at += 1000) {
        size_t n = at + 1000 < in.len ? 1000 : in.len - at;
        REQUIRE(sse_feed(d, in.data + at, n, NULL) == HEW_OK);
        sse_event ev = { 0 };
        while (sse_next(d, &ev, NULL) == 1) {
            char want_type[32], want_data[32], want_id[32];
            snprintf(want_type, sizeof want_type, "e%d", seen);
            snprintf(want_data, sizeof want_data, "first %d", seen);
            snprintf(want_id, sizeof want_id, "%d", seen);
            if (strcmp(ev.event, want_type) || strcmp(ev.data, want_data) ||
                strcmp(ev.id, want_id))
                bad++;
            seen++;
        }
    }
    CHECK_INT(seen, 2000);
    CHECK_INT(bad, 0);
    sse_decoder_free(d);
    buf_release(&in);
}

int main(void)
{
    RUN(test_fixtures_all_feedings);
    RUN(test_edge_cases_fixture_events);
    RUN(test_line_endings);
    RUN(test_cr_at_feed_end);
    RUN(test_bom);
    RUN(test_fields_and_spaces);
    RUN(test_comments_and_multiline);
    RUN(test_event_type);
    RUN(test_id);
    RUN(test_retry);
    RUN(test_blank_lines_and_eof);
    RUN(test_limits);
    RUN(test_compaction_keeps_pending_event);
    return check_report();
}
