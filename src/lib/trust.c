/* trust — the table of project files that need trust, reading and judging one of them
 * (lib/trust.h), describing an untrusted mcp.json without expanding or starting anything,
 * and the "Workspace trust" part of include/hew.h. Never starts a process, never expands
 * ${env:…} of an untrusted file, never trusts bytes other than the ones it hashed. */
#include "lib/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "sys/path.h"
#include "sys/wsroot.h"
#include "hew.h"
#include "lib/lib_store.h"
#include "lib/trust_store.h"
#include "hooks/hooks.h"
#include "mcp/config.h"

/* A project's hooks (hooks/hooks.h), as `hew trust` shows them: each hook's command. A
 * file that does not parse is one {"settings_untrusted": why}; a .claude/settings.json
 * without "hooks" needs no trust (NULL). */
static json_t *describe_hooks_text(const char *text, size_t len, const char *path,
                                   const char *key, size_t *would_start)
{
    if (key) { /* only the "hooks" of a file that holds other settings too */
        json_t *root = json_loadb(text, len, 0, NULL);
        bool has = json_object_get(root, key) != NULL;
        json_decref(root);
        if (!has && root)
            return NULL;
    }
    hooks_set *set = hooks_set_new();
    hew_err err = HEW_ERR_INIT;
    json_t *all = NULL;
    if (set && hooks_set_add_json(set, text, len, key, path, &err) != HEW_OK)
        all = json_pack("[{s:s}]", "settings_untrusted", err.msg);
    else if (set)
        all = hooks_set_describe(set);
    if (would_start)
        *would_start = json_array_size(all);
    hooks_set_free(set);
    return all;
}

static json_t *describe_hooks_file(const char *text, size_t len, const char *path,
                                   size_t *would_start)
{
    return describe_hooks_text(text, len, path, NULL, would_start);
}

static json_t *describe_claude_settings(const char *text, size_t len, const char *path,
                                        size_t *would_start)
{
    return describe_hooks_text(text, len, path, "hooks", would_start);
}

static json_t *describe_cline_hook(const char *text, size_t len, const char *path,
                                   size_t *would_start)
{
    (void)text;
    (void)len;
    const char *base = strrchr(path, '/');
    char name[128];
    snprintf(name, sizeof name, "Cline %s hook", base ? base + 1 : path);
    if (would_start)
        *would_start = 1;
    return json_pack("[{s:s, s:s}]", "name", name, "command", path);
}

/* The project files trust covers: what each can do, and how to show what it would run. */
static const struct trust_kind {
    const char *rel;
    const char *what;
    json_t *(*describe)(const char *text, size_t len, const char *path, size_t *would_start);
} TRUST_FILES[] = {
    { TRUST_MCP_FILE, "MCP servers: programs hew starts and URLs it connects to",
      trust_describe_mcp },
    { TRUST_HOOKS_FILE, "hooks: commands hew runs at points of a task", describe_hooks_file },
    { TRUST_CLAUDE_SETTINGS, "hooks (Claude Code's settings): commands hew runs at points "
      "of a task", describe_claude_settings },
#define CLINE_HOOK(name) \
    { TRUST_CLINE_HOOKS_DIR "/" name, "a Cline hook: a program hew runs at points of a task", \
      describe_cline_hook }
    CLINE_HOOK("PreToolUse"), CLINE_HOOK("PostToolUse"), CLINE_HOOK("UserPromptSubmit"),
    CLINE_HOOK("TaskStart"), CLINE_HOOK("TaskResume"), CLINE_HOOK("TaskComplete"),
    CLINE_HOOK("PreCompact"),
#undef CLINE_HOOK
};
#define TRUST_NFILES (sizeof TRUST_FILES / sizeof TRUST_FILES[0])

static const struct trust_kind *kind_of(const char *rel)
{
    for (size_t i = 0; rel && i < TRUST_NFILES; i++)
        if (strcmp(TRUST_FILES[i].rel, rel) == 0)
            return &TRUST_FILES[i];
    return NULL;
}

/* ---- one file, read once ------------------------------------------------------------- */

/* Read a regular file of at most max bytes; anything else (a FIFO a repository planted to
 * hang hew, a device) is refused without blocking: the descriptor is opened O_NONBLOCK
 * and checked before a byte is read. HEW_E_NOTFOUND when it does not exist. */
