/* mcpsrv — the everything server over HTTP for tests (see mcpsrv.h). */
#include "mcpsrv.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

long test_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void test_sleep_ms(long ms)
{
    struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
}

static void server_output(void *ud, int stream, const char *data, size_t len)
{
    node_server *s = ud;
    (void)stream;
    pthread_mutex_lock(&s->mu);
    buf_append(&s->output, data, len);
    pthread_mutex_unlock(&s->mu);
}

static void *server_pump(void *ud)
{
    node_server *s = ud;
    while (!proc_pump(s->p, 200))
        ;
    atomic_store(&s->finished, true);
    return NULL;
}

int free_port(void)
{
    int sock = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = -1;
    if (bind(sock, (struct sockaddr *)&addr, sizeof addr) == 0 &&
        getsockname(sock, (struct sockaddr *)&addr, &len) == 0)
        port = ntohs(addr.sin_port);
    close(sock);
    return port;
}

bool port_accepts(int port)
{
    int sock = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(sock, (struct sockaddr *)&addr, sizeof addr) == 0;
    close(sock);
    return ok;
}

bool server_output_has(node_server *s, const char *needle, long timeout_ms)
{
    long deadline = test_now_ms() + timeout_ms;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        bool found = s->output.data && strstr(s->output.data, needle);
        pthread_mutex_unlock(&s->mu);
        if (found || test_now_ms() >= deadline)
            return found;
        test_sleep_ms(50);
    }
}

/* Start the everything server in mode "streamableHttp" or "sse"; 0 on success, else a
 * failure is recorded (with what to do) and nothing is left running. */
int server_start(node_server *s, const char *mode)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    buf_init(&s->output, 4 << 20);
    const char *entry = HEW_MCP_SERVERS "/../@modelcontextprotocol/server-everything/dist/index.js";
    if (access(entry, R_OK) != 0) {
        check_fail(__FILE__, __LINE__,
                   "the MCP test servers are not installed (%s is missing) — run "
                   "scripts/install-deps",
                   entry);
        return -1;
    }
    s->port = free_port();
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", s->port);
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%d", s->port);
    proc_env env = PROC_ENV_INIT;
    proc_env_from_parent(&env, NULL);
    proc_env_set(&env, "PORT", port_text);
    const char *argv[] = { "node", entry, mode, NULL };
    proc_opts o = { 0 };
    o.argv = argv;
    o.envp = proc_env_list(&env);
    o.on_output = server_output;
    o.ud = s;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = proc_start(&o, &s->p, &err);
    proc_env_release(&env);
    if (rc != HEW_OK) {
        check_fail(__FILE__, __LINE__, "cannot start the everything server (is node installed? "
                   "run scripts/install-deps): %s", err.msg);
        return -1;
    }
    pthread_create(&s->pump, NULL, server_pump, s);
    long deadline = test_now_ms() + 10000;
    while (!port_accepts(s->port)) {
        if (atomic_load(&s->finished) || test_now_ms() > deadline) {
            pthread_mutex_lock(&s->mu);
            check_fail(__FILE__, __LINE__, "the everything server (%s) did not listen on port "
                       "%d: %s", mode, s->port, s->output.data ? s->output.data : "");
            pthread_mutex_unlock(&s->mu);
            proc_kill(s->p);
            pthread_join(s->pump, NULL);
            proc_free(s->p);
            buf_release(&s->output);
            return -1;
        }
        test_sleep_ms(50);
    }
    return 0;
}

void server_stop(node_server *s)
{
    proc_kill(s->p);
    pthread_join(s->pump, NULL);
    proc_free(s->p);
    buf_release(&s->output);
    pthread_mutex_destroy(&s->mu);
}
