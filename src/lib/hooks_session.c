/* hooks_session — loading a session's hooks: the user's, then the workspace's when trusted
 * (see hooks_session.h). Never runs a hook, never reads a project file twice (the bytes
 * judged by trust are the bytes parsed, or copied and run), never uses an untrusted one. */
#include "lib/hooks_session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/log.h"
#include "hooks/hooks.h"
#include "lib/trust.h"
#include "sys/path.h"
#include "sys/wsroot.h"
#include "task/settings.h"

/* The user's Cline folders (newer Cline reads the first, older the second). */
static hew_code add_user_cline(hooks_set *set, hew_err *err)
{
    const char *home = getenv("HOME");
    static const char *const dirs[] = { "Documents/Cline/Hooks", "Documents/Cline/Rules/Hooks" };
    for (size_t i = 0; home && *home == '/' && i < sizeof dirs / sizeof dirs[0]; i++) {
        char *dir = path_join(home, dirs[i]);
        hew_code rc = dir ? hooks_set_add_cline_dir(set, dir, err)
                          : hew_err_set(err, HEW_E_NOMEM, "out of memory");
        free(dir);
        if (rc != HEW_OK)
            return rc;
    }
    return HEW_OK;
}

/* A trusted Cline script's bytes, written 0700 into the session's private folder (made
 * on first use, 0700): what runs is what was hashed. The new path, or NULL (err). */
static char *private_copy(hew_session *s, const char *name, const trust_read *r, hew_err *err)
{
    if (!s->hooks_copies) {
        const char *tmp = getenv("TMPDIR");
        buf tmpl = BUF_INIT(0);
        buf_printf(&tmpl, "%s/hew-hooks-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
        if (tmpl.err || !mkdtemp(tmpl.data)) {
            hew_err_set(err, HEW_E_IO, "cannot make a private folder for the workspace's "
                        "Cline hooks in %s: %s", tmp && *tmp == '/' ? tmp : "/tmp",
                        strerror(errno));
            buf_release(&tmpl);
            return NULL;
        }
        s->hooks_copies = buf_detach(&tmpl, NULL);
    }
    char *path = path_join(s->hooks_copies, name);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700) : -1;
    if (fd < 0) {
        hew_err_set(err, HEW_E_IO, "cannot copy %s: %s", r->path, strerror(errno));
        free(path);
        return NULL;
    }
    hew_code rc = fs_write_all(fd, r->text, r->len, path, err);
    if (close(fd) != 0 && rc == HEW_OK)
        rc = hew_err_set(err, HEW_E_IO, "cannot copy %s: %s", r->path, strerror(errno));
    if (rc != HEW_OK) {
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

/* The workspace's hook files, each read once and judged; trusted ones added, untrusted
 * ones named in *untrusted. */
static hew_code add_project(hew_session *s, hooks_set *set, const hew_options *o,
                            buf *untrusted, hew_err *err)
{
    char *root = wsroot_find(s->settings.cwd, geteuid(), NULL);
    if (!root)
        return HEW_OK; /* no workspace root: no project hooks */
    const hooks_cline_name *cline = hooks_cline_names();
    size_t ncline = 0;
    while (cline[ncline].file)
        ncline++;
    hew_code rc = HEW_OK;
    for (size_t i = 0; rc == HEW_OK && i < 2 + ncline; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "%s", i == 0 ? TRUST_HOOKS_FILE : i == 1
                                            ? TRUST_CLAUDE_SETTINGS : TRUST_CLINE_HOOKS_DIR);
        if (i >= 2)
            snprintf(rel, sizeof rel, "%s/%s", TRUST_CLINE_HOOKS_DIR, cline[i - 2].file);
        trust_read r;
        hew_err re = HEW_ERR_INIT;
        if (trust_read_file(root, rel, s->settings.data_dir, NULL, &r, &re) != HEW_OK) {
            hew_log(HEW_LOG_WARN, "hooks", "%s", re.msg); /* unreadable: not used */
            continue;
        }
        bool trusted = r.trusted || o->trust_workspace;
        if (r.text && !trusted) {
            /* a .claude/settings.json without hooks needs no trust */
            bool relevant = true;
            if (i == 1) {
                json_t *root_v = json_loadb(r.text, r.len, 0, NULL);
                relevant = !root_v || json_object_get(root_v, "hooks");
                json_decref(root_v);
            }
            if (relevant)
                buf_printf(untrusted, "%s%s", untrusted->len ? ", " : "", rel);
        } else if (r.text && i < 2) {
            rc = hooks_set_add_json(set, r.text, r.len, i == 0 ? NULL : "hooks", r.path, err);
        } else if (r.text) {
            char *copy = private_copy(s, cline[i - 2].file, &r, err);
            rc = copy ? hooks_set_add_cline(set, cline[i - 2].file, copy, r.path, err)
                      : err->code;
            free(copy);
        }
        if (r.problem[0])
            hew_log(HEW_LOG_WARN, "trust", "%s", r.problem);
        trust_read_release(&r);
    }
    free(root);
    return rc;
}

hew_code lib_session_hooks_start(hew_session *s, const hew_options *o, hew_err *err)
{
    hooks_set *set = hooks_set_new();
    if (!set)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    hew_code rc = HEW_OK;
    if (o->hooks && *o->hooks) {
        const char *source = o->hooks_source && *o->hooks_source ? o->hooks_source
                                                                 : "hew_options.hooks";
        json_error_t je;
        json_t *v = json_loads(o->hooks, JSON_REJECT_DUPLICATES, &je);
        rc = v ? hooks_set_add_value(set, v, source, err)
               : hew_err_set(err, HEW_E_INVALID, "%s: hooks: not valid JSON: %s", source,
                             je.text);
        json_decref(v);
    }
    if (rc == HEW_OK)
        rc = add_user_cline(set, err);
    buf untrusted = BUF_INIT(4096);
    if (rc == HEW_OK)
        rc = add_project(s, set, o, &untrusted, err);
    if (rc == HEW_OK && untrusted.len) {
        buf note = BUF_INIT(0);
        buf_printf(&note, "this workspace's hooks (%s) are not trusted, so they do not run; "
                   "run `hew trust` to see what they would run and allow them, or pass "
                   "--trust to allow them for one run", untrusted.data);
        s->hooks_notice = buf_detach(&note, NULL);
        buf_release(&note);
    }
    buf_release(&untrusted);
    bool none = true;
    for (int e = 0; e < HOOKS_NEVENTS; e++)
        none = none && hooks_set_count(set, (hooks_event)e) == 0;
    if (rc != HEW_OK || none) {
        hooks_set_free(set);
        set = NULL;
    }
    s->hooks = set;
    if (rc != HEW_OK)
        lib_session_hooks_stop(s);
    return rc;
}

void lib_session_hooks_stop(hew_session *s)
{
    hooks_set_free(s->hooks);
    s->hooks = NULL;
    free(s->hooks_notice);
    s->hooks_notice = NULL;
    if (s->hooks_copies) {
        const hooks_cline_name *c = hooks_cline_names();
        for (; c->file; c++) {
            char *p = path_join(s->hooks_copies, c->file);
            if (p)
                unlink(p);
            free(p);
        }
        rmdir(s->hooks_copies);
        free(s->hooks_copies);
        s->hooks_copies = NULL;
    }
}
