/* sandbox_report — the library side of "which sandbox do commands get here?" for `hew
 * doctor`, the terminal's banner and embedders (include/hew.h: hew_sandbox_report): what
 * the machine offers, which backend the policy gets, and what it cannot enforce. It
 * prepares the sandbox to know, never runs anything, and never claims a backend that
 * could not be set up. */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/lib_store.h"
#include "sys/sandbox.h"
#include "sys/sbpolicy.h"
#include "hew.h"

hew_code hew_sandbox_report(const hew_options *o, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the report (out is NULL)");
    *out = NULL;
    hew_options d;
    if (!o) {
        hew_options_init(&d);
        o = &d;
    }
    char cwd[PATH_MAX];
    const char *dir = o->cwd ? o->cwd : getcwd(cwd, sizeof cwd);
    if (!dir)
        return lib_fail(HEW_E_NOTFOUND, err, errlen, "the workspace folder cannot be found");
    sbpolicy_opts so = {
        .mode = o->sandbox_mode,
        .backend = o->sandbox_backend,
        .cwd = dir,
        .writable_roots = o->sandbox_writable_roots,
        .hidden = o->sandbox_hidden,
        .data_dir = o->data_dir,
        .network = o->sandbox_network != 0,
    };
    sbpolicy *p = NULL;
    hew_err e = HEW_ERR_INIT;
    if (sbpolicy_new(&so, &p, &e) != HEW_OK)
        return lib_fail(e.code, err, errlen, e.msg);
    sandbox_caps caps;
    sandbox_probe(&caps);
    sandbox_mode m = sbpolicy_pick(p, false);
    const sandbox *sb = NULL;
    hew_code rc = sbpolicy_sandbox(p, m, -1, &sb, &e);
    const char *gaps = sb ? sandbox_gaps(sb) : "";
    json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:i, s:b, s:b, s:s, s:b}", "mode",
                          o->sandbox_mode ? o->sandbox_mode : SBPOLICY_AUTO, "applies",
                          sandbox_mode_name(m), "backend",
                          sandbox_backend_name(sb ? sandbox_backend_of(sb)
                                                  : SANDBOX_BACKEND_NONE),
                          "gaps", gaps ? gaps : "", "landlock_abi", caps.landlock_abi,
                          "seccomp", caps.seccomp, "userns", caps.userns, "bwrap", caps.bwrap,
                          "network", o->sandbox_network != 0);
    if (r && rc != HEW_OK)
        json_object_set_new(r, "error", json_string(e.msg));
    char *text = r ? json_dumps(r, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(r);
    sbpolicy_free(p);
    if (!text)
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    *out = text;
    return HEW_OK;
}
