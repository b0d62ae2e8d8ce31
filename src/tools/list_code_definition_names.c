/* list_code_definition_names — the definitions (functions, classes, types, methods …) of
 * the source files at the top level of a directory, found by universal-ctags run as a
 * child process through tools/proc, and shown as the first line of each definition. It
 * must never start ctags other than through proc (argv, no shell, no user ctags options
 * file), never look at more than 50 files, never show a file .clineignore blocks (nor a
 * hard link of one), and never show lines read through a symlink swapped in (they are
 * read beneath the directory's descriptor; ctags itself reads by name and only tells
 * which lines to show). */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/fsat.h"
#include "base/path.h"
#include "base/utf8.h"
#include "tools/proc.h"
#include "tools/walk.h"
#include "tools/workspace.h"

#define DEFS_FILES_MAX 50
#define DEFS_FILE_MAX ((size_t)1 << 20)   /* larger files are skipped */
#define DEFS_CTAGS_OUT_MAX ((size_t)8 << 20)
#define DEFS_TIMEOUT_MS 30000L
#define DEFS_LINE_MAX 300                  /* bytes of a definition's line shown */

static const tool_param params[] = {
    { "path", true,
      "The directory whose top-level source files to look at, relative to the current "
      "working directory.",
      "Directory path here", NULL },
};

static const char *const source_exts[] = {
    ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".py", ".rs", ".go", ".c", ".h", ".cpp",
    ".cc", ".cxx", ".hpp", ".hh", ".cs", ".rb", ".java", ".php", ".swift", ".kt", ".kts",
    ".scala", ".lua", NULL,
};

/* ctags kinds that are definitions worth listing. */
static const char *const def_kinds[] = {
    "function", "method", "class", "struct", "union", "enum", "interface", "typedef", "type",
    "trait", "implementation", "module", "namespace", "constructor", "func", "alias",
    "object", "protocol", "record", "singletonMethod", "macro", NULL,
};

static bool in_list(const char *s, const char *const *list, bool icase)
{
    for (; s && *list; list++)
        if (icase ? strcasecmp(s, *list) == 0 : strcmp(s, *list) == 0)
            return true;
    return false;
}

static bool is_source(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && in_list(dot, source_exts, true);
}

static bool is_c_family(const char *name)
{
    const char *dot = strrchr(name, '.');
    static const char *const c_exts[] = { ".c", ".h", ".cpp", ".cc", ".cxx", ".hpp", ".hh", NULL };
    return dot && in_list(dot, c_exts, true);
}

typedef struct def {
    size_t file;
    long line;
} def;

