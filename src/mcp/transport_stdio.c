/* transport_stdio — an MCP server as a child process: JSON-RPC messages written to its
 * stdin, one per line, and read from its stdout (framing.h); its stderr goes to the sink's
 * on_noise (the log). One reader thread pumps the process; send() writes from the
 * caller's thread (proc_write serialises writers). When the child ends on its own, the
 * sink hears why, with the last lines it wrote to stderr (usually the reason).
 *
 * Closing: stdin is closed first (the MCP specification's polite shutdown), the child gets
 * a short moment to exit, then its whole process group is killed (proc_free). */
#include "mcp/transport.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/framing.h"
#include "sys/proc.h"

#define STDERR_TAIL_MAX 2048       /* stderr kept for the "it exited" message */
#define POLITE_EXIT_MS 300L        /* after stdin is closed, before the group is killed */

typedef struct stdio_transport {
    mcp_transport base;
    proc *child;
    mcp_sink sink;
    pthread_t reader;
    bool reader_started;
    atomic_bool closing;
    atomic_bool closed;            /* the child is gone: send() fails */
    mcp_lines out_lines, err_lines;
    char err_tail[STDERR_TAIL_MAX];
    size_t err_tail_len;
    char program[128];
} stdio_transport;

static void on_stdout_message(void *ud, const char *json, size_t len)
{
    stdio_transport *t = ud;
    if (t->sink.on_message && !atomic_load(&t->closing))
        t->sink.on_message(t->sink.ud, json, len);
}

static void on_stdout_noise(void *ud, const char *text, size_t len)
{
    stdio_transport *t = ud;
    if (t->sink.on_noise && !atomic_load(&t->closing))
        t->sink.on_noise(t->sink.ud, 1, text, len);
}

/* Keep the end of stderr: the last lines before an exit say why. */
static void remember_stderr(stdio_transport *t, const char *text, size_t len)
{
    if (len + 1 >= STDERR_TAIL_MAX) {
        text += len - (STDERR_TAIL_MAX - 2);
        len = STDERR_TAIL_MAX - 2;
    }
    size_t need = t->err_tail_len + len + 1;
    if (need >= STDERR_TAIL_MAX) {
        size_t drop = need - (STDERR_TAIL_MAX - 1);
        memmove(t->err_tail, t->err_tail + drop, t->err_tail_len - drop);
        t->err_tail_len -= drop;
    }
    memcpy(t->err_tail + t->err_tail_len, text, len);
    t->err_tail_len += len;
    t->err_tail[t->err_tail_len++] = '\n';
    t->err_tail[t->err_tail_len] = '\0';
}

static void on_stderr_line(void *ud, const char *text, size_t len)
{
    stdio_transport *t = ud;
    remember_stderr(t, text, len);
    if (t->sink.on_noise && !atomic_load(&t->closing))
        t->sink.on_noise(t->sink.ud, 2, text, len);
}

/* stderr lines that look like JSON are still stderr. */
static void on_stderr_json(void *ud, const char *json, size_t len)
{
    on_stderr_line(ud, json, len);
}

static void on_output(void *ud, int stream, const char *data, size_t len)
{
    stdio_transport *t = ud;
    mcp_lines_feed(stream == PROC_STDERR ? &t->err_lines : &t->out_lines, data, len);
}

