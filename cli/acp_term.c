/* acp_term — the client's terminal as hew's command runner (hew_options.cmd_runner): when
 * the client says in initialize that it has a terminal (clientCapabilities.terminal), a
 * command hew would run without its sandbox runs there instead (terminal/create with the
 * user's shell, `-c` and the command, in the session's cwd, no env of hew's), so the editor
 * shows it live. hew polls terminal/output for its output and exit status, stops it with
 * terminal/kill and ends with terminal/release. A command hew confines never comes here
 * (execute_command decides). start and output are called on the task's thread, which waits
 * for the client's answer (session/cancel stops the wait); kill and release are sent
 * without waiting, so they go out even after a cancel. */
#include <stdlib.h>
#include <string.h>

#include "acp.h"

/* What the client keeps of a command's output (its end when longer): hew shows the model
 * the head and tail of at most 64 KiB. */
#define ACP_TERM_OUTPUT_LIMIT (256 * 1024)

typedef struct term {
    acp_session *s;
    char id[128]; /* the client's terminalId */
} term;

static hew_code term_start(void *ud, const char *shell, const char *command, const char *cwd,
                           void **run, char *name, size_t namelen, char *err, size_t errlen)
{
    acp_session *s = ud;
    *run = NULL;
    json_t *params = json_pack("{s:s, s:s, s:[s, s], s:s, s:i}", "sessionId",
                               acp_session_id(s), "command", shell, "args", "-c", command,
                               "cwd", cwd, "outputByteLimit", ACP_TERM_OUTPUT_LIMIT);
    json_t *result = NULL;
    if (acp_session_call(s, "terminal/create", params, &result, err, errlen) != 0)
        return acp_session_cancelled(s) ? HEW_E_ABORTED : HEW_E_IO;
    const char *id = json_string_value(json_object_get(result, "terminalId"));
    int id_ok = id && *id && strlen(id) < sizeof ((term *)0)->id;
    term *t = id_ok ? calloc(1, sizeof *t) : NULL;
    if (!t) {
        snprintf(err, errlen, "%s", id_ok ? "out of memory"
                                          : "the client's answer to terminal/create has no "
                                            "\"terminalId\" string (of 1 to 127 bytes)");
        json_decref(result);
        return id_ok ? HEW_E_NOMEM : HEW_E_PROTOCOL;
    }
    t->s = s;
    snprintf(t->id, sizeof t->id, "%s", id);
    snprintf(name, namelen, "%s", id);
    json_decref(result);
    *run = t;
    return HEW_OK;
}

static hew_code term_output(void *ud, void *run, hew_file_put_fn put, void *sink,
                            hew_cmd_state *state, char *err, size_t errlen)
{
    (void)ud;
    term *t = run;
    json_t *params = json_pack("{s:s, s:s}", "sessionId", acp_session_id(t->s), "terminalId",
                               t->id);
    json_t *result = NULL;
    if (acp_session_call(t->s, "terminal/output", params, &result, err, errlen) != 0)
        return acp_session_cancelled(t->s) ? HEW_E_ABORTED : HEW_E_IO;
    json_t *out = json_object_get(result, "output");
    if (!json_is_string(out)) {
        snprintf(err, errlen, "the client's answer to terminal/output has no \"output\" string");
        json_decref(result);
        return HEW_E_PROTOCOL;
    }
    put(sink, json_string_value(out), json_string_length(out));
    state->truncated = json_is_true(json_object_get(result, "truncated"));
    json_t *ex = json_object_get(result, "exitStatus");
    if (json_is_object(ex)) { /* {exitCode: number | null, signal: string | null} */
        json_t *code = json_object_get(ex, "exitCode");
        const char *sig = json_string_value(json_object_get(ex, "signal"));
        state->done = 1;
        state->exit_code = json_is_integer(code) ? (int)json_integer_value(code) : -1;
        if (state->exit_code < 0)
            snprintf(state->signal, sizeof state->signal, "%s", sig ? sig : "");
    }
    json_decref(result);
    return HEW_OK;
}

static void ignore_reply(void *ud, json_t *result, json_t *error)
{
    (void)ud;
    (void)result;
    (void)error;
}

/* terminal/kill or terminal/release, not waited for. */
static void term_send(term *t, const char *method)
{
    json_t *params = json_pack("{s:s, s:s}", "sessionId", acp_session_id(t->s), "terminalId",
                               t->id);
    (void)acp_rpc_request(acp_session_rpc(t->s), method, params, ignore_reply, NULL);
}

static void term_kill(void *ud, void *run)
{
    (void)ud;
    term_send(run, "terminal/kill");
}

static void term_release(void *ud, void *run)
{
    (void)ud;
    term_send(run, "terminal/release");
    free(run);
}

int acp_term_hooks(acp_session *s, const json_t *client_caps, hew_cmd_runner *cr)
{
    if (!json_is_true(json_object_get(client_caps, "terminal")))
        return 0;
    cr->start = term_start;
    cr->output = term_output;
    cr->kill = term_kill;
    cr->release = term_release;
    cr->ud = s;
    return 1;
}
