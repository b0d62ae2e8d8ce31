/* acp_session — one ACP session of `hew acp`: a hew session (the workspace, the
 * configuration and approvals of `hew -p`, the client's MCP servers) and the one hew task
 * its prompts drive. The first prompt starts the task (its id is the session's id, so
 * session/load finds it in hew's store); a turn ends when the task asks the user
 * something — its completion (end_turn), a question, its plan, the mistake limit — and
 * the next prompt is the answer, so the conversation is one task. A task that stopped
 * (session/cancel, a failure) is resumed from the store by the next prompt, its replayed
 * conversation kept from the client, which has it already; session/load sends the stored
 * conversation to the client, and its first prompt resumes the task the same way. A
 * prompt's images go with it wherever it goes: the task's start, the answer
 * (hew_task_respond_with_images), the resume ask's answer (kept, copied, until the resumed
 * task asks). Approvals go to acp_perm.c; events are mapped by acp_update.c.
 *
 * State (under lock): prompt_id is the session/prompt being answered (NULL between
 * turns); pending names the ask the next prompt answers; replay says the resumed task is
 * replaying its stored conversation (kept from the client) until its live resume ask.
 * A waiter thread per task ends the turn when the task ends. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acp.h"
#include "clockms.h"
#include "config.h"

enum replay { REPLAY_NONE, REPLAY_HIDE };

struct acp_session {
    acp_server *srv;
    char id[64];
    char *cwd;
    char mode[8];      /* "act" or "plan" */
    char *mcp_file;    /* the settings file with the client's MCP servers, or NULL */
    hew_session *hs;
    pthread_mutex_t lock; /* recursive: the library may call back while we hold it */
    hew_task *task;
    pthread_t waiter;
    int waiting;       /* the waiter thread runs (not joined yet) */
    int ended;         /* the task's thread has ended */
    char task_id[64];  /* the stored task the next prompt resumes ("": start one) */
    int persist;       /* tasks are stored (not --ephemeral): a stopped one can go on */
    json_t *prompt_id; /* the session/prompt being answered, or NULL */
    int cancelled;     /* session/cancel came for this turn */
    char model_stop[16]; /* the model's answer was cut or refused: the turn's stopReason
                            ("max_tokens", "refusal"), "" none */
    enum replay replay;
    char *resume_text; /* the prompt that answers the resume ask (REPLAY_HIDE) */
    acp_images resume_images; /* its images (copies: answered on the task's thread) */
    char pending[32];  /* the ask the next prompt answers ("" none) */
    acp_stream stream;
    json_t *always;    /* the client's "always" choices: key -> "allow" | "reject" */
    long perm_id;      /* the session/request_permission pending, -1 none */
    long call_id;      /* the task thread's request to the client (fs/...) pending, -1 none */
    hew_file_io fio;   /* the client's files (acp_fs.c), when it offers them */
    hew_cmd_runner cmdr; /* the client's terminal (acp_term.c), when it offers one */
    char *model;       /* the model the client chose (session/set_config_option), or NULL:
                          --model or the config's */
    char model_now[128]; /* the model in use ("" the provider's default) */
    char provider[32];   /* the provider in use */
    hew_totals turn_start; /* the task's totals when the turn started */
};

acp_rpc *acp_session_rpc(acp_session *s) { return s->srv->rpc; }
const char *acp_session_cwd(const acp_session *s) { return s->cwd; }
json_t *acp_session_always(acp_session *s) { return s->always; }
pthread_mutex_t *acp_session_lock(acp_session *s) { return &s->lock; }
hew_task *acp_session_task(acp_session *s) { return s->task; }
long *acp_session_perm_slot(acp_session *s) { return &s->perm_id; }
acp_stream *acp_session_stream(acp_session *s) { return &s->stream; }
const char *acp_session_id(const acp_session *s) { return s->id; }

acp_session *acp_session_find(acp_server *srv, const char *id)
{
    for (size_t i = 0; id && i < srv->nsessions; i++)
        if (strcmp(srv->sessions[i]->id, id) == 0)
            return srv->sessions[i];
    return NULL;
}

json_t *acp_session_modes(const acp_session *s)
{
    return json_pack("{s:s, s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}]}", "currentModeId", s->mode,
                     "availableModes", "id", "act", "name", "Act", "description",
                     "hew works on the task: reads, edits files, runs commands",
                     "id", "plan", "name", "Plan", "description",
                     "hew reads and plans with you; it changes nothing");
}

