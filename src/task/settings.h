/* settings — a session's settings, copied from hew_options when the session is created
 * and read-only afterwards (every task of the session reads them without locking). */
#ifndef HEW_TASK_SETTINGS_H
#define HEW_TASK_SETTINGS_H

#include <stdbool.h>

#include "api/model.h"
#include "api/provider.h"
#include "tools/mode.h"
#include "hew.h"

typedef struct task_settings {
    char *provider;
    char *model;
    char *api_key;
    char *base_url;
    char *cwd;                  /* absolute, resolved */
    mode_kind mode;
    bool mode_chosen;           /* hew_options.mode was given: a resumed task takes it */
    bool yolo;
    bool auto_approve_read;
    bool auto_approve_read_outside;
    bool auto_approve_edit;
    bool auto_approve_edit_outside;
    bool auto_approve_safe_commands;
    bool auto_approve_all_commands;
    bool auto_approve_mcp;
    bool parallel_tool_calls;
    int native_tools;           /* -1 auto, 0, 1 */
    int max_consecutive_mistakes;
    long retry_base_delay_ms;
    long request_timeout_ms;
    long idle_timeout_ms;
    long thinking_budget;       /* as asked (hew_options); 0 off */
    bool checkpoints;
    int auto_condense;          /* -1 from the model table, 0, 1 */
    bool strict_plan;
    char *language;             /* NULL: none */
    bool rules_global, rules_clinerules, rules_cursorrules, rules_windsurfrules, rules_agents,
        rules_clineignore, rules_claude, rules_gemini;
    bool skills;                /* offer Agent Skills (prompt/skills.h) */
    bool persist;               /* keep the conversation in the store (hew.db) */
    char *data_dir;             /* NULL: $XDG_DATA_HOME/hew */
    char **env_allow;           /* hew_options.env_allow copied (NULL-terminated), or NULL */
    hew_event_fn on_event;
    void *event_ud;
    char **command_allow;       /* hew_options.command_allow copied, NULL-terminated; NULL:
                                   none */
    char **command_deny;
    char *protocol;             /* NULL: the provider's */
    long long (*clock_s)(void *ud); /* hew_options.clock_s: NULL the system clock */
    void *clock_ud;
    char *task_id;              /* hew_options.task_id: a new task's id; NULL: made */
    char *machine_os, *machine_shell, *machine_home; /* shown to the model; NULL: real */
    double max_cost_usd;        /* budgets (hew_options; 0: none) */
    long max_requests;
    bool unattended;            /* a "no" to an approval is a denial for want of one */
    /* the sandbox (hew_options.sandbox_*; sys/sbpolicy.h decides with them) */
    char *sandbox_mode;         /* NULL: auto */
    char *sandbox_backend;      /* NULL: auto */
    char **sandbox_writable_roots; /* NULL-terminated, or NULL */
    char **sandbox_hidden;
    char **sandbox_allow_hosts;
    bool sandbox_network;
    struct sbpolicy *sandbox;   /* made from the above with the session (never NULL then):
                                   which sandbox commands get, and the prepared ones */
    struct egress *egress;      /* the proxy to sandbox_allow_hosts (net/egress.h) when
                                   the network is off and hosts are listed, else NULL */
    hew_file_io file_io;        /* hew_options.file_io copied; read NULL: the disk */
    hew_cmd_runner cmd_runner;  /* hew_options.cmd_runner copied; start NULL: hew runs
                                   commands */
} task_settings;

struct hew_session {
    task_settings settings;
    api_provider provider; /* resolved from the profile, key and base URL */
    api_model model;       /* the model table's entry (or the safe defaults) */
    bool native_tools;     /* native tool calls for this model (else XML) */
    bool auto_condense;    /* summarise near the context limit (else truncate) */
    long thinking_budget;  /* what requests carry: 0 when off or the model cannot think */
    const char *reasoning_effort; /* the budget as an effort for reasoning-effort models
                                     (static string), or NULL */
    struct http_warmup *warmup; /* libcurl loading meanwhile (net/http.h), or NULL */
    struct mcp_hub *mcp;   /* the MCP servers of the settings files, or NULL */
    char *mcp_problem;     /* why the MCP settings could not be used (said once per task) */
    bool mcp_on;           /* hew_options.mcp */
    char *mcp_settings;    /* hew_options.mcp_settings, or NULL */
    bool mcp_ignore_warned; /* the .clineignore warning about file-reading MCP servers was
                               said (once per session; __atomic builtins) */
    struct mcp_src *mcp_src; /* where the MCP settings are read from (lib/mcp_session.c) */
    char *trust_notice;    /* the workspace's project files are not trusted: what was not
                              started and how to allow it (said once per session), or NULL */
    char *trust_notice_data; /* its data as JSON, or NULL */
    int trust_notice_said; /* set (atomically) by the task that said it */
    struct hooks_set *hooks; /* the user's hooks, and the trusted project's
                                (lib/hooks_session.c), or NULL */
    char *hooks_notice;    /* the project's hooks are not trusted: which, and how to allow
                              them (said once per session, task/hook.c), or NULL */
    int hooks_notice_said; /* set (atomically) by the task that said it */
    char *hooks_copies;    /* a private folder holding the trusted Cline scripts as they
                              were hashed (what runs), or NULL */
};

#endif
