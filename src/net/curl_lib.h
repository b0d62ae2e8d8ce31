/* curl_lib — libcurl, loaded (dlopen) when hew first needs it instead of when hew starts.
 *
 * Why: libcurl brings some thirty shared libraries (TLS twice, HTTP/2, IDN, LDAP,
 * Kerberos, SSH, RTMP, ...), all built with immediate binding; loading and relocating
 * them cost about 4 ms before main, more than half of `hew --version` and of every
 * command that never goes on the network (history, config, checkpoints). Loaded here,
 * that cost is paid by the first request only, and a session pays it on a thread of its
 * own while the task opens its store (http.h: http_warmup_start).
 *
 * The types and constants still come from <curl/curl.h> (the ABI of libcurl.so.4 has
 * been stable since 2006); only the functions below are looked up. Thread-safe: the
 * library is loaded and curl_global_init is run exactly once, by whichever thread asks
 * first (the others wait for it). It is never unloaded. */
#ifndef HEW_NET_CURL_LIB_H
#define HEW_NET_CURL_LIB_H

#include <curl/curl.h>

#include "base/err.h"

/* The libcurl functions hew uses (their types from the header). */
typedef struct curl_lib {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_multi_init) *multi_init;
    __typeof__(curl_multi_add_handle) *multi_add_handle;
    __typeof__(curl_multi_remove_handle) *multi_remove_handle;
    __typeof__(curl_multi_perform) *multi_perform;
    __typeof__(curl_multi_poll) *multi_poll;
    __typeof__(curl_multi_wakeup) *multi_wakeup;
    __typeof__(curl_multi_info_read) *multi_info_read;
    __typeof__(curl_multi_cleanup) *multi_cleanup;
    __typeof__(curl_multi_strerror) *multi_strerror;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
    /* the URL API (net/url.c) */
    __typeof__(curl_url) *url;
    __typeof__(curl_url_cleanup) *url_cleanup;
    __typeof__(curl_url_set) *url_set;
    __typeof__(curl_url_get) *url_get;
    __typeof__(curl_free) *free_str;
} curl_lib;

/* libcurl loaded and initialised (the first call does it; the result, good or bad, is
 * kept). NULL with a message in err when it cannot be: not installed ("install libcurl4"),
 * too old (a function missing), or curl_global_init failed. */
const curl_lib *curl_lib_get(hew_err *err);

/* Has curl_lib_get already run (successfully or not)? Never blocks. */
int curl_lib_ready(void);

#endif