static hew_code read_regular(const char *path, size_t max, char **out, size_t *len,
                             hew_err *err)
{
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return hew_err_set(err, errno == ENOENT || errno == ENOTDIR ? HEW_E_NOTFOUND : HEW_E_IO,
                           "cannot read %s: %s", path, strerror(errno));
    struct stat st;
    hew_code rc = HEW_OK;
    if (fstat(fd, &st) != 0)
        rc = hew_err_set(err, HEW_E_IO, "cannot read %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = hew_err_set(err, HEW_E_INVALID, "%s is not a regular file — make it one, or "
                         "remove it", path);
    else if ((uintmax_t)st.st_size > (uintmax_t)max)
        rc = hew_err_set(err, HEW_E_TOOBIG, "%s is larger than %zu bytes", path, max);
    size_t cap = rc == HEW_OK ? (size_t)st.st_size + 1 : 0;
    char *data = rc == HEW_OK ? malloc(cap + 1) : NULL;
    if (rc == HEW_OK && !data)
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory reading %s", path);
    size_t used = 0;
    while (rc == HEW_OK && used < cap) {
        ssize_t n = read(fd, data + used, cap - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = hew_err_set(err, HEW_E_IO, "cannot read %s: %s", path, strerror(errno));
        else if (n == 0)
            break;
        else
            used += (size_t)n;
    }
    if (rc == HEW_OK && used == cap) /* it grew while read */
        rc = hew_err_set(err, HEW_E_IO, "%s changed while it was read — try again", path);
    close(fd);
    if (rc != HEW_OK) {
        free(data);
        return rc;
    }
    data[used] = '\0';
    *out = data;
    *len = used;
    return HEW_OK;
}

hew_code trust_read_file(const char *root, const char *rel, const char *data_dir,
                         const char *pinned, trust_read *out, hew_err *err)
{
    memset(out, 0, sizeof *out);
    out->path = path_join(root, rel);
    if (!out->path)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    hew_code rc = read_regular(out->path, MCP_CONFIG_FILE_MAX, &out->text, &out->len, err);
    if (rc == HEW_E_NOTFOUND)
        return HEW_OK;
    if (rc != HEW_OK) {
        trust_read_release(out);
        return rc;
    }
    hash_sha256_hex(out->text, out->len, out->digest);
    if (pinned && strcmp(pinned, out->digest) == 0) {
        out->trusted = true;
        return HEW_OK;
    }
    trust_store ts;
    hew_err store_err = HEW_ERR_INIT;
    if (trust_store_open(data_dir, false, &ts, &store_err) != HEW_OK) {
        snprintf(out->problem, sizeof out->problem, "%s", store_err.msg);
        return HEW_OK;
    }
    const char *known = trust_store_digest(&ts, root, rel);
    out->trusted = known && strcmp(known, out->digest) == 0;
    out->changed = known && !out->trusted;
    trust_store_close(&ts);
    return HEW_OK;
}

void trust_read_release(trust_read *r)
{
    free(r->path);
    free(r->text);
    memset(r, 0, sizeof *r);
}

/* ---- showing what a file would run ------------------------------------------------- */

/* Bytes that must not reach a terminal as they are: C0, DEL, C1 (UTF-8 C2 80..9F) and
 * the bidirectional overrides and isolates (U+202A..202E, U+2066..2069) that can make a
 * command line read as another. Returns how many bytes at p form one such character (0:
 * none). */
static size_t hostile_at(const unsigned char *p)
{
    if (*p < 0x20 || *p == 0x7f)
        return 1;
    if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        return 2;
    if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae)
        return 3;
    if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
        return 3;
    return 0;
}

/* One word as a shell would read it back: bare when it is plain, '...' when it holds
 * spaces or quotes, $'...' with \xNN escapes when it holds anything hostile_at finds. */
