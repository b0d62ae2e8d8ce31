/* curl_lib — loading libcurl on first use (see curl_lib.h). */
#include "net/curl_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/* The sonames to try: the usual build (OpenSSL), then Debian's GnuTLS one. */
static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };
/* The oldest libcurl with every function below (scripts/package puts it in the Debian
 * package's Depends, with a package for each soname above). */
#define CURL_MIN_VERSION "7.68"

/* Where each function goes in the table. */
static const struct curl_sym {
    const char *name;
    size_t offset;
} syms[] = {
#define SYM(field, name) { name, offsetof(curl_lib, field) }
    SYM(global_init, "curl_global_init"),
    SYM(easy_init, "curl_easy_init"),
    SYM(easy_setopt, "curl_easy_setopt"),
    SYM(easy_getinfo, "curl_easy_getinfo"),
    SYM(easy_strerror, "curl_easy_strerror"),
    SYM(easy_cleanup, "curl_easy_cleanup"),
    SYM(multi_init, "curl_multi_init"),
    SYM(multi_add_handle, "curl_multi_add_handle"),
    SYM(multi_remove_handle, "curl_multi_remove_handle"),
    SYM(multi_perform, "curl_multi_perform"),
    SYM(multi_poll, "curl_multi_poll"),
    SYM(multi_wakeup, "curl_multi_wakeup"),
    SYM(multi_info_read, "curl_multi_info_read"),
    SYM(multi_cleanup, "curl_multi_cleanup"),
    SYM(multi_strerror, "curl_multi_strerror"),
    SYM(slist_append, "curl_slist_append"),
    SYM(slist_free_all, "curl_slist_free_all"),
    SYM(url, "curl_url"),
    SYM(url_cleanup, "curl_url_cleanup"),
    SYM(url_set, "curl_url_set"),
    SYM(url_get, "curl_url_get"),
    SYM(free_str, "curl_free"),
#undef SYM
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_int loaded;
static curl_lib lib;
static hew_err load_err = HEW_ERR_INIT;

static void *open_libcurl(void)
{
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof sonames / sizeof sonames[0]; i++)
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        hew_err_set(&load_err, HEW_E_INTERNAL,
                    "cannot load libcurl, which hew needs to talk to providers (%s) — install "
                    "it (Debian: apt-get install libcurl4)",
                    dlerror());
    return h;
}

/* Fill the table from h. Function pointers are stored through memcpy of dlsym's result,
 * the way POSIX says a void * becomes a function pointer. */
static hew_code resolve(void *h)
{
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *fn = dlsym(h, syms[i].name);
        if (!fn)
            return hew_err_set(&load_err, HEW_E_INTERNAL,
                               "the libcurl installed is too old for hew (it lacks %s; "
                               CURL_MIN_VERSION " or newer is needed)",
                               syms[i].name);
        memcpy((char *)&lib + syms[i].offset, &fn, sizeof fn);
    }
    return HEW_OK;
}

static void load(void)
{
    void *h = open_libcurl();
    if (h && resolve(h) == HEW_OK) {
        CURLcode rc = lib.global_init(CURL_GLOBAL_DEFAULT);
        if (rc != CURLE_OK)
            hew_err_set(&load_err, HEW_E_INTERNAL, "cannot initialise libcurl: %s",
                        lib.easy_strerror(rc));
    }
    atomic_store(&loaded, 1);
}

const curl_lib *curl_lib_get(hew_err *err)
{
    pthread_once(&load_once, load);
    if (load_err.code != HEW_OK) {
        hew_err_set(err, load_err.code, "%s", load_err.msg);
        return NULL;
    }
    return &lib;
}

int curl_lib_ready(void)
{
    return atomic_load(&loaded);
}
