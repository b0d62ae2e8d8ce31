/* lib_api — the contract of include/hew.h, call by call: every code has a name and a
 * meaning (hew_strerror, hew_code_name); a call that fails returns the code that says why,
 * with a message in err and its pointer out-parameter NULL; the distinctions a caller needs
 * (a server added or replaced, a workspace trusted or not, an HTTP status) come back as
 * out-parameters, never as -1 / 1 / -2 in place of a code; the version calls agree with
 * the header. Each check here failed on the old API (it returned -1, 0/1 or a pointer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hew.h"
#include "hew_debug.h"
#include "tmpdir.h"

static char *dir; /* scratch: workspace, data dir, settings files */

static char *in_dir(const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_codes(void)
{
    /* Every code has its own stable name and a meaning; outside the enum, a clear word. */
    for (int c = 0; c < HEW_CODE_COUNT; c++) {
        const char *name = hew_code_name((hew_code)c);
        CHECK(strcmp(name, "unknown") != 0);
        CHECK(strcmp(hew_strerror((hew_code)c), "unknown error code") != 0);
        for (int d = 0; d < c; d++)
            CHECK(strcmp(name, hew_code_name((hew_code)d)) != 0);
    }
    CHECK_STR(hew_code_name(HEW_OK), "ok");
    CHECK_STR(hew_code_name(HEW_E_TIMEOUT), "timeout");
    CHECK_STR(hew_code_name(HEW_E_BUSY), "busy");
    CHECK_STR(hew_code_name(HEW_E_STALE), "stale");
    CHECK_STR(hew_code_name(HEW_E_UNSUPPORTED), "unsupported");
    CHECK_STR(hew_strerror(HEW_E_NOMEM), "out of memory");
    CHECK_STR(hew_code_name((hew_code)HEW_CODE_COUNT), "unknown");
    CHECK_STR(hew_strerror((hew_code)-1), "unknown error code");
    CHECK_INT(HEW_OK, 0);
}

static void test_version(void)
{
    CHECK_STR(hew_version(), HEW_VERSION);
    CHECK_INT(hew_version_number(), HEW_VERSION_NUMBER);
    CHECK_INT(HEW_VERSION_NUMBER,
              HEW_VERSION_MAJOR * 1000000 + HEW_VERSION_MINOR * 1000 + HEW_VERSION_PATCH);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", HEW_VERSION_MAJOR, HEW_VERSION_MINOR,
             HEW_VERSION_PATCH);
    CHECK_STR(HEW_VERSION, want);
    hew_free(NULL); /* a no-op */
}

static void base_options(hew_options *o, const char *data)
{
    hew_options_init(o);
    o->provider = "anthropic";
    o->model = "claude-api-test";
    o->api_key = "api-test-key";
    o->base_url = "http://127.0.0.1:1";
    o->cwd = dir;
    o->data_dir = data;
    o->mcp = 0;
}

static hew_code fio_read(void *ud, const char *path, hew_file_put_fn put, void *sink,
                         char *err, size_t errlen)
{
    (void)ud, (void)path, (void)put, (void)sink, (void)err, (void)errlen;
    return HEW_E_IO;
}

/* Whether a model reads images (the lists of models: unit/lib_model_json). */
static void test_models(void)
{
    hew_options o;
    hew_options_init(&o);
    o.model = "claude-sonnet-4-5";
    CHECK_INT(hew_options_images_supported(&o), 1);
    o.model = "deepseek-chat";
    o.provider = "deepseek";
    CHECK_INT(hew_options_images_supported(&o), 0);
    o.model_info = "{\"images\": true}";
    CHECK_INT(hew_options_images_supported(&o), 1);
}