static void describe_end(stdio_transport *t, char *why, size_t n)
{
    proc_status st;
    proc_status_get(t->child, &st);
    char tmp[32];
    int w;
    if (st.end == PROC_SIGNALED)
        w = snprintf(why, n, "the server %s was killed by %s", t->program,
                     proc_signal_name(st.signal, tmp, sizeof tmp));
    else
        w = snprintf(why, n, "the server %s exited with status %d", t->program, st.exit_code);
    /* The last non-empty stderr line usually says why. */
    size_t end = t->err_tail_len;
    while (end > 0 && (t->err_tail[end - 1] == '\n' || t->err_tail[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && t->err_tail[start - 1] != '\n')
        start--;
    if (end > start && w > 0 && (size_t)w < n)
        snprintf(why + w, n - (size_t)w, ": %.*s", (int)(end - start), t->err_tail + start);
}

static void *reader_main(void *arg)
{
    stdio_transport *t = arg;
    while (!proc_pump(t->child, 100))
        ;
    mcp_lines_finish(&t->out_lines);
    mcp_lines_finish(&t->err_lines);
    atomic_store(&t->closed, true);
    if (!atomic_load(&t->closing) && t->sink.on_closed) {
        char why[768];
        describe_end(t, why, sizeof why);
        t->sink.on_closed(t->sink.ud, why);
    }
    return NULL;
}

static hew_code stdio_send(mcp_transport *base, const char *json, size_t len, hew_err *err)
{
    stdio_transport *t = (stdio_transport *)base;
    if (atomic_load(&t->closed) || atomic_load(&t->closing))
        return hew_err_set(err, HEW_E_NET, "the server %s is not running", t->program);
    if (memchr(json, '\n', len))
        return hew_err_set(err, HEW_E_INTERNAL, "an MCP message must be one line");
    /* One write for message and newline keeps a message whole even if writers race. */
    char *line = malloc(len + 1);
    if (!line)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory sending to %s", t->program);
    memcpy(line, json, len);
    line[len] = '\n';
    hew_code rc = proc_write(t->child, line, len + 1, err);
    free(line);
    if (rc != HEW_OK)
        return hew_err_set(err, HEW_E_NET, "cannot send to the server %s: it stopped reading",
                           t->program);
    return HEW_OK;
}

static void stdio_close(mcp_transport *base)
{
    stdio_transport *t = (stdio_transport *)base;
    atomic_store(&t->closing, true);
    proc_close_stdin(t->child);
    if (t->reader_started) {
        /* Give the server a moment to exit on EOF, then kill its group. */
        for (long waited = 0; waited < POLITE_EXIT_MS && !atomic_load(&t->closed); waited += 10) {
            struct timespec ts = { 0, 10 * 1000000L };
            nanosleep(&ts, NULL);
        }
        proc_kill(t->child);
        pthread_join(t->reader, NULL);
    }
    proc_free(t->child);
    mcp_lines_release(&t->out_lines);
    mcp_lines_release(&t->err_lines);
    free(t);
}

hew_code mcp_stdio_open(const mcp_stdio_opts *o, const mcp_sink *sink, mcp_transport **out,
                        hew_err *err)
{
    *out = NULL;
    stdio_transport *t = calloc(1, sizeof *t);
    if (!t)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory starting an MCP server");
    t->base.send = stdio_send;
    t->base.close = stdio_close;
    t->sink = *sink;
    atomic_init(&t->closing, false);
    atomic_init(&t->closed, false);
    snprintf(t->program, sizeof t->program, "%s", o->argv[0]);
    mcp_lines_init(&t->out_lines, 0, on_stdout_message, on_stdout_noise, t);
    mcp_lines_init(&t->err_lines, 64 * 1024, on_stderr_json, on_stderr_line, t);

    proc_env env = PROC_ENV_INIT;
    proc_env_from_parent(&env, NULL);
    for (size_t i = 0; o->env && o->env[i]; i++) {
        const char *eq = strchr(o->env[i], '=');
        if (!eq || eq == o->env[i])
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->env[i]), o->env[i]);
        proc_env_set(&env, name, eq + 1);
    }
    proc_opts po = { 0 };
    po.argv = o->argv;
    po.cwd = o->cwd;
    po.envp = proc_env_list(&env);
    po.separate_stderr = true;
    po.stdin_pipe = true;
    po.on_output = on_output;
    po.ud = t;
    po.sandbox = o->sandbox;
    hew_code rc = env.oom ? hew_err_set(err, HEW_E_NOMEM, "out of memory") : HEW_OK;
    if (rc == HEW_OK)
        rc = proc_start(&po, &t->child, err);
    proc_env_release(&env);
    if (rc != HEW_OK) {
        mcp_lines_release(&t->out_lines);
        mcp_lines_release(&t->err_lines);
        free(t);
        return rc;
    }
    if (pthread_create(&t->reader, NULL, reader_main, t) != 0) {
        proc_free(t->child);
        mcp_lines_release(&t->out_lines);
        mcp_lines_release(&t->err_lines);
        free(t);
        return hew_err_set(err, HEW_E_NOMEM, "cannot start a thread for the MCP server");
    }
    t->reader_started = true;
    *out = &t->base;
    return HEW_OK;
}
