/* sbpolicy — which sandbox a child process of hew gets, and the prepared sandboxes a
 * session shares (sbpolicy.h). It decides and describes; the kernel work is sandbox.c's.
 * It must never widen a mode on anything but a person's approval, never run anything,
 * and never hand out a sandbox it could not prepare. */
#include "sys/sbpolicy.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/datadir.h"
#include "sys/path.h"
#include "sys/wsroot.h"

/* hew's control files: read-only inside every writable root that holds them. */
static const char *const control_names[] = { ".git", ".hew", ".husky", ".clinerules",
                                             ".clineignore" };

/* The mode words: "auto" and the three modes, as the settings and --sandbox spell them. */
static const char *const mode_words[] = { SBPOLICY_AUTO, "read-only", "workspace-write",
                                          "danger-full-access" };

enum { NMODES = 3, NNET = 2 };

typedef struct prepared {
    bool done;
    hew_code rc;
    sandbox *sb;
    char msg[HEW_ERR_MSG_MAX];
} prepared;

struct sbpolicy {
    bool is_auto;
    sandbox_mode mode;        /* the fixed mode when !is_auto */
    sandbox_backend backend;
    bool network;
    int proxy_port;
    char **writable;          /* NULL-terminated */
    char **readonly;
    char **hidden;
    pthread_mutex_t mu;       /* cache */
    prepared cache[NMODES][NNET];
};

const char *sbpolicy_mode_choices(void)
{
    return "auto|read-only|workspace-write|danger-full-access";
}

bool sbpolicy_mode_word_ok(const char *word)
{
    for (size_t i = 0; word && i < sizeof mode_words / sizeof mode_words[0]; i++)
        if (strcmp(word, mode_words[i]) == 0)
            return true;
    return false;
}

/* ---- lists of paths ----------------------------------------------------------------- */

typedef struct plist {
    char **v;
    size_t n, cap;
    bool oom;
} plist;

