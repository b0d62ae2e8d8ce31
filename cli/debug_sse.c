/* debug_sse — `hew debug sse`: POST a request and show the Server-Sent Events of the
 * answer as they arrive, through libhew's HTTP + SSE path. With --text, only the text the
 * model wrote is shown (a small extractor for the four wire formats, enough for the demo
 * and for eyeballing a server; the real decoders live in libhew's api/). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hew_debug.h"

#define MAX_HEADERS 32

struct show {
    int text_only;
    int printed_text;
};

/* Append the model's text carried by one event of any of the four protocols. */
static void print_event_text(struct show *s, const char *type, const json_t *root)
{
    const char *text = NULL;
    const json_t *choices = json_object_get(root, "choices");
    const json_t *delta = json_object_get(root, "delta");
    if (json_is_array(choices)) { /* OpenAI Chat and compatibles */
        const json_t *d = json_object_get(json_array_get(choices, 0), "delta");
        text = json_string_value(json_object_get(d, "content"));
    } else if (json_is_object(delta)) { /* Anthropic content_block_delta */
        text = json_string_value(json_object_get(delta, "text"));
    } else if (strcmp(type, "response.output_text.delta") == 0) { /* OpenAI Responses */
        text = json_string_value(delta);
    } else if (json_is_array(json_object_get(root, "candidates"))) { /* Gemini */
        const json_t *cand = json_array_get(json_object_get(root, "candidates"), 0);
        const json_t *parts = json_object_get(json_object_get(cand, "content"), "parts");
        size_t i;
        const json_t *part;
        json_array_foreach(parts, i, part) {
            const char *t = json_string_value(json_object_get(part, "text"));
            if (t && !json_is_true(json_object_get(part, "thought"))) {
                fputs(t, stdout);
                s->printed_text = 1;
            }
        }
    }
    if (text && *text) {
        fputs(text, stdout);
        s->printed_text = 1;
    }
}

static int on_event(void *ud, const char *type, const char *data, size_t data_len)
{
    struct show *s = ud;
    if (strcmp(type, "http-error") == 0) {
        fprintf(stderr, "hew: the server answered with an error:\n%.*s\n", (int)data_len, data);
        return 0;
    }
    if (!s->text_only) {
        if (*type)
            printf("event: %s\n", type);
        printf("data: %.*s\n\n", (int)data_len, data);
    } else {
        json_t *root = json_loadb(data, data_len, 0, NULL);
        if (root)
            print_event_text(s, type, root);
        json_decref(root);
    }
    fflush(stdout);
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: hew debug sse [--text] [--header 'Name: value']... "
          "[--body JSON | --body-file FILE] URL\n"
          "  POSTs the body (default {}) to URL and prints each Server-Sent Event of the\n"
          "  answer as it arrives; --text prints only the text the model wrote.\n",
          out);
}

int cli_debug_sse(int argc, char **argv)
{
    const char *headers[MAX_HEADERS + 2];
    int nheaders = 0;
    const char *url = NULL;
    const char *body = "{}";
    char *owned_body = NULL;
    struct show s = { 0, 0 };
    headers[nheaders++] = "Content-Type: application/json";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--text") == 0) {
            s.text_only = 1;
        } else if (strcmp(a, "--header") == 0 && i + 1 < argc) {
            if (nheaders >= MAX_HEADERS) {
                fprintf(stderr, "hew: too many --header options (at most %d)\n", MAX_HEADERS);
                return 2;
            }
            headers[nheaders++] = argv[++i];
        } else if (strcmp(a, "--body") == 0 && i + 1 < argc) {
            body = argv[++i];
        } else if (strcmp(a, "--body-file") == 0 && i + 1 < argc) {
            free(owned_body);
            owned_body = cli_read_file(argv[++i]);
            if (!owned_body)
                return 2;
            body = owned_body;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(owned_body);
            return 0;
        } else if (a[0] == '-' || url) {
            fprintf(stderr, "hew: unexpected argument '%s'\n", a);
            usage(stderr);
            free(owned_body);
            return 2;
        } else {
            url = a;
        }
    }
    headers[nheaders] = NULL;
    if (!url) {
        usage(stderr);
        free(owned_body);
        return 2;
    }
    char err[512] = "";
    long status = 0;
    hew_code rc = hew_debug_post_sse(url, headers, body, on_event, &s, &status, err,
                                     sizeof err);
    free(owned_body);
    if (s.printed_text)
        fputc('\n', stdout);
    if (rc != HEW_OK) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    return status >= 200 && status <= 299 ? 0 : 1;
}