static void test_session_and_task(void)
{
    char *data = in_dir("data");
    hew_options o;
    base_options(&o, data);
    char err[512] = "";
    hew_session *s = (hew_session *)&o; /* must be set to NULL on failure */
    o.provider = "no-such-provider";
    CHECK_INT(hew_session_new(&o, &s, err, sizeof err), HEW_E_INVALID);
    CHECK(s == NULL);
    CHECK(strstr(err, "no-such-provider") != NULL);
    o.provider = "anthropic";
    o.cwd = "/no/such/workspace/here";
    err[0] = '\0';
    CHECK_INT(hew_session_new(&o, &s, err, sizeof err), HEW_E_NOTFOUND);
    CHECK(s == NULL && err[0]);
    o.cwd = dir;
    o.model_info = "{\"context_window\": \"big\"}";
    CHECK_INT(hew_session_new(&o, &s, err, sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "context_window") != NULL);
    o.model_info = NULL;
    hew_file_io half = { fio_read, NULL, NULL }; /* file access needs both hooks */
    o.file_io = &half;
    CHECK_INT(hew_session_new(&o, &s, err, sizeof err), HEW_E_INVALID);
    CHECK(s == NULL && strstr(err, "file_io") != NULL);
    o.file_io = NULL;
    hew_cmd_runner part = { NULL }; /* a command runner needs all four hooks */
    o.cmd_runner = &part;
    s = (hew_session *)&o;
    CHECK_INT(hew_session_new(&o, &s, err, sizeof err), HEW_E_INVALID);
    CHECK(s == NULL && strstr(err, "cmd_runner") != NULL);
    o.cmd_runner = NULL;
    s = (hew_session *)&o;
    CHECK_INT(hew_session_new(NULL, &s, err, sizeof err), HEW_E_INVALID);
    CHECK(s == NULL);

    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK && s);
    hew_task *t = (hew_task *)s;
    CHECK_INT(hew_task_start(s, "", &t, err, sizeof err), HEW_E_INVALID);
    CHECK(t == NULL && strstr(err, "no task text") != NULL);
    CHECK_INT(hew_task_resume(s, "", &t, err, sizeof err), HEW_E_INVALID);
    CHECK(t == NULL);
    CHECK_INT(hew_task_respond(NULL, HEW_ANSWER_YES, NULL), HEW_E_INVALID);
    CHECK_INT(hew_task_set_mode(NULL, "plan"), HEW_E_INVALID);
    char *st = NULL;
    CHECK_INT(hew_mcp_status_json(s, &st), HEW_OK);
    CHECK_STR(st, "[]");
    hew_free(st);
    CHECK_INT(hew_mcp_wait(s, 10), HEW_OK); /* no servers: none is connecting */
    CHECK_INT(hew_mcp_reload(s, err, sizeof err), HEW_E_STATE);
    CHECK(strstr(err, "turned off") != NULL);
    hew_session_free(s);

    /* persist off: resuming is refused as not possible in this state */
    o.persist = 0;
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    CHECK_INT(hew_task_resume(s, "1234", &t, err, sizeof err), HEW_E_STATE);
    CHECK(t == NULL && strstr(err, "persist") != NULL);
    hew_session_free(s);
    free(data);
}

static void test_history(void)
{
    char *data = in_dir("hist");
    hew_options o;
    base_options(&o, data);
    char err[512] = "";
    char *out = (char *)&o;
    CHECK_INT(hew_history_task_json(&o, "no-such-task", 0, &out, err, sizeof err),
              HEW_E_NOTFOUND);
    CHECK(out == NULL && strstr(err, "no task 'no-such-task'") != NULL);
    CHECK_INT(hew_history_delete(&o, "no-such-task", err, sizeof err), HEW_E_NOTFOUND);
    CHECK_INT(hew_history_delete(&o, "", err, sizeof err), HEW_E_INVALID);
    out = (char *)&o;
    CHECK_INT(hew_history_latest(&o, dir, &out, err, sizeof err), HEW_E_NOTFOUND);
    CHECK(out == NULL && strstr(err, "no stored task") != NULL);
    CHECK_INT(hew_history_json(&o, NULL, NULL, 0, &out, err, sizeof err), HEW_OK);
    CHECK_STR(out, "[]");
    hew_free(out);
    CHECK_INT(hew_checkpoints_json(&o, "no-such-task", &out, err, sizeof err), HEW_E_NOTFOUND);
    CHECK(out == NULL);
    CHECK_INT(hew_checkpoint_restore(&o, "x", "1", "everything", &out, err, sizeof err),
              HEW_E_INVALID);
    CHECK(strstr(err, "say files, task or both") != NULL);
    CHECK_INT(hew_history_json(&o, NULL, NULL, 0, NULL, err, sizeof err), HEW_E_INVALID);
    free(data);
}

