/* debug_decode — hew_debug_decode(): a raw response body through the real decoder (or,
 * for an error status, the real classifier), described as JSON for `hew debug decode`,
 * tests and bug reports. Glue only: the work is in api/. Never prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decoder.h"
#include "api/error.h"
#include "api/turn.h"
#include "hew_debug.h"
#include "net/http.h"

#define MAX_HEADERS 64

/* Split "Name: value" strings into lowercased name / trimmed value pairs. */
static size_t split_headers(const char *const *in, http_header *out, char store[][512])
{
    size_t n = 0;
    for (size_t i = 0; in && in[i] && n < MAX_HEADERS; i++) {
        snprintf(store[n], 512, "%s", in[i]);
        char *colon = strchr(store[n], ':');
        if (!colon)
            continue;
        *colon = '\0';
        for (char *p = store[n]; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vl = strlen(v);
        while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t' || v[vl - 1] == '\r'))
            v[--vl] = '\0';
        out[n].name = store[n];
        out[n].value = v;
        n++;
    }
    return n;
}

hew_code hew_debug_decode(const char *protocol, long status, const char *const *headers,
                          const char *body, size_t body_len, char **out, char *errbuf,
                          size_t errbuf_len)
{
    if (!out)
        return HEW_E_INVALID;
    *out = NULL;
    api_protocol proto;
    if (!api_protocol_parse(protocol, &proto)) {
        if (errbuf && errbuf_len)
            snprintf(errbuf, errbuf_len,
                     "unknown protocol '%s' — use anthropic, openai-chat, openai-responses "
                     "or gemini",
                     protocol ? protocol : "");
        return HEW_E_INVALID;
    }
    if (status == 0)
        status = 200;
    api_turn turn;
    api_turn_init(&turn);
    if (status < 200 || status > 299) {
        char store[MAX_HEADERS][512];
        http_header h[MAX_HEADERS];
        size_t nh = split_headers(headers, h, store);
        api_error e;
        api_classify(status, h, nh, body, body_len, &e);
        api_chunk c;
        memset(&c, 0, sizeof c);
        c.kind = API_CHUNK_ERROR;
        c.error = &e;
        api_turn_add(&turn, &c);
    } else {
        api_decoder *d = api_decoder_new(proto, status, api_turn_add, &turn);
        if (!d) {
            api_turn_release(&turn);
            if (errbuf && errbuf_len)
                snprintf(errbuf, errbuf_len, "out of memory");
            return HEW_E_NOMEM;
        }
        api_decoder_feed(d, body, body_len);
        api_decoder_end(d);
        api_decoder_free(d);
    }
    json_t *o = api_turn_debug_json(&turn);
    api_turn_release(&turn);
    *out = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (*out)
        return HEW_OK;
    if (errbuf && errbuf_len)
        snprintf(errbuf, errbuf_len, "out of memory");
    return HEW_E_NOMEM;
}
