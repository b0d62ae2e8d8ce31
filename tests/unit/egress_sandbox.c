/* End-to-end test of the host allow list: a sandboxed curl (sys/sandbox.h, network off,
 * the egress proxy's port allowed) started through sys/proc with egress_child_env's
 * variables reaches an allowed origin through the proxy, by name (the proxy resolves it:
 * the child has no DNS to use); a host not listed is refused with 403 and heard by the
 * callback; a direct connection to another port — or to the origin itself, bypassing the
 * proxy — fails and never reaches the listener; and without the proxy's port in the
 * policy the same allowed request fails (so it is the proxy rule that lets it through).
 * The same requests succeed unconfined. Needs the landlock backend with Landlock ABI 4
 * (network rules) and the curl program: exits 77 (ctest: skipped), saying which is
 * missing, where the machine lacks them. The bwrap backend cannot offer the proxy (see
 * sandbox_bwrap.c), and that refusal is checked too where bwrap exists. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "net/egress.h"
#include "origin.h"
#include "sys/proc.h"
#include "sys/sandbox.h"
#include "tmpdir.h"

static char *ws, *tmp;

typedef struct seen {
    pthread_mutex_t mu;
    int allowed, blocked;
    char last_blocked[300];
} seen;

static void on_decision(void *ud, const egress_decision *d)
{
    seen *s = ud;
    pthread_mutex_lock(&s->mu);
    if (d->allowed) {
        s->allowed++;
    } else {
        s->blocked++;
        snprintf(s->last_blocked, sizeof s->last_blocked, "%s", d->host);
    }
    pthread_mutex_unlock(&s->mu);
}

static hew_code prepare(sandbox_backend backend, int proxy_port, sandbox **out, hew_err *e)
{
    const char *writable[] = { ws, tmp, NULL };
    const char *none[] = { NULL };
    sandbox_policy pol = { 0 };
    pol.mode = SANDBOX_WORKSPACE_WRITE;
    pol.backend = backend;
    pol.writable_roots = writable;
    pol.readonly_paths = none;
    pol.hidden_paths = none;
    pol.network = false;
    pol.proxy_port = proxy_port;
    return sandbox_prepare(&pol, out, e);
}

/* curl args... under sb (NULL: unconfined) with the proxy's variables (eg NULL: none):
 * its exit code (-100: did not start), output in out. */
static int curl(const sandbox *sb, const egress *eg, const char *a1, const char *a2,
                buf *out)
{
    proc_env env = PROC_ENV_INIT;
    proc_env_for_command(&env, NULL);
    static const char *const proxy_vars[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                              "http_proxy", "https_proxy", "all_proxy" };
    for (size_t i = 0; i < sizeof proxy_vars / sizeof *proxy_vars; i++)
        proc_env_unset(&env, proxy_vars[i]);
    if (eg)
        egress_child_env(eg, &env);
    const char *argv[] = { "curl", "-sS", "--max-time", "60", a1, a2, NULL };
    proc_opts o = { 0 };
    o.argv = argv;
    o.cwd = ws;
    o.envp = proc_env_list(&env);
    o.sandbox = sb;
    o.timeout_ms = 90000; /* a safety net only */
    proc_status st;
    hew_err err = HEW_ERR_INIT;
    buf_reset(out);
    hew_code rc = proc_run(&o, out, NULL, &st, &err);
    proc_env_release(&env);
    if (rc != HEW_OK) {
        buf_puts(out, err.msg);
        return -100;
    }
    return st.end == PROC_EXITED ? st.exit_code : -1;
}

#define OUT(b) ((b).data ? (b).data : "")