static int cmp_def(const void *a, const void *b)
{
    const def *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Should this ctags tag be listed? */
static bool wanted(json_t *tag, const char *file)
{
    const char *kind = json_string_value(json_object_get(tag, "kind"));
    const char *scope_kind = json_string_value(json_object_get(tag, "scopeKind"));
    if (!kind)
        return false;
    if (scope_kind && (strcmp(scope_kind, "function") == 0 || strcmp(scope_kind, "method") == 0))
        return false; /* local definitions */
    if (strcmp(kind, "member") == 0)
        return scope_kind && strcmp(scope_kind, "class") == 0 && !is_c_family(file);
    if (strcmp(kind, "macro") == 0)
        return false; /* too many in C headers to be useful */
    return in_list(kind, def_kinds, false);
}

/* Append line `line` (1-based) of file text, trimmed at the end and cut. */
static void put_line(buf *out, const char *text, size_t len, long line)
{
    const char *p = text, *end = text + len;
    for (long l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    buf_puts(out, "\xe2\x94\x82"); /* │ */
    utf8_sanitize(p, utf8_cut(p, n, DEFS_LINE_MAX), out);
    buf_putc(out, '\n');
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *path = tool_call_param(call, "path");
    ws_path wp = WS_PATH_INIT;
    ignore *ig = NULL;
    walk_ent *ents = NULL;
    size_t nents = 0;
    int dfd = -1;
    ws_links *links = NULL;
    char *names[DEFS_FILES_MAX];
    size_t nfiles = 0;
    def *defs = NULL;
    size_t ndefs = 0, capdefs = 0;
    buf ctags_out = BUF_INIT(DEFS_CTAGS_OUT_MAX);
    buf text = BUF_INIT((size_t)1 << 20);
    json_t *data = NULL;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = HEW_OK;

    if (!path || !*path)
        path = ".";
    if (ws_target(env, path, true, "Cannot look at", &wp, &ig, out) != WS_TARGET_OK)
        goto done;
    struct stat dst;
    if (ws_stat(env->cwd, &wp, &dst, &err) == HEW_OK && !S_ISDIR(dst.st_mode)) {
        ws_error_result(env, out, "The path is a file: give the directory that holds it.");
        goto done;
    }
    /* The directory and its files are opened beneath the root without following a
     * symlink; what is shown comes from those reads (ctags only says which lines). */
    if (walk_open_dir(wp.outside ? NULL : env->cwd, wp.outside ? NULL : wp.rel, wp.abs, &dfd,
                      &err) != HEW_OK ||
        walk_readdir_fd(dfd, wp.rel, &ents, &nents, &err) != HEW_OK) {
        ws_error_result(env, out, "%s", err.msg);
        goto done;
    }
    links = ws_links_new(env->cwd, ig); /* hard links of ignored files are left out */
    for (size_t i = 0; i < nents && nfiles < DEFS_FILES_MAX; i++) {
        if (ents[i].kind != WALK_FILE || !is_source(ents[i].name))
            continue;
        buf rel = BUF_INIT(0);
        if (strcmp(wp.rel, ".") != 0)
            buf_printf(&rel, "%s/", wp.rel);
        buf_puts(&rel, ents[i].name);
        bool blocked = !wp.outside && rel.data && ignore_match(ig, rel.data, false);
        buf_release(&rel);
        if (blocked)
            continue;
        struct stat st;
        bool ok = fstatat(dfd, ents[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                  S_ISREG(st.st_mode) && (size_t)st.st_size <= DEFS_FILE_MAX &&
                  ws_links_check(links, &st) == WS_LINK_OK;
        if (ok)
            names[nfiles++] = ents[i].name;
    }

    if (nfiles > 0) {
        /* ctags --options=NONE … ./name … (the "./" keeps a name from reading as an option). */
        const char **argv = calloc(nfiles + 10, sizeof *argv);
        char **dotted = calloc(nfiles, sizeof *dotted);
        size_t a = 0;
        if (!argv || !dotted) {
            free(argv);
            free(dotted);
            ws_error_result(env, out, "out of memory");
            goto done;
        }
        argv[a++] = "ctags";
        argv[a++] = "--options=NONE";
        argv[a++] = "--output-format=json";
        argv[a++] = "--fields=+nKZ";
        argv[a++] = "--sort=no";
        argv[a++] = "-f";
        argv[a++] = "-";
        for (size_t i = 0; i < nfiles; i++) {
            dotted[i] = path_join(".", names[i]);
            argv[a++] = dotted[i] ? dotted[i] : names[i];
        }
        argv[a] = NULL;
        proc_opts po = {
            .argv = argv,
            .cwd = wp.abs,
            .separate_stderr = true,
            .timeout_ms = DEFS_TIMEOUT_MS,
            .abort = env->abort,
        };
        proc_status st;
        bool cut = false;
        hew_code prc = proc_run(&po, &ctags_out, &cut, &st, &err);
        for (size_t i = 0; i < nfiles; i++)
            free(dotted[i]);
        free(dotted);
        free(argv);
        if (prc != HEW_OK) {
            ws_error_result(env, out, "Cannot run universal-ctags, which this tool needs (the "
                                      "Debian package universal-ctags): %s", err.msg);
            goto done;
        }
        if (st.end == PROC_ABORTED) {
            rc = HEW_E_ABORTED;
            goto done;
        }
        if (st.end != PROC_EXITED || st.exit_code != 0) {
            ws_error_result(env, out, "universal-ctags failed on %s (%s).", wp.rel,
                            st.end == PROC_TIMED_OUT ? "it took too long" : "it exited with an error");
            goto done;
        }
        /* One JSON object per line. */
        const char *p = ctags_out.data ? ctags_out.data : "", *end = p + ctags_out.len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
            json_t *tag = json_loadb(p, n, 0, NULL);
            p = nl ? nl + 1 : end;
            const char *tpath = tag ? json_string_value(json_object_get(tag, "path")) : NULL;
            json_int_t line = tag ? json_integer_value(json_object_get(tag, "line")) : 0;
            if (tpath && line > 0 && wanted(tag, tpath)) {
                if (tpath[0] == '.' && tpath[1] == '/')
                    tpath += 2;
                for (size_t i = 0; i < nfiles; i++) {
                    if (strcmp(names[i], tpath) != 0)
                        continue;
                    if (ndefs == capdefs) {
                        size_t ncap = capdefs ? capdefs * 2 : 64;
                        def *nd = realloc(defs, ncap * sizeof *nd);
                        if (!nd)
                            break;
                        defs = nd;
                        capdefs = ncap;
                    }
                    defs[ndefs++] = (def){ i, (long)line };
                    break;
                }
            }
            json_decref(tag);
        }
    }
    if (ndefs > 1)
        qsort(defs, ndefs, sizeof *defs, cmp_def);

    /* relpath, then "|----" and "│line" per definition. */
    for (size_t k = 0; k < ndefs;) {
        size_t f = defs[k].file;
        char *src = NULL;
        size_t slen = 0;
        int ffd = -1;
        struct stat fst;
        bool read = fsat_open_file(dfd, names[f], &ffd, &fst, NULL) == HEW_OK && ffd >= 0 &&
                    fs_read_fd(ffd, names[f], DEFS_FILE_MAX, &src, &slen, NULL) == HEW_OK;
        if (ffd >= 0)
            close(ffd);
        if (read) {
            if (strcmp(wp.rel, ".") != 0)
                buf_printf(&text, "%s/", wp.rel);
            buf_printf(&text, "%s\n", names[f]);
            long last = -1;
            for (; k < ndefs && defs[k].file == f; k++) {
                if (defs[k].line == last)
                    continue;
                buf_puts(&text, "|----\n");
                put_line(&text, src, slen, defs[k].line);
                last = defs[k].line;
            }
            buf_puts(&text, "|----\n\n");
        } else {
            while (k < ndefs && defs[k].file == f)
                k++;
        }
        free(src);
    }
    while (text.len && text.data[text.len - 1] == '\n')
        buf_truncate(&text, text.len - 1);
    if (text.len == 0)
        buf_puts(&text, "No source code definitions found.");

    data = ws_tool_data("listCodeDefinitionNames", wp.rel);
    ws_data_put(data, "content", text.data);
    bool approved = false;
    rc = ws_approve(env, "read", wp.outside, data, NULL, out, &approved);
    if (rc != HEW_OK || !approved)
        goto done;
    buf_append(&out->text, text.data, text.len);
    env->mistake(env, false);

done:
    json_decref(data);
    free(defs);
    buf_release(&ctags_out);
    buf_release(&text);
    walk_ents_free(ents, nents);
    if (dfd >= 0)
        close(dfd);
    ws_links_free(links);
    ignore_free(ig);
    ws_path_release(&wp);
    return rc;
}

const tool_def tool_list_code_definition_names = {
    .name = "list_code_definition_names",
    .description =
        "List the definitions (classes, functions, methods, types …) in the source files "
        "at the top level of a directory, one line each. Use it to get an overview of "
        "code before reading files.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY,
    .run = run,
};