static bool plist_has(const plist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

/* Add s (taken: freed on failure or when already there). */
static void plist_take(plist *l, char *s)
{
    if (!s) {
        l->oom = true;
        return;
    }
    if (plist_has(l, s)) {
        free(s);
        return;
    }
    if (l->n + 2 > l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    l->v[l->n] = NULL;
}

static void plist_add(plist *l, const char *s)
{
    plist_take(l, strdup(s));
}

/* An existing path resolved (realpath), else a copy as given. */
static char *resolved(const char *p)
{
    char *r = realpath(p, NULL);
    return r ? r : strdup(p);
}

static void list_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* The list, or an empty NULL-terminated one. */
static char **plist_done(plist *l)
{
    if (!l->v) {
        l->v = calloc(1, sizeof *l->v);
        if (!l->v)
            l->oom = true;
    }
    return l->v;
}

/* $VAR/hew when VAR is an absolute path, else $HOME/fallback/hew (NULL when neither). */
static char *xdg_dir(const char *var, const char *fallback)
{
    const char *v = getenv(var);
    const char *home = getenv("HOME");
    char *base = NULL;
    if (v && v[0] == '/')
        base = strdup(v);
    else if (home && home[0] == '/')
        base = path_join(home, fallback);
    if (!base)
        return NULL;
    char *dir = path_join(base, "hew");
    free(base);
    return dir;
}

/* The temp dir commands write to: $TMPDIR when absolute, else /tmp. */
static const char *temp_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t && t[0] == '/' ? t : "/tmp";
}

static void add_controls(plist *ro, const char *root)
{
    for (size_t i = 0; i < sizeof control_names / sizeof control_names[0]; i++)
        plist_take(ro, path_join(root, control_names[i]));
}

static hew_code build_lists(sbpolicy *p, const sbpolicy_opts *o, hew_err *err)
{
    plist w = { 0 }, ro = { 0 }, hid = { 0 };
    char *cwd = resolved(o->cwd);
    char *root = cwd ? wsroot_find(cwd, getuid(), NULL) : NULL;
    if (cwd) {
        if (root) {
            plist_add(&w, root);
            add_controls(&ro, root);
        }
        if (!root || !path_is_inside(root, cwd))
            plist_add(&w, cwd);
        add_controls(&ro, cwd);
    }
    plist_take(&w, resolved(temp_dir()));
    for (const char *const *r = o->writable_roots; r && *r; r++) {
        char *real = realpath(*r, NULL);
        if (!real)
            continue; /* nothing there to write to */
        plist_take(&w, real);
        add_controls(&ro, real);
    }
    hew_err e = HEW_ERR_INIT;
    char *data = o->data_dir ? resolved(o->data_dir) : datadir_default(&e);
    if (data) {
        plist_take(&hid, resolved(data));
        free(data);
    }
    static const struct {
        const char *var, *fallback;
    } xdg[] = { { "XDG_CONFIG_HOME", ".config" }, { "XDG_STATE_HOME", ".local/state" } };
    for (size_t i = 0; i < sizeof xdg / sizeof xdg[0]; i++) {
        char *d = xdg_dir(xdg[i].var, xdg[i].fallback);
        if (d) {
            plist_take(&hid, resolved(d));
            free(d);
        }
    }
    const char *dd = datadir_override();
    if (dd && *dd)
        plist_take(&hid, resolved(dd));
    for (const char *const *h = o->hidden; h && *h; h++)
        plist_take(&hid, resolved(*h));
    free(root);
    free(cwd);
    p->writable = plist_done(&w);
    p->readonly = plist_done(&ro);
    p->hidden = plist_done(&hid);
    if (!cwd || w.oom || ro.oom || hid.oom)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return HEW_OK;
}

/* ---- the policy ----------------------------------------------------------------------- */

static hew_code check_abs(const char *const *list, const char *what, hew_err *err)
{
    for (const char *const *r = list; r && *r; r++)
        if ((*r)[0] != '/')
            return hew_err_set(err, HEW_E_INVALID,
                               "%s '%s' is not an absolute path — give the whole path "
                               "(/home/me/cache), or ~/… in the config file",
                               what, *r);
    return HEW_OK;
}

hew_code sbpolicy_new(const sbpolicy_opts *o, sbpolicy **out, hew_err *err)
{
    *out = NULL;
    if (!o || !o->cwd)
        return hew_err_set(err, HEW_E_INVALID, "the sandbox needs the workspace folder");
    sandbox_mode mode = SANDBOX_WORKSPACE_WRITE;
    bool is_auto = !o->mode || strcmp(o->mode, SBPOLICY_AUTO) == 0;
    if (!is_auto && !sandbox_mode_parse(o->mode, &mode))
        return hew_err_set(err, HEW_E_INVALID, "unknown sandbox mode '%s' — use one of %s",
                           o->mode, sbpolicy_mode_choices());
    sandbox_backend backend = SANDBOX_BACKEND_AUTO;
    if (o->backend && (!sandbox_backend_parse(o->backend, &backend) ||
                       backend == SANDBOX_BACKEND_NONE))
        return hew_err_set(err, HEW_E_INVALID,
                           "unknown sandbox backend '%s' — use auto, landlock or bwrap",
                           o->backend);
    hew_code rc = check_abs(o->writable_roots, "the sandbox's writable root", err);
    if (rc == HEW_OK)
        rc = check_abs(o->hidden, "the sandbox's hidden path", err);
    if (rc != HEW_OK)
        return rc;
    sbpolicy *p = calloc(1, sizeof *p);
    if (!p)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    p->is_auto = is_auto;
    p->mode = mode;
    p->backend = backend;
    p->network = o->network;
    p->proxy_port = o->proxy_port;
    pthread_mutex_init(&p->mu, NULL);
    rc = build_lists(p, o, err);
    if (rc != HEW_OK) {
        sbpolicy_free(p);
        return rc;
    }
    *out = p;
    return HEW_OK;
}

void sbpolicy_free(sbpolicy *p)
{
    if (!p)
        return;
    for (int m = 0; m < NMODES; m++)
        for (int n = 0; n < NNET; n++)
            sandbox_free(p->cache[m][n].sb);
    list_free(p->writable);
    list_free(p->readonly);
    list_free(p->hidden);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

bool sbpolicy_is_auto(const sbpolicy *p)
{
    return p && p->is_auto;
}

sandbox_mode sbpolicy_pick(const sbpolicy *p, bool by_hand)
{
    if (!p)
        return SANDBOX_FULL_ACCESS;
    if (!p->is_auto)
        return p->mode; /* the user's choice, for every command */
    return by_hand ? SANDBOX_FULL_ACCESS : SANDBOX_WORKSPACE_WRITE;
}

void sbpolicy_fill(const sbpolicy *p, sandbox_mode m, int network, sandbox_policy *out)
{
    *out = (sandbox_policy){
        .mode = m,
        .backend = p->backend,
        .writable_roots = (const char *const *)p->writable,
        .readonly_paths = (const char *const *)p->readonly,
        .hidden_paths = (const char *const *)p->hidden,
        .network = network < 0 ? p->network : network != 0,
    };
    if (!out->network)
        out->proxy_port = p->proxy_port;
}

hew_code sbpolicy_sandbox(sbpolicy *p, sandbox_mode m, int network, const sandbox **out,
                          hew_err *err)
{
    *out = NULL;
    if (!p || m == SANDBOX_FULL_ACCESS || (int)m < 0 || (int)m >= NMODES)
        return HEW_OK;
    int net = network < 0 ? p->network : network != 0;
    pthread_mutex_lock(&p->mu);
    prepared *c = &p->cache[m][net];
    if (!c->done) {
        sandbox_policy pol;
        sbpolicy_fill(p, m, net, &pol);
        hew_err e = HEW_ERR_INIT;
        c->rc = sandbox_prepare(&pol, &c->sb, &e);
        if (c->rc != HEW_OK) {
            c->sb = NULL;
            memcpy(c->msg, e.msg, sizeof c->msg);
        }
        c->done = true;
    }
    hew_code rc = c->rc;
    if (rc == HEW_OK)
        *out = c->sb;
    else
        hew_err_set(err, rc, "%s", c->msg);
    pthread_mutex_unlock(&p->mu);
    return rc;
}