/* The value of the model selector for "the provider's default model". */
#define DEFAULT_MODEL "default"

/* The names hew's table lists for provider, as a JSON array (a new reference): none for
 * the providers that route to many vendors under names of their own (openrouter,
 * openai-compatible), where a family name would not be accepted as it is. */
static json_t *model_names(const char *provider)
{
    json_t *names = json_array();
    if (!provider || strcmp(provider, "openrouter") == 0 ||
        strcmp(provider, "openai-compatible") == 0)
        return names;
    hew_options o;
    hew_options_init(&o);
    o.provider = provider;
    char *list = NULL;
    json_t *models = hew_models_json(&o, &list, NULL, 0) == HEW_OK ? json_loads(list, 0, NULL)
                                                                   : NULL;
    hew_free(list);
    size_t i;
    json_t *m;
    json_array_foreach(models, i, m) {
        const char *name = json_string_value(json_object_get(m, "model"));
        if (name)
            json_array_append_new(names, json_string(name));
    }
    json_decref(models);
    return names;
}

json_t *acp_session_config_options(const acp_session *s)
{
    json_t *mode = json_pack("{s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}]}", "id",
                             "mode", "name", "Mode", "category", "mode", "type", "select",
                             "currentValue", s->mode, "options", "value", "act", "name", "Act",
                             "value", "plan", "name", "Plan");
    const char *now = s->model_now[0] ? s->model_now : DEFAULT_MODEL;
    json_t *opts = json_array();
    json_t *names = model_names(s->provider);
    int listed = 0;
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n)
        listed |= strcmp(json_string_value(n), now) == 0;
    if (!listed) /* the model in use first, when the table does not list it */
        json_array_append_new(opts, json_pack("{s:s, s:s}", "value", now, "name",
                                              s->model_now[0] ? now : "Default"));
    json_array_foreach(names, i, n)
        json_array_append_new(opts, json_pack("{s:O, s:O}", "value", n, "name", n));
    json_decref(names);
    json_t *model = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "id", "model", "name", "Model",
                              "category", "model", "type", "select", "currentValue", now,
                              "options", opts);
    return json_pack("[o, o]", mode, model);
}

/* ---- updates ------------------------------------------------------------------------------ */

void acp_session_update(acp_session *s, json_t *update)
{
    json_t *p = json_pack("{s:s}", "sessionId", s->id);
    json_object_set_new(p, "update", update);
    acp_rpc_notify(s->srv->rpc, "session/update", p);
}

static void emit(void *ud, json_t *update)
{
    acp_session_update(ud, update);
}

/* The turn's usage: what the task's totals grew by since it started (unstable ACP's
 * PromptResponse.usage; clients that do not know it ignore it). */
static json_t *turn_usage(acp_session *s)
{
    hew_totals now;
    hew_task_totals(s->task, &now, NULL);
#define GREW(f) (now.f > s->turn_start.f ? now.f - s->turn_start.f : 0)
    long long in = GREW(tokens_in), out = GREW(tokens_out);
    long long cr = GREW(cache_reads), cw = GREW(cache_writes);
#undef GREW
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "totalTokens", (json_int_t)(in + out + cr + cw),
                     "inputTokens", (json_int_t)in, "outputTokens", (json_int_t)out,
                     "cachedReadTokens", (json_int_t)cr, "cachedWriteTokens", (json_int_t)cw);
}

/* Answer the running prompt with stop (locked). */
static void end_turn(acp_session *s, const char *stop)
{
    if (!s->prompt_id)
        return;
    acp_update_close_tool(&s->stream, emit, s);
    json_t *r = json_pack("{s:s}", "stopReason", stop);
    if (s->task)
        json_object_set_new(r, "usage", turn_usage(s));
    acp_rpc_result(s->srv->rpc, s->prompt_id, r);
    json_decref(s->prompt_id);
    s->prompt_id = NULL;
    s->cancelled = 0;
    s->model_stop[0] = '\0';
}

/* Answer the running prompt with an error (locked). */
static void fail_turn(acp_session *s, int code, const char *why)
{
    if (!s->prompt_id)
        return;
    acp_update_close_tool(&s->stream, emit, s);
    acp_rpc_error(s->srv->rpc, s->prompt_id, code, why);
    json_decref(s->prompt_id);
    s->prompt_id = NULL;
    s->cancelled = 0;
    s->model_stop[0] = '\0';
}

