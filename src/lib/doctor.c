/* doctor — the library side of `hew doctor` (include/hew.h: Checks): asking the provider
 * whether it is there, looking at the data directory and the task store, asking a
 * program for its version. Each does one thing and reports what it found in words; none
 * prints, and none ever puts an API key into what it reports. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/provider.h"
#include "base/fs.h"
#include "lib/lib_store.h"
#include "net/http.h"
#include "store/store.h"
#include "tools/proc.h"

#define PROBE_CONNECT_MS 3000
#define PROBE_DEADLINE_MS 5000
#define PROBE_BODY_MAX ((size_t)64 << 10)
#define VERSION_TIMEOUT_MS 3000
#define VERSION_OUTPUT_MAX ((size_t)16 << 10)

static long elapsed_ms(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - since->tv_sec) * 1000L + (now.tv_nsec - since->tv_nsec) / 1000000L;
}

/* The provider o names, set up as a session would; with no key when none is known (the
 * probe then goes without one). -1 with the reason in detail when o names no provider. */
static int probe_provider_init(const hew_options *o, api_provider *p, char *detail, size_t n)
{
    const char *name = o->provider ? o->provider : "anthropic";
    /* The model plays no part in the probe: any name does where the profile has none. */
    const char *model = o->model && *o->model ? o->model : "any";
    api_provider_opts po = { o->base_url, o->api_key, model, NULL };
    hew_err e = HEW_ERR_INIT;
    if (api_provider_init(p, name, &po, &e) == HEW_OK)
        return 0;
    if (!strstr(e.msg, "no API key")) {
        lib_set_err(detail, n, e.msg);
        return -1;
    }
    po.api_key = "none"; /* reach the provider anyway; the key itself is never sent */
    if (api_provider_init(p, name, &po, &e) != HEW_OK) {
        lib_set_err(detail, n, e.msg);
        return -1;
    }
    p->api_key[0] = '\0';
    return 0;
}

/* GET of the provider's model list: {base}/v1/models (Anthropic), {base}/models. */
static void probe_url(const api_provider *p, char *url, size_t n)
{
    size_t bl = strlen(p->base_url);
    int anthropic_root = p->protocol == API_PROTO_ANTHROPIC &&
                         !(bl >= 3 && strcmp(p->base_url + bl - 3, "/v1") == 0);
    snprintf(url, n, "%s%s", p->base_url, anthropic_root ? "/v1/models" : "/models");
}

/* The request headers: the key in the provider's way, its extra headers. */
static size_t probe_headers(const api_provider *p, char hdrs[][600], const char **list,
                            size_t cap)
{
    size_t k = 0;
    if (p->api_key[0]) {
        const char *fmt = p->auth == API_AUTH_BEARER      ? "Authorization: Bearer %s"
                          : p->auth == API_AUTH_X_API_KEY ? "x-api-key: %s"
                          : p->auth == API_AUTH_GOOG      ? "x-goog-api-key: %s"
                                                          : "api-key: %s";
        snprintf(hdrs[k], sizeof hdrs[k], fmt, p->api_key);
        list[k] = hdrs[k];
        k++;
    }
    if (p->protocol == API_PROTO_ANTHROPIC && k + 1 < cap)
        list[k++] = "anthropic-version: 2023-06-01";
    for (size_t i = 0; i < p->nheaders && k + 1 < cap; i++)
        list[k++] = p->headers[i];
    list[k] = NULL;
    return k;
}