static void show_word(buf *b, const char *w)
{
    static const char PLAIN[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789_@%+=:,./-{}$";
    bool hostile = false;
    for (const unsigned char *p = (const unsigned char *)w; *p; p++)
        hostile = hostile || hostile_at(p);
    if (*w && strspn(w, PLAIN) == strlen(w)) {
        buf_puts(b, w);
        return;
    }
    if (!hostile) {
        buf_putc(b, '\'');
        for (const char *p = w; *p; p++)
            buf_puts(b, *p == '\'' ? "'\\''" : (char[]){ *p, 0 });
        buf_putc(b, '\'');
        return;
    }
    buf_puts(b, "$'");
    for (const unsigned char *p = (const unsigned char *)w; *p;) {
        size_t n = hostile_at(p);
        if (n) {
            for (size_t i = 0; i < n; i++)
                buf_printf(b, "\\x%02x", p[i]);
            p += n;
            continue;
        }
        if (*p == '\'' || *p == '\\')
            buf_putc(b, '\\');
        buf_putc(b, (char)*p++);
    }
    buf_putc(b, '\'');
}

static json_t *shown(char *const *argv)
{
    buf b = BUF_INIT(0);
    for (size_t i = 0; argv && argv[i]; i++) {
        if (i)
            buf_putc(&b, ' ');
        show_word(&b, argv[i]);
    }
    json_t *s = b.err ? NULL : json_string_lossy(b.data ? b.data : "", b.len);
    buf_release(&b);
    return s;
}

/* The names of "NAME<sep>value" strings, values left out, each as show_word shows it. */
static json_t *names_of(char *const *v, const char *sep)
{
    json_t *a = json_array();
    for (size_t i = 0; a && v && v[i]; i++) {
        const char *end = strstr(v[i], sep);
        char *name = strndup(v[i], end ? (size_t)(end - v[i]) : strlen(v[i]));
        char *const one[] = { name, NULL };
        json_array_append_new(a, name ? shown(one) : NULL);
        free(name);
    }
    return a;
}

static const char *transport_name(mcp_kind k)
{
    static const char *const names[] = {
        [MCP_STDIO] = "stdio", [MCP_HTTP] = "http", [MCP_SSE] = "sse", [MCP_HTTP_AUTO] = "http"
    };
    return names[k];
}

static json_t *describe_server(const mcp_server_config *sc)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:s}", "name", sc->name, "status",
                          "untrusted", "transport", transport_name(sc->kind), "disabled",
                          sc->disabled, "source", sc->source ? sc->source : "",
                          "error", "untrusted: not started (hew trust to allow)");
    if (!o)
        return NULL;
    if (sc->argv) {
        json_t *argv = json_array();
        for (size_t i = 0; argv && sc->argv[i]; i++)
            json_array_append_new(argv, json_string(sc->argv[i]));
        json_object_set_new(o, "argv", argv);
        json_object_set_new(o, "command", shown(sc->argv));
        json_object_set_new(o, "env", names_of(sc->env, "="));
    } else {
        char *const url[] = { sc->url, NULL };
        json_object_set_new(o, "url", json_string(sc->url));
        json_object_set_new(o, "url_shown", shown(url));
        json_object_set_new(o, "headers", names_of(sc->headers, ": "));
    }
    return o;
}

json_t *trust_describe_mcp(const char *text, size_t len, const char *path,
                           size_t *would_start)
{
    mcp_config cfg;
    mcp_config_init(&cfg);
    hew_err err = HEW_ERR_INIT;
    json_t *all = json_array();
    size_t n = 0;
    if (all && mcp_config_parse(&cfg, text, len, path, MCP_TRUST_NONE, &err) != HEW_OK) {
        json_array_append_new(all, json_pack("{s:s}", "settings_untrusted", err.msg));
    } else {
        for (size_t i = 0; all && i < cfg.n; i++) {
            n += !cfg.servers[i].disabled;
            json_array_append_new(all, describe_server(&cfg.servers[i]));
        }
    }
    mcp_config_free(&cfg);
    if (would_start)
        *would_start = n;
    return all;
}

char *trust_mcp_notice(const trust_read *r, const json_t *described)
{
    buf b = BUF_INIT(0);
    size_t n = 0, i;
    json_t *s;
    buf_printf(&b, "this workspace's %s %s: ", r->path,
               r->changed ? "changed since you trusted it" : "is not trusted");
    json_array_foreach(described, i, s) {
        if (json_object_get(s, "settings_untrusted"))
            continue;
        if (json_is_true(json_object_get(s, "disabled")))
            continue;
        buf_puts(&b, n++ ? ", " : "");
        buf_puts(&b, json_string_value(json_object_get(s, "name")));
    }
    if (n)
        buf_printf(&b, " (%zu server%s) %s not started", n, n == 1 ? "" : "s",
                   n == 1 ? "was" : "were");
    else
        buf_puts(&b, "its MCP servers were not started");
    buf_puts(&b, "; run `hew trust` to see what it would run and allow it, or pass --trust "
                 "to allow it for one run");
    if (r->problem[0])
        buf_printf(&b, " (the trust store: %s)", r->problem);
    char *text = b.err ? NULL : buf_detach(&b, NULL);
    buf_release(&b);
    return text;
}

/* ---- include/hew.h ------------------------------------------------------------------ */

static const char *data_dir_of(const hew_options *o)
{
    return o && o->data_dir && *o->data_dir ? o->data_dir : NULL;
}

