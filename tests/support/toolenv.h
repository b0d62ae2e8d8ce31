/* toolenv — a scripted tool_env for unit tests of single tools: it records every say and
 * ask as JSON events, answers asks from a queue (or "yes" when the queue is empty), and
 * lets a test set the workspace root, yolo and the mode. Reads are approved without
 * asking (auto_approved) with approve_all or yolo. No task, no threads. */
#ifndef HEW_TEST_TOOLENV_H
#define HEW_TEST_TOOLENV_H

#include <jansson.h>
#include <stdbool.h>

#include "tools/tool.h"

typedef struct toolenv {
    tool_env env;
    json_t *events;          /* [{"kind":"say"|"ask","type":…,"text":…,"data":…,"partial":n}]
                                approvals also carry "group" and "outside" */
    json_t *answers;         /* queue: [{"kind":"yes"|"no"|"message","text":…}] */
    bool approve_all;        /* env->approve approves without asking (like yolo) */
    int mistakes;            /* +1 per mistake(true); reset to 0 by mistake(false) */
    bool completed;
    char *completion;
    char *successor;         /* new_task handed over: the next task's text */
    bool rejected;           /* approve() was answered no / with a message */
    json_t *nowait_answers;  /* queue for ask_nowait: given once its ask is open */
    bool nowait_open;        /* an ask_nowait ask is shown and not answered or closed */
    mode_kind mode;
} toolenv;

void toolenv_init(toolenv *te, const char *cwd);
void toolenv_release(toolenv *te);

/* Queue the answer to the next ask: "yes", "no" or "message" (text may be NULL). */
void toolenv_answer(toolenv *te, const char *kind, const char *text);

/* Queue the answer to the next non-blocking ask (env->ask_nowait): it is given on the
 * first call after that ask was shown ("yes", "no" or "message"). */
void toolenv_answer_nowait(toolenv *te, const char *kind, const char *text);
/* ... once an ask whose text contains `after` was shown (a command's output so far): a
 * test that needs the output before the answer must not race the command. */
void toolenv_answer_nowait_after(toolenv *te, const char *kind, const char *text,
                                 const char *after);

/* How many events of a kind ("say"/"ask"/NULL = any) and type were recorded. */
int toolenv_count(const toolenv *te, const char *kind, const char *type);
/* The last event of that kind/type, or NULL (borrowed). */
json_t *toolenv_last(const toolenv *te, const char *kind, const char *type);

/* Run a tool with parameters given as alternating name, value, …, NULL; fills *out
 * (release out->text with buf_release). */
hew_code toolenv_run(toolenv *te, const tool_def *def, tool_result *out, ...);

#endif
