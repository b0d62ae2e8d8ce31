/* Tests for net/egress with a real client: the curl program, started through sys/proc
 * with the environment egress_child_env gives it (the way execute_command will), finds
 * the proxy by itself, reaches an allowed origin by name through it, and is refused a
 * host that is not listed — with the refusal readable by the model (the 403 body names
 * the host and sandbox.allow_hosts) and heard by hew (the decision callback). Skipped,
 * saying so (exit 77, ctest's skip), where curl is not installed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "net/egress.h"
#include "origin.h"
#include "sys/proc.h"

/* ---- decisions ------------------------------------------------------------------------- */

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

static bool have_curl(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char *dup = strdup(path), *save = NULL;
    bool found = false;
    for (char *d = strtok_r(dup, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char p[4096];
        snprintf(p, sizeof p, "%s/curl", d);
        found = access(p, X_OK) == 0;
    }
    free(dup);
    return found;
}

/* Run curl with argv's URL under the proxy's environment: its exit code, output in out. */
static int run_curl(egress *e, const char *url, buf *out)
{
    proc_env env = PROC_ENV_INIT;
    proc_env_for_command(&env, NULL);
    egress_child_env(e, &env);
    const char *argv[] = { "curl", "-sS", "--max-time", "60", url, NULL };
    proc_opts o = { 0 };
    o.argv = argv;
    o.envp = proc_env_list(&env);
    o.timeout_ms = 90000;
    proc_status st;
    hew_err err = HEW_ERR_INIT;
    buf_reset(out);
    hew_code rc = proc_run(&o, out, NULL, &st, &err);
    proc_env_release(&env);
    if (rc != HEW_OK) {
        check_fail(__FILE__, __LINE__, "curl: %s", err.msg);
        return -1;
    }
    return st.end == PROC_EXITED ? st.exit_code : -1;
}

static void test_curl_through_the_proxy(void)
{
    origin o;
    origin_start(&o, ORIGIN_HTTP);
    char allow[64], url[128];
    snprintf(allow, sizeof allow, "localhost:%d", o.port);
    egress *e = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(egress_start((const char *const[]){ allow, NULL }, &e, &err) == HEW_OK);
    seen s = { PTHREAD_MUTEX_INITIALIZER, 0, 0, "" };
    egress_set_on_decision(e, on_decision, &s);
    buf out = BUF_INIT(1 << 20);

    /* allowed, by name: curl goes through the proxy (which resolves localhost) */
    snprintf(url, sizeof url, "http://localhost:%d/x", o.port);
    CHECK_INT(run_curl(e, url, &out), 0);
    CHECK(out.data && strcmp(out.data, ORIGIN_BODY) == 0);

    /* not listed, plain HTTP: curl prints the 403 body, which names host and key */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", o.port);
    CHECK_INT(run_curl(e, url, &out), 0);
    CHECK(out.data && strstr(out.data, "127.0.0.1") && strstr(out.data, "sandbox.allow_hosts"));

    /* not listed, HTTPS: the tunnel is refused (curl's exit 56), before any DNS */
    CHECK_INT(run_curl(e, "https://blocked.invalid/", &out), 56);
    CHECK(out.data && strstr(out.data, "403") != NULL);

    egress_set_on_decision(e, NULL, NULL);
    CHECK_INT(s.allowed, 1);
    CHECK_INT(s.blocked, 2);
    CHECK_STR(s.last_blocked, "blocked.invalid");
    buf_release(&out);
    egress_free(e);
    origin_stop(&o);
}

int main(void)
{
    if (!have_curl()) {
        printf("SKIP: egress_curl needs the curl program (Debian package curl)\n");
        return 77;
    }
    RUN(test_curl_through_the_proxy);
    return check_report();
}