static void test_checks(void)
{
    char detail[1024] = "";
    /* The store: fine; a data dir that cannot be made (a file is in the way); damaged. */
    char *data = in_dir("store");
    hew_options o;
    base_options(&o, data);
    CHECK_INT(hew_check_store(&o, detail, sizeof detail), HEW_OK);
    CHECK(strstr(detail, "quick_check ok") != NULL);
    char *blocker = in_dir("blocker");
    write_file(blocker, "a file, not a folder");
    char *below = in_dir("blocker/data");
    o.data_dir = below;
    CHECK_INT(hew_check_store(&o, detail, sizeof detail), HEW_E_IO);
    char *bad = in_dir("bad");
    mkdir(bad, 0700);
    char *db = in_dir("bad/hew.db");
    write_file(db, "this is not a SQLite database, not even close to one........");
    o.data_dir = bad;
    CHECK_INT(hew_check_store(&o, detail, sizeof detail), HEW_E_CORRUPT);
    CHECK(strstr(detail, "hew.db") != NULL);

    /* The provider: unknown (no usable provider); not reachable (nothing listens). */
    long status = 12345;
    base_options(&o, data);
    o.provider = "no-such-provider";
    CHECK_INT(hew_probe_provider(&o, &status, detail, sizeof detail), HEW_E_INVALID);
    CHECK_INT(status, 0);
    o.provider = "anthropic";
    hew_code rc = hew_probe_provider(&o, &status, detail, sizeof detail);
    CHECK(rc == HEW_E_NET || rc == HEW_E_TIMEOUT);
    CHECK_INT(status, 0);

    char v[256] = "";
    CHECK_INT(hew_program_version("sh-no-such-program-hew-test", v, sizeof v), HEW_E_NOTFOUND);
    CHECK(v[0]);
    CHECK_INT(hew_program_version("git", v, sizeof v), HEW_OK);
    CHECK(strncmp(v, "git version", 11) == 0);

    char path[256];
    CHECK_INT(hew_log_path(path, sizeof path), HEW_E_STATE); /* never enabled here */
    char err[512] = "";
    CHECK_INT(hew_model_info_check("{\"images\": 3}", err, sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "images") != NULL);
    CHECK_INT(hew_model_info_check("{\"images\": true}", err, sizeof err), HEW_OK);
    free(db);
    free(bad);
    free(below);
    free(blocker);
    free(data);
}

static void test_mcp_settings(void)
{
    char *file = in_dir("mcp.json");
    char err[512] = "";
    int replaced = -1;
    CHECK_INT(hew_mcp_settings_put(file, "one", "{\"command\": \"true\"}", &replaced, err,
                                   sizeof err),
              HEW_OK);
    CHECK_INT(replaced, 0);
    CHECK_INT(hew_mcp_settings_put(file, "one", "{\"command\": \"false\"}", &replaced, err,
                                   sizeof err),
              HEW_OK);
    CHECK_INT(replaced, 1);
    CHECK_INT(hew_mcp_settings_put(file, "two", "{\"command\": 42}", &replaced, err,
                                   sizeof err),
              HEW_E_INVALID);
    CHECK(strstr(err, "command") != NULL);
    CHECK_INT(hew_mcp_settings_remove(file, "two", err, sizeof err), HEW_E_NOTFOUND);
    CHECK(strstr(err, "two") != NULL);
    CHECK_INT(hew_mcp_settings_remove(file, "one", err, sizeof err), HEW_OK);
    char *out = (char *)file;
    char *missing = in_dir("no-such.json");
    CHECK_INT(hew_mcp_settings_servers(missing, &out, err, sizeof err), HEW_E_NOTFOUND);
    CHECK(out == NULL);
    CHECK_INT(hew_mcp_settings_servers(file, &out, err, sizeof err), HEW_OK);
    CHECK_STR(out, "[]");
    hew_free(out);
    free(missing);
    free(file);
}

