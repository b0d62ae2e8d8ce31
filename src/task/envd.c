/* envd — the environment details of a turn (task.h, "environment details"): what the
 * model is told about the time, the workspace, the commands in the background, the
 * context window and the mode at the end of each user message. Task thread only; says
 * nothing. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/record.h"
#include "prompt/env_details.h"
#include "store/store.h"
#include "task/task.h"
#include "tools/execute_command.h"
#include "tools/workspace.h"

/* The mode section's inputs of the environment details: the task's mode now and the
 * settings that word it. */
static env_details mode_details(hew_task *t)
{
    return (env_details){ .cwd = t->settings->cwd, .mode = task_mode_get(t),
                          .yolo = t->settings->yolo,
                          .strict_plan = t->settings->strict_plan,
                          .ask_tool = !t->settings->yolo };
}

/* The <environment_details> block of a turn: time, the workspace listing on the first
 * turn, commands running in the background, context window usage, the mode. */
void task_envd_build(hew_task *t, bool first_turn, buf *out)
{
    env_details e = mode_details(t);
    buf listing = BUF_INIT((size_t)1 << 20);
    if (first_turn)
        env_details_listing(t->settings->cwd, &listing, NULL);
    const api_usage *u = task_request_usage(t);
    e.now_epoch_s = t->settings->clock_s ? t->settings->clock_s(t->settings->clock_ud)
                                         : (long long)time(NULL);
    net_record_note_clock(t->session->provider.record, e.now_epoch_s); /* for a replay */
    e.first_turn = first_turn;
    e.listing = first_turn && listing.data ? listing.data : NULL;
    e.tokens_used = (u->input_total > 0 ? u->input_total : 0) + (u->output > 0 ? u->output : 0);
    e.context_window = u->input_total >= 0 ? t->session->model.context_window : 0;
    char *changed[32];
    size_t nchanged = first_turn ? 0 : ws_read_cache_changed(&t->env, t->settings->cwd, changed, 32);
    e.changed_files = (const char *const *)changed;
    e.nchanged = nchanged;
    size_t start = out->len;
    env_details_build(&e, out);
    buf_release(&listing);
    for (size_t i = 0; i < nchanged; i++)
        free(changed[i]);
    /* Commands the user let run in the background: their news goes in before the end tag. */
    buf bg = BUF_INIT((size_t)1 << 20);
    execute_command_background_report(&t->env, &bg);
    static const char end_tag[] = "</environment_details>";
    if (bg.len && out->len - start >= sizeof end_tag - 1 &&
        memcmp(out->data + out->len - (sizeof end_tag - 1), end_tag, sizeof end_tag - 1) == 0) {
        buf_truncate(out, out->len - (sizeof end_tag - 1));
        buf_puts(out, "\n# Commands Running in the Background\n");
        buf_append(out, bg.data, bg.len);
        buf_puts(out, "\n");
        buf_puts(out, end_tag);
    }
    buf_release(&bg);
}

void task_envd_refresh_mode(hew_task *t)
{
    size_t n = json_array_size(t->history);
    json_t *last = n ? json_array_get(t->history, n - 1) : NULL;
    const char *role = json_string_value(json_object_get(last, "role"));
    if (!role || strcmp(role, "user") != 0)
        return;
    env_details e = mode_details(t);
    static const char tag[] = "<environment_details>";
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(last, "content"), i, b) {
        const char *text = json_string_value(json_object_get(b, "text"));
        if (!text || strncmp(text, tag, sizeof tag - 1) != 0)
            continue;
        buf fresh = BUF_INIT(0);
        if (env_details_remode(text, &e, &fresh) && fresh.data && strcmp(fresh.data, text) != 0) {
            json_object_set_new(b, "text", json_string(fresh.data));
            task_persist_api_last(t, n, last);
        }
        buf_release(&fresh);
    }
}