/* The workspace root of dir (NULL: the current directory) into *root. */
static hew_code root_of(const char *dir, char **root, char *err, size_t errlen)
{
    *root = NULL;
    char here[4096];
    if (!dir)
        dir = getcwd(here, sizeof here);
    if (!dir)
        return lib_fail(HEW_E_IO, err, errlen, "the current directory cannot be read");
    hew_err e = HEW_ERR_INIT;
    *root = wsroot_find(dir, geteuid(), &e);
    if (*root)
        return HEW_OK;
    lib_set_err(err, errlen, e.msg);
    return e.code != HEW_OK ? e.code : HEW_E_NOTFOUND;
}

hew_code hew_workspace_root(const char *dir, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    return root_of(dir, out, err, errlen);
}

/* One file of the report; NULL when it does not exist (or memory ran out). */
static json_t *check_file(const struct trust_kind *k, const char *root, const char *data_dir,
                          char *problem, size_t plen, hew_code *rc, hew_err *e)
{
    trust_read r;
    *rc = trust_read_file(root, k->rel, data_dir, NULL, &r, e);
    if (*rc != HEW_OK)
        return NULL;
    if (!r.text) {
        trust_read_release(&r);
        return NULL;
    }
    if (r.problem[0])
        snprintf(problem, plen, "%s", r.problem);
    json_t *f = json_pack("{s:s, s:s, s:s, s:s, s:s}", "path", k->rel, "file", r.path, "what",
                          k->what, "sha256", r.digest, "state",
                          r.trusted ? "trusted" : r.changed ? "changed" : "untrusted");
    json_t *servers = k->describe(r.text, r.len, r.path, NULL);
    if (!servers) { /* nothing in it needs trust */
        json_decref(f);
        trust_read_release(&r);
        return NULL;
    }
    json_t *first = json_array_get(servers, 0);
    const char *bad = json_string_value(json_object_get(first, "settings_untrusted"));
    if (f && bad)
        json_object_set_new(f, "error", json_string(bad));
    size_t i;
    json_t *s;
    json_array_foreach(servers, i, s) {
        json_object_del(s, "status");
        json_object_del(s, "error");
        json_object_del(s, "source");
    }
    if (f)
        json_object_set_new(f, "servers", bad ? json_array() : json_incref(servers));
    json_decref(servers);
    trust_read_release(&r);
    return f;
}

static json_t *check_json(const hew_options *o, const char *root, hew_code *code, char *err,
                          size_t errlen)
{
    hew_err e = HEW_ERR_INIT;
    char *store_file = trust_store_path(data_dir_of(o), &e);
    json_t *rep = store_file ? json_pack("{s:s, s:s}", "root", root, "store", store_file) : NULL;
    json_t *files = json_array();
    free(store_file);
    bool all = true;
    char problem[HEW_ERR_MSG_MAX] = "";
    hew_code rc = HEW_OK;
    for (size_t i = 0; rep && files && rc == HEW_OK && i < TRUST_NFILES; i++) {
        json_t *f = check_file(&TRUST_FILES[i], root, data_dir_of(o), problem, sizeof problem,
                               &rc, &e);
        if (f) {
            all = all && strcmp(json_string_value(json_object_get(f, "state")), "trusted") == 0;
            json_array_append_new(files, f);
        }
    }
    if (!rep || !files || rc != HEW_OK) {
        lib_set_err(err, errlen, rc != HEW_OK ? e.msg : e.msg[0] ? e.msg : "out of memory");
        *code = rc != HEW_OK ? rc : e.code != HEW_OK ? e.code : HEW_E_NOMEM;
        json_decref(rep);
        json_decref(files);
        return NULL;
    }
    json_object_set_new(rep, "state", json_string(json_array_size(files) == 0 ? "none"
                                                  : all                       ? "trusted"
                                                                              : "untrusted"));
    json_object_set_new(rep, "files", files);
    if (problem[0])
        json_object_set_new(rep, "problem", json_string(problem));
    return rep;
}

/* Dump v (consumed) into *out: HEW_OK, or HEW_E_NOMEM with a message. */
static hew_code dump(json_t *v, char **out, char *err, size_t errlen)
{
    *out = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(v);
    if (!*out)
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    return HEW_OK;
}

hew_code hew_trust_check(const hew_options *o, const char *dir, char **out, char *err,
                         size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    char *root = NULL;
    hew_code rc = root_of(dir, &root, err, errlen);
    if (rc != HEW_OK)
        return rc;
    json_t *rep = check_json(o, root, &rc, err, errlen);
    free(root);
    return rep ? dump(rep, out, err, errlen) : rc;
}