/* ---- the task's events ----------------------------------------------------------------- */

/* The JSON-RPC error of an answer or a start the library refused: -32602 for the
 * prompt's images it cannot use (not an image, damaged, a model that reads none). */
static int refusal_code(hew_code rc, size_t nimages)
{
    return nimages && (rc == HEW_E_INVALID || rc == HEW_E_NOTFOUND) ? ACP_INVALID_PARAMS
                                                                     : ACP_INTERNAL_ERROR;
}

/* Forget the prompt that resumes the task (locked). */
static void drop_resume(acp_session *s)
{
    s->replay = REPLAY_NONE;
    free(s->resume_text);
    s->resume_text = NULL;
    acp_images_release(&s->resume_images);
}

/* A resume ask while the resumed task replays its conversation (locked): the replayed
 * ones (a task resumed before has them in its history) are not waiting — the answer is
 * refused (HEW_E_STATE), and the replay goes on; the live one takes the prompt's text and
 * images. Images the library refuses fail the prompt with its message; the live ask
 * still waits, and the next prompt answers it (pending). */
static void replay_ask(acp_session *s, hew_task *task, const hew_event *ev)
{
    if (!s->resume_text)
        return;
    char err[512] = "";
    hew_code rc = hew_task_respond_with_images(task, HEW_ANSWER_MESSAGE, s->resume_text,
                                               s->resume_images.items, s->resume_images.n,
                                               err, sizeof err);
    if (rc == HEW_E_STATE) /* a replayed ask */
        return;
    int code = refusal_code(rc, s->resume_images.n);
    drop_resume(s);
    if (rc != HEW_OK) {
        snprintf(s->pending, sizeof s->pending, "%s", ev->type);
        fail_turn(s, code, *err ? err : "the task refused the prompt");
        return;
    }
    hew_task_totals(task, &s->turn_start, NULL); /* loaded now: its earlier totals */
}

/* The ACP stopReason of a request whose answer did not end by itself (its
 * api_req_started's stopReason, docs/events.md). */
static const struct {
    const char *hew;
    const char *acp;
    const char *why; /* the task's abort reason */
} model_stops[] = {
    { "length", "max_tokens", "the model's answer was cut at its output limit" },
    { "content_filter", "refusal", "the model refused to answer" },
};

/* A request's end (locked): an answer cut short or refused ends the turn with its
 * stopReason — the task stops (resumable, as after a cancel) and the next prompt goes on. */
static void request_ended(acp_session *s, hew_task *task, const hew_event *ev)
{
    if (!ev->data_json || !strstr(ev->data_json, "\"stopReason\"") || !s->prompt_id ||
        s->model_stop[0])
        return;
    json_t *d = json_loads(ev->data_json, 0, NULL);
    const char *stop = json_string_value(json_object_get(d, "stopReason"));
    for (size_t i = 0; stop && i < sizeof model_stops / sizeof model_stops[0]; i++)
        if (strcmp(model_stops[i].hew, stop) == 0) {
            snprintf(s->model_stop, sizeof s->model_stop, "%s", model_stops[i].acp);
            hew_task_abort(task, model_stops[i].why);
        }
    json_decref(d);
}