hew_code hew_probe_provider(const hew_options *o, long *http_status, char *detail, size_t n)
{
    if (http_status)
        *http_status = 0;
    hew_options defaults;
    if (!o) {
        hew_options_init(&defaults);
        o = &defaults;
    }
    api_provider p;
    if (probe_provider_init(o, &p, detail, n) != 0)
        return HEW_E_INVALID;
    char url[700];
    probe_url(&p, url, sizeof url);
    char hdrs[1][600];
    const char *list[API_PROVIDER_HEADERS_MAX + 3];
    probe_headers(&p, hdrs, list, sizeof list / sizeof list[0]);

    http_request req = http_request_defaults();
    req.method = "GET";
    req.url = url;
    req.headers = list;
    req.connect_timeout_ms = PROBE_CONNECT_MS;
    req.idle_timeout_ms = PROBE_DEADLINE_MS;
    req.deadline_ms = PROBE_DEADLINE_MS;
    http_response resp = HTTP_RESPONSE_INIT;
    buf body = BUF_INIT(PROBE_BODY_MAX);
    hew_err e = HEW_ERR_INIT;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    hew_code rc = http_perform_collect(&req, &resp, &body, &e);
    memset(hdrs, 0, sizeof hdrs); /* the key leaves no copy behind */
    int status = rc == HEW_OK ? (int)resp.status : 0;
    if (status > 0)
        snprintf(detail, n, "HTTP %d from GET %s in %ld ms%s", status, url, elapsed_ms(&t0),
                 p.api_key[0] ? "" : " (no key sent)");
    else
        snprintf(detail, n, "%s", e.msg[0] ? e.msg : "no answer");
    memset(&p, 0, sizeof p);
    http_response_release(&resp);
    buf_release(&body);
    if (status <= 0) /* not reached: how it failed (net, timeout, ...) */
        return rc != HEW_OK ? rc : HEW_E_NET;
    if (http_status)
        *http_status = status;
    return HEW_OK;
}

/* Can a file be made in dir (created if needed)? 0, or -1 with the reason in detail. */
static int data_dir_writable(const char *dir, char *detail, size_t n)
{
    hew_err e = HEW_ERR_INIT;
    if (fs_mkdirs(dir, 0700, &e) != HEW_OK) {
        snprintf(detail, n, "%s cannot be made: %s", dir, e.msg);
        return -1;
    }
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.hew-doctor-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(detail, n, "%s is not writable: %s", dir, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(probe);
    return 0;
}

hew_code hew_check_store(const hew_options *o, char *detail, size_t n)
{
    hew_err e = HEW_ERR_INIT;
    char *path = store_path_in(o ? o->data_dir : NULL, &e);
    if (!path)
        return lib_fail(HEW_E_IO, detail, n,
                        e.msg[0] ? e.msg : "cannot tell where hew keeps its data");
    char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    hew_code rc = data_dir_writable(dir, detail, n) == 0 ? HEW_OK : HEW_E_IO;
    store *s = NULL;
    if (rc == HEW_OK) {
        store_options so = STORE_OPTIONS_INIT;
        so.path = path;
        if (store_open(&so, &s, &e) != HEW_OK || store_check(s, &e) != HEW_OK) {
            snprintf(detail, n, "%s: %s", path, e.msg);
            rc = HEW_E_CORRUPT;
        } else {
            snprintf(detail, n, "%s opens, quick_check ok", path);
        }
    }
    store_free(s);
    free(path);
    return rc;
}

/* The first line of text, trimmed, into out. */
static void first_line(const char *text, size_t len, char *out, size_t n)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r'))
        i++;
    size_t end = i;
    while (end < len && text[end] != '\n' && text[end] != '\r')
        end++;
    snprintf(out, n, "%.*s", (int)(end - i), text + i);
}

hew_code hew_program_version(const char *program, char *version, size_t n)
{
    const char *argv[] = { program, "--version", NULL };
    proc_opts po = { 0 };
    po.argv = argv;
    po.timeout_ms = VERSION_TIMEOUT_MS;
    buf out = BUF_INIT(VERSION_OUTPUT_MAX);
    proc_status st;
    hew_err e = HEW_ERR_INIT;
    hew_code rc = proc_run(&po, &out, NULL, &st, &e);
    if (rc != HEW_OK) {
        lib_set_err(version, n, e.msg);
    } else if (st.end != PROC_EXITED || st.exit_code != 0) {
        snprintf(version, n, "%s --version failed", program);
        rc = st.end == PROC_EXITED ? HEW_E_IO : HEW_E_TIMEOUT;
    } else {
        first_line(out.data ? out.data : "", out.len, version, n);
    }
    buf_release(&out);
    return rc;
}