/* Check one file of a report against the disk: HEW_OK, HEW_E_STALE when it changed since,
 * another code with why. */
static hew_code grant_check(const char *root, const json_t *f, const char **rel,
                            const char **digest, char *err, size_t errlen)
{
    *rel = json_string_value(json_object_get(f, "path"));
    *digest = json_string_value(json_object_get(f, "sha256"));
    if (!kind_of(*rel) || !hash_sha256_hex_ok(*digest)) {
        lib_set_err(err, errlen, "the report names a file trust does not cover, or no "
                                 "sha256 — pass what hew_trust_check returned");
        return HEW_E_INVALID;
    }
    trust_read r;
    hew_err e = HEW_ERR_INIT;
    hew_code rc = trust_read_file(root, *rel, NULL, NULL, &r, &e);
    if (rc != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
        return rc;
    }
    int same = r.text && strcmp(r.digest, *digest) == 0;
    trust_read_release(&r);
    if (!same && err && errlen)
        snprintf(err, errlen, "%s/%s changed since it was shown, so it was not trusted — "
                 "look at it again (hew trust --show) and trust what you see", root, *rel);
    return same ? HEW_OK : HEW_E_STALE;
}

hew_code hew_trust_grant(const hew_options *o, const char *report_json, char *err,
                         size_t errlen)
{
    json_t *rep = report_json ? json_loads(report_json, 0, NULL) : NULL;
    const char *root = json_string_value(json_object_get(rep, "root"));
    json_t *files = json_object_get(rep, "files");
    if (!root || root[0] != '/' || !json_is_array(files)) {
        lib_set_err(err, errlen, "not a trust report: pass what hew_trust_check returned");
        json_decref(rep);
        return HEW_E_INVALID;
    }
    size_t i;
    json_t *f;
    const char *rel, *digest;
    json_array_foreach(files, i, f) {
        hew_code bad = grant_check(root, f, &rel, &digest, err, errlen);
        if (bad != HEW_OK) {
            json_decref(rep);
            return bad;
        }
    }
    if (json_array_size(files) == 0) {
        json_decref(rep);
        return HEW_OK;
    }
    trust_store ts;
    hew_err e = HEW_ERR_INIT;
    hew_code rc = trust_store_open(data_dir_of(o), true, &ts, &e);
    json_array_foreach(files, i, f) {
        if (rc != HEW_OK)
            break;
        rc = trust_store_put(&ts, root, json_string_value(json_object_get(f, "path")),
                             json_string_value(json_object_get(f, "sha256")), &e);
    }
    if (rc == HEW_OK)
        rc = trust_store_save(&ts, &e);
    trust_store_close(&ts);
    json_decref(rep);
    if (rc != HEW_OK)
        lib_set_err(err, errlen, e.msg);
    return rc;
}

hew_code hew_trust_revoke(const hew_options *o, const char *dir, int *was_trusted, char *err,
                          size_t errlen)
{
    char *root = NULL;
    hew_code rc = root_of(dir, &root, err, errlen);
    if (rc != HEW_OK)
        return rc;
    trust_store ts;
    hew_err e = HEW_ERR_INIT;
    rc = trust_store_open(data_dir_of(o), true, &ts, &e);
    bool had = rc == HEW_OK && trust_store_drop(&ts, root);
    if (had)
        rc = trust_store_save(&ts, &e);
    trust_store_close(&ts);
    if (rc != HEW_OK)
        lib_set_err(err, errlen, e.msg);
    else if (was_trusted)
        *was_trusted = had;
    free(root);
    return rc;
}

hew_code hew_trust_list(const hew_options *o, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    trust_store ts;
    hew_err e = HEW_ERR_INIT;
    hew_code rc = trust_store_open(data_dir_of(o), false, &ts, &e);
    if (rc != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
        return rc;
    }
    json_t *list = json_array();
    const char *root;
    json_t *w;
    json_object_foreach((json_t *)trust_store_workspaces(&ts), root, w) {
        json_t *files = json_array();
        const char *rel;
        json_t *d;
        json_object_foreach(json_object_get(w, "files"), rel, d)
            json_array_append_new(files, json_pack("{s:s, s:O}", "path", rel, "sha256", d));
        json_int_t ms = json_integer_value(json_object_get(w, "trusted_ms"));
        json_array_append_new(list, json_pack("{s:s, s:I, s:o}", "root", root, "trusted_ms", ms,
                                              "files", files));
    }
    trust_store_close(&ts);
    return dump(list, out, err, errlen);
}
