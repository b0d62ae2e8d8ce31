/* fuzz_jscan — libFuzzer target for base/jscan and its two users, differential against
 * jansson (json_loadb with JSON_DECODE_ANY | JSON_ALLOW_NUL, what hew loads with):
 *   - the reader accepts exactly what jansson accepts (jansson's one extra rule, no NUL
 *     byte in a key, applied to the tokens; a raw NUL byte, which jansson's reader skips in
 *     places, refused), and a tree built here from its tokens is
 *     json_equal to jansson's: the same strings (escapes, surrogate pairs, \u0000), the
 *     same numbers (integer or real, the same double), the same structure and key order
 *     rules (the last duplicate wins);
 *   - store/jload builds the same tree and validates the same way;
 *   - the walker (when the text is an object) walks it to the end exactly when the reader
 *     takes it and no key has an escape, and every string member decodes to jansson's
 *     string.
 * Any disagreement aborts. It must never keep state between runs. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/jscan.h"
#include "store/jload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_DEPTH_MAX JSCAN_MAX_DEPTH

/* A tree from the reader's tokens, built here independently of jload; NULL when the
 * reader refuses the text or a key holds a NUL byte. */
static json_t *tree_of(const char *s, size_t n)
{
    jscan_reader r;
    jscan_reader_init(&r, s, n);
    json_t **stack = malloc(FUZZ_DEPTH_MAX * sizeof *stack);
    if (!stack)
        abort();
    json_t *root = NULL;
    int depth = 0;
    char *key = NULL;
    jscan_tok tok;
    jscan_val v;
    int rc;
    while ((rc = jscan_next(&r, &tok, &v)) == 1) {
        json_t *val = NULL;
        if (tok == JSCAN_TOK_KEY) {
            if (v.kind != JSCAN_STRING || v.len < 2)
                abort();
            free(key);
            key = malloc(v.len + 1);
            if (!key)
                abort();
            size_t kn = jscan_unescape(&v, key);
            key[kn] = '\0';
            if (v.nul != (strlen(key) != kn))
                abort(); /* the NUL flag lies */
            if (v.nul) {
                rc = -1;
                break;
            }
            continue;
        }
        if (tok == JSCAN_TOK_END) {
            if (depth == 0)
                abort();
            depth--;
            continue;
        }
        if (tok == JSCAN_TOK_BEGIN) {
            val = v.kind == JSCAN_OBJECT ? json_object() : json_array();
        } else if (v.kind == JSCAN_STRING) {
            char *t = malloc(v.len);
            if (!t)
                abort();
            size_t tn = jscan_unescape(&v, t);
            val = json_stringn(t, tn); /* jansson checks the UTF-8 again */
            free(t);
            if (!val)
                abort(); /* the reader let invalid UTF-8 through */
        } else if (v.kind == JSCAN_NUMBER) {
            val = v.real ? json_real(v.d) : json_integer(v.i);
        } else if (v.kind == JSCAN_TRUE) {
            val = json_true();
        } else if (v.kind == JSCAN_FALSE) {
            val = json_false();
        } else {
            val = json_null();
        }
        if (!val)
            abort();
        if (depth == 0) {
            if (root)
                abort(); /* two values at the top */
            root = val;
        } else if (json_is_object(stack[depth - 1])) {
            if (!key || json_object_set_new(stack[depth - 1], key, val) != 0)
                abort();
            free(key);
            key = NULL;
        } else if (json_array_append_new(stack[depth - 1], val) != 0) {
            abort();
        }
        if (tok == JSCAN_TOK_BEGIN) {
            if (depth >= FUZZ_DEPTH_MAX)
                abort(); /* the reader went past its own cap */
            stack[depth++] = val;
        }
    }
    free(key);
    free(stack);
    if (rc != 0) {
        json_decref(root);
        return NULL;
    }
    if (depth != 0 || !root)
        abort(); /* complete, yet containers open */
    return root;
}

/* Walk the object text with the walker: 1 = walked to the end, 0 = refused. With want,
 * the members walked (the last of duplicates winning, as in jansson) are want's keys, and
 * each string member decodes to want's string. */
static int walk(const char *s, size_t n, const json_t *want)
{
    jscan js;
    if (!jscan_object(&js, s, n))
        return 0;
    json_t *seen = json_object();
    if (!seen)
        abort();
    const char *k;
    size_t kl;
    jscan_val v;
    int r;
    while ((r = jscan_member(&js, &k, &kl, &v)) == 1) {
        json_t *val = json_null();
        if (v.kind == JSCAN_STRING) {
            buf out = BUF_INIT(0);
            if (!jscan_string(&v, &out))
                abort();
            val = json_stringn(out.data ? out.data : "", out.len);
            buf_release(&out);
        }
        if (!val || json_object_setn_new(seen, k, kl, val) != 0)
            abort();
    }
    int walked = r == 0 && jscan_done(&js);
    if (walked && want) {
        if (json_object_size(seen) != json_object_size(want))
            abort();
        const char *key;
        json_t *val;
        json_object_foreach(seen, key, val) {
            const json_t *w = json_object_get(want, key);
            if (!w || json_is_string(val) != json_is_string(w) ||
                (json_is_string(val) && !json_equal(val, w)))
                abort(); /* the walker read another member or string than jansson */
        }
    }
    json_decref(seen);
    return walked;
}

/* True when no key of the top-level object is written with an escape (the walker refuses
 * those by contract; nested ones are skipped whole). */
static bool keys_plain(const char *s, size_t n)
{
    jscan_reader r;
    jscan_reader_init(&r, s, n);
    jscan_tok tok;
    jscan_val v;
    while (jscan_next(&r, &tok, &v) == 1)
        if (tok == JSCAN_TOK_KEY && r.depth == 1 && v.escaped)
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    json_error_t e;
    json_t *want = json_loadb(s, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    json_t *got = tree_of(s, size);
    if (memchr(s, '\0', size)) {
        /* A raw NUL byte is never JSON, but jansson's stream reader takes it for the end of
         * its buffer and skips it in places ("1\0" and "[1\0]" load): jscan refuses. */
        if (got || jscan_valid(s, size))
            abort();
    } else {
        if ((want == NULL) != (got == NULL))
            abort(); /* one accepts what the other refuses */
        if (want && !json_equal(want, got))
            abort(); /* the same text, different values */
        /* jscan_valid is the reader's answer without jansson's key rule */
        if (want && !jscan_valid(s, size))
            abort();
    }

    /* the store's loader */
    hew_err err = HEW_ERR_INIT;
    json_t *loaded = jload_parse(s, size, "fuzz", &err);
    if ((loaded == NULL) != (want == NULL) || (want && !json_equal(want, loaded)))
        abort();
    if (jload_valid(s, size) != (want != NULL))
        abort();
    json_decref(loaded);

    /* the walker, on a top-level object */
    if (want && json_is_object(want) && got) {
        int walked = walk(s, size, want);
        if (walked != (int)keys_plain(s, size))
            abort();
    } else if (!want && jscan_valid(s, size) == false) {
        if (walk(s, size, NULL))
            abort(); /* the walker took a text the reader refuses */
    }
    json_decref(want);
    json_decref(got);
    return 0;
}
