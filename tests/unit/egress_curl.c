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
#include "sys/proc.h"

/* ---- a one-answer-per-connection HTTP origin ------------------------------------------- */

typedef struct origin {
    int fd, port, stop[2];
    pthread_t th;
} origin;

static void *origin_main(void *arg)
{
    origin *o = arg;
    for (;;) {
        struct pollfd p[2] = { { o->fd, POLLIN, 0 }, { o->stop[0], POLLIN, 0 } };
        if (poll(p, 2, 30000) <= 0 || (p[1].revents & POLLIN))
            return NULL;
        int c = accept(o->fd, NULL, NULL);
        if (c < 0)
            continue;
        char b[8192];
        size_t len = 0;
        while (len < sizeof b - 1) {
            struct pollfd q = { c, POLLIN, 0 };
            if (poll(&q, 1, 30000) <= 0)
                break;
            ssize_t n = recv(c, b + len, sizeof b - 1 - len, 0);
            if (n <= 0)
                break;
            len += (size_t)n;
            b[len] = '\0';
            if (strstr(b, "\r\n\r\n"))
                break;
        }
        static const char ans[] = "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n"
                                  "Connection: close\r\n\r\norigin reached\n";
        ssize_t w = send(c, ans, sizeof ans - 1, MSG_NOSIGNAL);
        (void)w;
        close(c);
    }
}

static void origin_start(origin *o)
{
    o->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (o->fd < 0 || bind(o->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(o->fd, 16) != 0 || getsockname(o->fd, (struct sockaddr *)&a, &al) != 0 ||
        pipe(o->stop) != 0) {
        perror("origin");
        exit(1);
    }
    o->port = ntohs(a.sin_port);
    pthread_create(&o->th, NULL, origin_main, o);
}

static void origin_stop(origin *o)
{
    ssize_t w = write(o->stop[1], "x", 1);
    (void)w;
    pthread_join(o->th, NULL);
    close(o->fd);
    close(o->stop[0]);
    close(o->stop[1]);
}

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
    origin_start(&o);
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
    CHECK(out.data && strcmp(out.data, "origin reached\n") == 0);

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