static void test_landlock_proxy_only(void)
{
    origin o, other;
    origin_start(&o, ORIGIN_HTTP);
    origin_start(&other, ORIGIN_HTTP);
    char allow[64], url[128], direct_other[128], direct_origin[128];
    snprintf(allow, sizeof allow, "localhost:%d", o.port);
    egress *eg = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(egress_start((const char *const[]){ allow, NULL }, &eg, &err) == HEW_OK);
    seen s = { PTHREAD_MUTEX_INITIALIZER, 0, 0, "" };
    egress_set_on_decision(eg, on_decision, &s);
    sandbox *sb = NULL;
    if (prepare(SANDBOX_BACKEND_LANDLOCK, egress_port(eg), &sb, &err) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "prepare: %s", err.msg);
        egress_free(eg);
        origin_stop(&o);
        origin_stop(&other);
        return;
    }
    CHECK_INT(sandbox_backend_of(sb), SANDBOX_BACKEND_LANDLOCK);
    buf out = BUF_INIT(1 << 20);
    snprintf(url, sizeof url, "http://localhost:%d/allowed", o.port);
    snprintf(direct_other, sizeof direct_other, "http://127.0.0.1:%d/", other.port);
    snprintf(direct_origin, sizeof direct_origin, "http://127.0.0.1:%d/", o.port);

    /* the allowed origin, through the proxy, by name */
    int code = curl(sb, eg, url, NULL, &out);
    if (code != 0 || strcmp(OUT(out), ORIGIN_BODY) != 0)
        check_fail(__FILE__, __LINE__, "allowed request failed (%d): %s", code, OUT(out));
    check_count++;
    CHECK_INT(origin_accepts(&o), 1);

    /* not listed: the proxy refuses it (HTTPS: exit 56 on the CONNECT's 403) */
    CHECK_INT(curl(sb, eg, "https://blocked.invalid/", NULL, &out), 56);

    /* around the proxy: another port, and the origin's own port — no connection */
    int direct1 = curl(sb, NULL, direct_other, NULL, &out);
    int direct2 = curl(sb, NULL, direct_origin, NULL, &out);
    if (direct1 == 0 || direct2 == 0)
        check_fail(__FILE__, __LINE__, "a direct connection got out: %d %d", direct1, direct2);
    check_count++;
    CHECK_INT(origin_accepts(&other), 0);
    CHECK_INT(origin_accepts(&o), 1);
    buf why = BUF_INIT(4096);
    CHECK(sandbox_explain(sb, OUT(out), out.len, direct2, &why));
    buf_release(&why);

    /* unconfined, the same direct requests work (the listeners are really there) */
    CHECK_INT(curl(NULL, NULL, direct_other, NULL, &out), 0);
    CHECK_INT(curl(NULL, NULL, direct_origin, NULL, &out), 0);
    CHECK_INT(origin_accepts(&other), 1);

    /* the decisions: one allowed, one blocked, named */
    egress_set_on_decision(eg, NULL, NULL);
    CHECK_INT(s.allowed, 1);
    CHECK_INT(s.blocked, 1);
    CHECK_STR(s.last_blocked, "blocked.invalid");

    /* without the proxy's port in the policy, the allowed request cannot get out */
    sandbox *closed = NULL;
    int before = origin_accepts(&o);
    REQUIRE(prepare(SANDBOX_BACKEND_LANDLOCK, 0, &closed, &err) == HEW_OK);
    code = curl(closed, eg, url, NULL, &out);
    if (code == 0)
        check_fail(__FILE__, __LINE__, "reached the proxy with its port closed: %s", OUT(out));
    check_count++;
    CHECK_INT(origin_accepts(&o), before);
    sandbox_free(closed);

    buf_release(&out);
    sandbox_free(sb);
    egress_free(eg);
    origin_stop(&o);
    origin_stop(&other);
}

static void test_bwrap_refuses_the_proxy(void)
{
    /* bubblewrap's new network namespace has no way to the proxy: preparing must fail,
     * saying so, rather than run a command that cannot reach the allowed hosts */
    sandbox *sb = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(prepare(SANDBOX_BACKEND_BWRAP, 40000, &sb, &err), HEW_E_UNSUPPORTED);
    CHECK(sb == NULL);
    CHECK(strstr(err.msg, "proxy") != NULL);
}

static bool have_curl(void)
{
    return access("/usr/bin/curl", X_OK) == 0 || access("/usr/local/bin/curl", X_OK) == 0 ||
           access("/bin/curl", X_OK) == 0;
}

int main(void)
{
    sandbox_caps caps;
    sandbox_probe(&caps);
    printf("sandbox caps: landlock ABI %d, seccomp %s, bwrap %s\n", caps.landlock_abi,
           caps.seccomp ? "yes" : "no", caps.bwrap[0] ? caps.bwrap : "none");
    if (!have_curl()) {
        printf("SKIP: egress_sandbox needs the curl program (Debian package curl)\n");
        return 77;
    }
    ws = tmpdir_make("egws");
    tmp = tmpdir_make("egtmp");
    if (!ws || !tmp)
        return 1;
    int tested = 0;
    if (caps.bwrap[0]) {
        RUN(test_bwrap_refuses_the_proxy);
        tested++;
    } else {
        printf("SKIP: backend bwrap: not installed here\n");
    }
    if (caps.landlock_abi >= 4) {
        RUN(test_landlock_proxy_only);
        tested++;
    } else {
        printf("SKIP: backend landlock: the proxy needs Landlock ABI 4 (Linux 6.7), this "
               "kernel has %d\n",
               caps.landlock_abi);
    }
    tmpdir_remove(ws);
    tmpdir_remove(tmp);
    free(ws);
    free(tmp);
    if (!tested) {
        printf("SKIP: no sandbox backend on this machine\n");
        return 77;
    }
    return check_report();
}