static void test_trust(void)
{
    char *data = in_dir("trustdata");
    hew_options o;
    base_options(&o, data);
    char err[512] = "";
    int was = -1;
    CHECK_INT(hew_trust_revoke(&o, dir, &was, err, sizeof err), HEW_OK);
    CHECK_INT(was, 0); /* not trusted: nothing to forget, and no error */
    char *root = (char *)data;
    CHECK_INT(hew_workspace_root("/no/such/dir/hew", &root, err, sizeof err), HEW_E_NOTFOUND);
    CHECK(root == NULL && err[0]);
    CHECK_INT(hew_trust_grant(&o, "[]", err, sizeof err), HEW_E_INVALID);
    char *list = NULL;
    CHECK_INT(hew_trust_list(&o, &list, err, sizeof err), HEW_OK);
    CHECK_STR(list, "[]");
    hew_free(list);
    free(data);
}

/* The lookups of a front end's completion: the model table's names, .clineignore, the
 * prompt layer's commands. */
static void test_lookups(void)
{
    size_t n = hew_model_names(NULL, 0);
    CHECK(n > 10);
    const char *names[512];
    REQUIRE(n <= 512);
    CHECK_INT(hew_model_names(names, n), n);
    int sonnet = 0;
    for (size_t i = 0; i < n; i++)
        sonnet |= strcmp(names[i], "claude-sonnet-4-5") == 0;
    CHECK(sonnet);
    char err[512] = "";
    int ig = -1;
    CHECK_INT(hew_path_ignored(dir, NULL, &ig, err, sizeof err), HEW_E_INVALID);
    CHECK(err[0]);
    CHECK_INT(hew_path_ignored(dir, "a.c", NULL, err, sizeof err), HEW_E_INVALID);
    CHECK_INT(hew_path_ignored(dir, ".clineignore", &ig, err, sizeof err), HEW_OK);
    CHECK_INT(ig, 1); /* the file itself is always ignored */
    CHECK_INT(hew_path_ignored(dir, "a.c", &ig, err, sizeof err), HEW_OK);
    CHECK_INT(ig, 0);
    CHECK_INT(hew_slash_known(dir, "newtask"), 1);
    CHECK_INT(hew_slash_known(dir, "smol"), 1);
    CHECK_INT(hew_slash_known(dir, "hlep-no-such-workflow"), 0);
    CHECK_INT(hew_slash_known(dir, "../etc"), 0);
    CHECK_INT(hew_slash_known(dir, ""), 0);
}

static void test_debug(void)
{
    char err[512] = "";
    char *out = (char *)err;
    CHECK_INT(hew_debug_decode("morse", 200, NULL, "", 0, &out, err, sizeof err),
              HEW_E_INVALID);
    CHECK(out == NULL && strstr(err, "unknown protocol 'morse'") != NULL);
    CHECK_INT(hew_debug_parse("hello", 5, NULL, 0, &out, err, sizeof err), HEW_OK);
    CHECK(out && strstr(out, "\"hello\""));
    hew_free(out);
    long status = -1;
    CHECK_INT(hew_debug_post_sse("http://127.0.0.1:1/x", NULL, "{}", NULL, NULL, &status, err,
                                 sizeof err),
              HEW_E_NET);
}

int main(void)
{
    dir = tmpdir_make("api");
    if (!dir)
        return 1;
    RUN(test_codes);
    RUN(test_version);
    RUN(test_session_and_task);
    RUN(test_models);
    RUN(test_history);
    RUN(test_checks);
    RUN(test_mcp_settings);
    RUN(test_trust);
    RUN(test_lookups);
    RUN(test_debug);
    tmpdir_remove(dir);
    free(dir);
    return check_report();
}