static void on_event(void *ud, hew_task *task, const hew_event *ev)
{
    acp_session *s = ud;
    pthread_mutex_lock(&s->lock);
    int final_ask = ev->is_ask && !ev->partial;
    if (s->replay != REPLAY_NONE) { /* the client has the conversation already */
        if (final_ask && (ev->kind == HEW_EV_RESUME_TASK || ev->kind == HEW_EV_RESUME_COMPLETED_TASK))
            replay_ask(s, task, ev);
        pthread_mutex_unlock(&s->lock);
        return;
    }
    acp_update_event(&s->stream, ev, 0, s->cwd, emit, s);
    if (ev->kind == HEW_EV_API_REQ_STARTED)
        request_ended(s, task, ev);
    if (final_ask) {
        switch (ev->kind) {
        case HEW_EV_COMPLETION_RESULT:
        case HEW_EV_FOLLOWUP:
        case HEW_EV_PLAN_MODE_RESPOND:
        case HEW_EV_MISTAKE_LIMIT_REACHED: /* the user's turn: the next prompt answers */
            snprintf(s->pending, sizeof s->pending, "%s", ev->type);
            end_turn(s, "end_turn");
            break;
        case HEW_EV_COMMAND_OUTPUT: /* a running command's output: nothing to answer */
            break;
        case HEW_EV_API_REQ_FAILED: /* the retries are spent: the turn fails with it */
            hew_task_respond(task, HEW_ANSWER_NO, NULL);
            break;
        case HEW_EV_NEW_TASK:
            hew_task_respond(task, HEW_ANSWER_NO,
                             "(hew acp keeps one task per session: go on with the current "
                             "task here.)");
            break;
        case HEW_EV_RESUME_TASK:
        case HEW_EV_RESUME_COMPLETED_TASK:
            hew_task_respond(task, HEW_ANSWER_YES, NULL);
            break;
        default: /* a tool, a command, an MCP call: approval */
            acp_perm_ask(s, task, ev);
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

/* The stop reason of a failed task, or NULL when the failure is an error to report. */
static const char *failure_stop(const hew_task *t)
{
    hew_outcome oc;
    if (hew_task_outcome(t, &oc, NULL) != HEW_OK)
        return NULL;
    static const struct {
        const char *category;
        const char *stop;
    } stops[] = {
        { "content_policy", "refusal" },
        { "response_too_large", "max_tokens" },
    };
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        if (oc.error_category && strcmp(oc.error_category, stops[i].category) == 0)
            return stops[i].stop;
    if (oc.exit_code == HEW_EXIT_BUDGET)
        return "max_turn_requests";
    return NULL;
}

/* The task's thread: wait for its end, then end the turn by how it ended. */
static void *waiter(void *ud)
{
    acp_session *s = ud;
    hew_task *t = s->task; /* set before the thread starts; changed only after the join */
    hew_task_status st = hew_task_wait(t);
    pthread_mutex_lock(&s->lock);
    s->ended = 1;
    s->pending[0] = '\0';
    if (s->persist) /* else the next prompt starts afresh: nothing to resume from */
        snprintf(s->task_id, sizeof s->task_id, "%s", hew_task_id(t));
    const char *result = hew_task_result(t);
    drop_resume(s); /* (stopped while it replayed: the prompt's text and images go too) */
    if (s->prompt_id) {
        const char *stop = NULL;
        if (s->cancelled)
            stop = "cancelled";
        else if (s->model_stop[0]) /* stopped here for the model's answer */
            stop = s->model_stop;
        else if (st == HEW_TASK_ABORTED)
            stop = "cancelled";
        else if (st == HEW_TASK_COMPLETED)
            stop = "end_turn";
        else
            stop = failure_stop(t);
        if (stop)
            end_turn(s, stop);
        else
            fail_turn(s, ACP_INTERNAL_ERROR, *result ? result : "the task failed");
    }
    acp_update_close_tool(&s->stream, emit, s);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Start the waiter of the task just started (locked). */
static int start_waiter(acp_session *s)
{
    s->ended = 0;
    if (pthread_create(&s->waiter, NULL, waiter, s) != 0)
        return -1;
    s->waiting = 1;
    return 0;
}

/* Forget the ended task: join its waiter and free it. Called without the lock (the waiter
 * takes it); only the main thread changes s->task. */
static void drop_task(acp_session *s)
{
    if (s->waiting) {
        pthread_join(s->waiter, NULL);
        s->waiting = 0;
    }
    pthread_mutex_lock(&s->lock);
    hew_task *t = s->task;
    s->task = NULL;
    pthread_mutex_unlock(&s->lock);
    hew_task_free(t);
}

/* ---- the hew session ---------------------------------------------------------------------- */

/* Whether a failed hew_session_new of o failed for want of an API key: none given (flag,
 * key file, config) and none in the provider's variable. */
static int key_missing(const hew_options *o)
{
    const char *var = cli_provider_key_env(o->provider);
    const char *v = var ? getenv(var) : NULL;
    return (!o->api_key || !*o->api_key) && var && (!v || !*v);
}

/* (Re)make the hew session for s's workspace and mode. 0, or -1 with why in err and the
 * JSON-RPC error in *code (NULL: not wanted): ACP_AUTH_REQUIRED without an API key, else
 * ACP_INTERNAL_ERROR. */
static int make_hew_session(acp_session *s, int *code, char *err, size_t errlen)
{
    cli_options co = *s->srv->co;
    co.cwd = s->cwd;
    co.mode = s->mode;
    if (s->model)
        co.model = s->model;
    hew_options o;
    hew_options_init(&o);
    cli_config cfg;
    if (cli_setup_options(&co, &o, &cfg) != 0) {
        snprintf(err, errlen, "hew's configuration cannot be used for %s (see the log or "
                              "standard error: `hew config --cwd DIR` shows it)", s->cwd);
        return -1;
    }
    if (s->mcp_file)
        o.mcp_settings = s->mcp_file;
    if (acp_fs_hooks(s, s->srv->client_caps, &s->fio))
        o.file_io = &s->fio; /* the editor's buffers */
    if (acp_term_hooks(s, s->srv->client_caps, &s->cmdr))
        o.cmd_runner = &s->cmdr; /* unconfined commands in the editor's terminal */
    o.on_event = on_event;
    o.event_ud = s;
    o.task_id = s->id; /* the first task of the session is the session */
    s->persist = o.persist;
    hew_session *hs = NULL;
    hew_code rc = hew_session_new(&o, &hs, err, errlen);
    if (code)
        *code = ACP_INTERNAL_ERROR;
    if (rc != HEW_OK && key_missing(&o)) {
        const char *var = cli_provider_key_env(o.provider);
        if (code)
            *code = ACP_AUTH_REQUIRED;
        snprintf(err, errlen, "Authentication required: hew has no API key for %s. Set %s "
                              "in the environment of `hew acp` (the editor's settings for the "
                              "agent: its env), or start it with --api-key-file FILE",
                 o.provider, var);
    }
    if (rc == HEW_OK) { /* (o borrows from cfg) */
        snprintf(s->model_now, sizeof s->model_now, "%s", o.model ? o.model : "");
        snprintf(s->provider, sizeof s->provider, "%s", o.provider ? o.provider : "");
    }
    cli_config_release(&cfg);
    if (rc != HEW_OK)
        return -1;
    hew_session_free(s->hs); /* after: the MCP servers stay connected */
    s->hs = hs;
    return 0;
}

/* A session id: the clock in ms, as hew's task ids are, never one given out before. */
static void new_id(acp_server *srv, char *id, size_t n)
{
    long long ms = clockms_wall();
    for (;; ms++) {
        snprintf(id, n, "%lld", ms);
        if (!acp_session_find(srv, id))
            return;
    }
}

/* The user's MCP settings file (the one hew reads when no other is named). */
static char *user_mcp_file(const acp_session *s)
{
    char *path = NULL;
    char err[256];
    if (hew_mcp_settings_path(s->cwd, 0, &path, err, sizeof err) != HEW_OK)
        return NULL;
    char *copy = strdup(path);
    hew_free(path);
    return copy;
}

static void session_free(acp_session *s)
{
    if (!s)
        return;
    hew_session_free(s->hs);
    if (s->mcp_file) {
        (void)unlink(s->mcp_file);
        free(s->mcp_file);
    }
    json_decref(s->always);
    json_decref(s->prompt_id);
    free(s->resume_text);
    acp_images_release(&s->resume_images);
    free(s->model);
    free(s->cwd);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* session/load: the stored task's conversation (its events, docs/events.md) to the
 * client as session/update notifications, the user's messages included. */
static void replay_stored(acp_session *s, json_t *events)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        if (!json_is_object(e))
            continue; /* a missing index */
        json_t *data = json_object_get(e, "data");
        char *data_json = data ? json_dumps(data, JSON_COMPACT) : NULL;
        const char *type = json_string_value(json_object_get(e, "type"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        hew_event ev = {
            .version = HEW_EVENT_VERSION,
            .index = (long)json_integer_value(json_object_get(e, "index")),
            .ts = json_integer_value(json_object_get(e, "ts")),
            .is_ask = kind && strcmp(kind, "ask") == 0,
            .type = type ? type : "",
            .text = json_string_value(json_object_get(e, "text")),
            .data_json = data_json,
            .kind = hew_event_kind_of(type),
        };
        acp_update_event(&s->stream, &ev, 1, s->cwd, emit, s);
        free(data_json);
    }
}

int acp_session_open(acp_server *srv, const char *cwd, json_t *mcp_servers, const char *load_id,
                     acp_session **out, int *code, char *err, size_t errlen)
{
    *out = NULL;
    *code = ACP_INVALID_PARAMS;
    struct stat sb;
    if (cwd[0] != '/') {
        snprintf(err, errlen, "cwd must be an absolute path, got \"%s\"", cwd);
        return -1;
    }
    if (stat(cwd, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "cwd %s is not a folder that exists", cwd);
        return -1;
    }
    if (load_id && acp_session_find(srv, load_id)) {
        snprintf(err, errlen, "session %s is open already in this connection", load_id);
        return -1;
    }
    acp_session **grown = realloc(srv->sessions, (srv->nsessions + 1) * sizeof *grown);
    acp_session *s = calloc(1, sizeof *s);
    if (grown)
        srv->sessions = grown;
    if (!grown || !s || !(s->cwd = strdup(cwd)) || !(s->always = json_object())) {
        *code = ACP_INTERNAL_ERROR;
        snprintf(err, errlen, "out of memory");
        if (s)
            free(s->cwd);
        json_decref(s ? s->always : NULL);
        free(s);
        return -1;
    }
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    s->srv = srv;
    s->perm_id = -1;
    s->call_id = -1;
    acp_stream_init(&s->stream);
    snprintf(s->mode, sizeof s->mode, "%s",
             srv->co->mode && strcmp(srv->co->mode, "plan") == 0 ? "plan" : "act");
    if (load_id)
        snprintf(s->id, sizeof s->id, "%s", load_id);
    else
        new_id(srv, s->id, sizeof s->id);
    if (json_array_size(mcp_servers) && !srv->co->no_mcp) {
        char *user = user_mcp_file(s);
        int rc = acp_mcp_settings(mcp_servers, user, &s->mcp_file, err, errlen);
        free(user);
        if (rc != 0) {
            session_free(s);
            return -1;
        }
    }
    json_t *events = NULL;
    if (load_id) { /* the stored task: it must exist */
        hew_options q;
        hew_options_init(&q);
        char *json = NULL;
        hew_code rc = hew_history_task_json(&q, load_id, 1, &json, err, errlen);
        json_t *t = rc == HEW_OK ? json_loads(json, 0, NULL) : NULL;
        hew_free(json);
        if (rc != HEW_OK || !t) {
            *code = rc == HEW_E_NOTFOUND ? ACP_NOT_FOUND : ACP_INTERNAL_ERROR;
            if (rc == HEW_OK)
                snprintf(err, errlen, "the stored task %s cannot be read", load_id);
            session_free(s);
            return -1;
        }
        const char *m = json_string_value(json_object_get(t, "mode"));
        if (m && (strcmp(m, "plan") == 0 || strcmp(m, "act") == 0))
            snprintf(s->mode, sizeof s->mode, "%s", m);
        events = json_incref(json_object_get(t, "events"));
        json_decref(t);
        snprintf(s->task_id, sizeof s->task_id, "%s", load_id); /* the next prompt resumes it */
    }
    if (make_hew_session(s, code, err, errlen) != 0) {
        json_decref(events);
        session_free(s);
        return -1;
    }
    srv->sessions[srv->nsessions++] = s;
    if (events)
        replay_stored(s, events);
    json_decref(events);
    *out = s;
    return 0;
}

/* ---- prompts ---------------------------------------------------------------------------- */

int acp_session_prompt(acp_session *s, json_t *req_id, const char *text,
                       const acp_images *images, int *code, char *err, size_t errlen)
{
    *code = ACP_INVALID_REQUEST;
    pthread_mutex_lock(&s->lock);
    if (s->prompt_id || s->replay != REPLAY_NONE) {
        pthread_mutex_unlock(&s->lock);
        snprintf(err, errlen, "session %s is busy with a prompt: wait for its answer, or send "
                              "session/cancel", s->id);
        return -1;
    }
    int running = s->task && !s->ended;
    if (running && s->pending[0]) { /* the prompt answers the task's question */
        hew_totals before;
        hew_task_totals(s->task, &before, NULL);
        char terr[512] = "";
        hew_code rc = hew_task_respond_with_images(s->task, HEW_ANSWER_MESSAGE, text,
                                                   images->items, images->n, terr, sizeof terr);
        if (rc != HEW_OK) { /* refused: the question still waits (else it is ending) */
            if (rc == HEW_E_STATE)
                s->pending[0] = '\0';
            pthread_mutex_unlock(&s->lock);
            *code = refusal_code(rc, images->n);
            snprintf(err, errlen, "%s", *terr ? terr : "the task was not waiting for an answer");
            return -1;
        }
        s->turn_start = before;
        s->prompt_id = json_incref(req_id);
        s->cancelled = 0;
        s->model_stop[0] = '\0';
        s->pending[0] = '\0';
        s->stream.any_text = 0;
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    int resuming = s->task_id[0] != '\0';
    pthread_mutex_unlock(&s->lock);
    if (running) { /* cannot be: a turn ends only at an ask or the task's end */
        *code = ACP_INTERNAL_ERROR;
        snprintf(err, errlen, "the task is still working on the last prompt");
        return -1;
    }
    if (!resuming && !*text) { /* a task starts with words */
        *code = ACP_INVALID_PARAMS;
        snprintf(err, errlen, "the prompt has no text: say what to do with the image (the "
                              "first prompt starts the task)");
        return -1;
    }
    char terr[512] = "";
    hew_code rc;
    if (resuming && images->n && /* refused before the stored task is marked resumed */
        (rc = hew_images_check(s->hs, images->items, images->n, terr, sizeof terr)) != HEW_OK) {
        *code = refusal_code(rc, images->n);
        snprintf(err, errlen, "%s", terr);
        return -1;
    }
    if (s->task)
        drop_task(s);
    pthread_mutex_lock(&s->lock);
    memset(&s->turn_start, 0, sizeof s->turn_start);
    s->prompt_id = json_incref(req_id);
    s->cancelled = 0;
    s->model_stop[0] = '\0';
    s->stream.any_text = 0;
    if (resuming) { /* go on with the stopped task: its replay stays here; the live resume
                       ask takes the prompt (on the task's thread: the images copied) */
        s->replay = REPLAY_HIDE;
        s->resume_text = strdup(text);
        if (!s->resume_text || acp_images_keep(&s->resume_images, images) != 0) {
            rc = HEW_E_NOMEM;
            snprintf(terr, sizeof terr, "out of memory");
        } else {
            rc = hew_task_resume(s->hs, s->task_id, &s->task, terr, sizeof terr);
        }
    } else {
        rc = hew_task_start_with_images(s->hs, text, images->items, images->n, &s->task, terr,
                                        sizeof terr);
    }
    if (rc == HEW_OK && resuming) {
        (void)hew_task_set_mode(s->task, s->mode); /* a set_mode since it was stored */
    }
    if (rc != HEW_OK || start_waiter(s) != 0) {
        drop_resume(s);
        json_decref(s->prompt_id);
        s->prompt_id = NULL;
        pthread_mutex_unlock(&s->lock);
        if (rc == HEW_OK)
            drop_task(s);
        /* an image the library refused (not an image, damaged, a model without images) */
        *code = resuming ? ACP_INTERNAL_ERROR : refusal_code(rc, images->n);
        snprintf(err, errlen, "%s", *terr ? terr : "the task's thread could not start");
        return -1;
    }
    pthread_mutex_unlock(&s->lock);
    return 0;
}

void acp_session_cancel(acp_session *s)
{
    pthread_mutex_lock(&s->lock);
    if (s->prompt_id && s->task && !s->ended) {
        s->cancelled = 1;
        s->perm_id = -1; /* the question is moot: its late answer is ignored */
        if (s->call_id >= 0) /* the task waits for the client: it waits no more */
            (void)acp_rpc_cancel(s->srv->rpc, s->call_id);
        s->call_id = -1;
        hew_task_abort(s->task, "cancelled by the client");
    }
    pthread_mutex_unlock(&s->lock);
}

int acp_session_call(acp_session *s, const char *method, json_t *params, json_t **result,
                     char *err, size_t errlen)
{
    *result = NULL;
    acp_wait w;
    acp_wait_init(&w);
    pthread_mutex_lock(&s->lock);
    long id = -1;
    int cancelled = s->cancelled;
    if (cancelled)
        json_decref(params);
    else
        id = acp_rpc_request(s->srv->rpc, method, params, acp_wait_reply, &w);
    s->call_id = id;
    pthread_mutex_unlock(&s->lock);
    if (id < 0) {
        snprintf(err, errlen, "%s", cancelled ? "the turn was cancelled" : "the client is gone");
        acp_wait_release(&w);
        return -1;
    }
    acp_wait_for(&w); /* the main thread routes the answer (or the cancel) here */
    pthread_mutex_lock(&s->lock);
    if (s->call_id == id)
        s->call_id = -1;
    pthread_mutex_unlock(&s->lock);
    int rc = 0;
    if (w.error) {
        const char *msg = json_string_value(json_object_get(w.error, "message"));
        snprintf(err, errlen, "%s (error %lld)", msg ? msg : "the client refused",
                 (long long)json_integer_value(json_object_get(w.error, "code")));
        rc = -1;
    } else if (!w.result) {
        snprintf(err, errlen, "no answer: the turn was cancelled or the client went away");
        rc = -1;
    } else {
        *result = json_incref(w.result);
    }
    acp_wait_release(&w);
    return rc;
}

int acp_session_cancelled(acp_session *s)
{
    pthread_mutex_lock(&s->lock);
    int c = s->cancelled;
    pthread_mutex_unlock(&s->lock);
    return c;
}

int acp_session_set_mode(acp_session *s, const char *mode, char *err, size_t errlen)
{
    if (strcmp(mode, "act") != 0 && strcmp(mode, "plan") != 0) {
        snprintf(err, errlen, "unknown mode \"%s\": hew's modes are \"act\" and \"plan\"", mode);
        return -1;
    }
    pthread_mutex_lock(&s->lock);
    char was[sizeof s->mode];
    memcpy(was, s->mode, sizeof was);
    snprintf(s->mode, sizeof s->mode, "%s", mode);
    int live = s->task && !s->ended;
    if (live)
        (void)hew_task_set_mode(s->task, mode);
    pthread_mutex_unlock(&s->lock);
    /* the next task or resume takes the session's mode */
    if (!live && strcmp(was, mode) != 0 && make_hew_session(s, NULL, err, errlen) != 0) {
        pthread_mutex_lock(&s->lock);
        memcpy(s->mode, was, sizeof was);
        pthread_mutex_unlock(&s->lock);
        return -1;
    }
    return 0;
}

int acp_session_set_model(acp_session *s, const char *model, int *code, char *err,
                          size_t errlen)
{
    *code = ACP_INVALID_PARAMS;
    json_t *opts = acp_session_config_options(s);
    json_t *choices = json_object_get(json_array_get(opts, 1), "options");
    int known = 0;
    size_t i;
    json_t *o;
    json_array_foreach(choices, i, o)
        known |= strcmp(json_string_value(json_object_get(o, "value")), model) == 0;
    json_decref(opts);
    if (!known) {
        snprintf(err, errlen, "unknown model \"%s\": choose one of the options of the "
                              "\"model\" config option (session/new lists them)", model);
        return -1;
    }
    const char *now = s->model_now[0] ? s->model_now : DEFAULT_MODEL;
    if (strcmp(now, model) == 0)
        return 0;
    pthread_mutex_lock(&s->lock);
    int busy = s->prompt_id != NULL;
    int live = s->task && !s->ended;
    if (live && !busy) /* the task waits for the next prompt: stored, it goes on from there
                          with the new model (as after a cancel) */
        hew_task_abort(s->task, "the client chose another model");
    pthread_mutex_unlock(&s->lock);
    if (busy) {
        *code = ACP_INVALID_REQUEST;
        snprintf(err, errlen, "session %s is busy with a prompt: choose the model between "
                              "turns (or send session/cancel first)", s->id);
        return -1;
    }
    if (s->task)
        drop_task(s); /* (its waiter noted the stored task to resume) */
    char *was = s->model;
    s->model = strcmp(model, DEFAULT_MODEL) == 0 ? NULL : strdup(model);
    if (make_hew_session(s, code, err, errlen) != 0) {
        free(s->model);
        s->model = was; /* the session stays as it was */
        return -1;
    }
    free(was);
    return 0;
}

void acp_session_close(acp_session *s)
{
    pthread_mutex_lock(&s->lock);
    if (s->task && !s->ended) {
        if (strcmp(s->pending, "completion_result") == 0)
            hew_task_respond(s->task, HEW_ANSWER_YES, NULL); /* accepted: it is done */
        else
            hew_task_abort(s->task, "the editor closed the connection");
    }
    pthread_mutex_unlock(&s->lock);
    if (s->task)
        drop_task(s);
    session_free(s);
}
