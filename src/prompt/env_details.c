/* env_details — builds the <environment_details> block (see env_details.h). The builder
 * is pure string work; the listing runs the list_files tool and the time zone name reads
 * $TZ and /etc. It must never write to the file system or talk to the user. */
#include "prompt/env_details.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/utf8.h"
#include "tools/registry.h"

void env_details_count(int64_t n, buf *out)
{
    char digits[32];
    bool neg = n < 0;
    uint64_t v = neg ? (uint64_t)(-(n + 1)) + 1 : (uint64_t)n;
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    if (neg)
        buf_putc(out, '-');
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            buf_putc(out, ',');
        buf_putc(out, digits[i]);
    }
}

/* ---- time zone ------------------------------------------------------------------------ */

static char tz_name[128];
static pthread_once_t tz_once = PTHREAD_ONCE_INIT;

static bool zone_like(const char *s)
{
    if (!s || !*s || strlen(s) >= sizeof tz_name)
        return false;
    for (const char *c = s; *c; c++)
        if (!(('a' <= *c && *c <= 'z') || ('A' <= *c && *c <= 'Z') || ('0' <= *c && *c <= '9') ||
              *c == '/' || *c == '_' || *c == '-' || *c == '+'))
            return false;
    return true;
}

static void tz_init(void)
{
    const char *tz = getenv("TZ");
    if (tz && *tz == ':')
        tz++;
    if (tz && zone_like(tz) && (strchr(tz, '/') || strcmp(tz, "UTC") == 0 ||
                                strcmp(tz, "GMT") == 0)) {
        snprintf(tz_name, sizeof tz_name, "%s", tz);
        return;
    }
    char link[PATH_MAX];
    ssize_t n = readlink("/etc/localtime", link, sizeof link - 1);
    if (n > 0) {
        link[n] = '\0';
        const char *z = strstr(link, "zoneinfo/");
        if (z && zone_like(z + 9)) {
            snprintf(tz_name, sizeof tz_name, "%s", z + 9);
            return;
        }
    }
    char *text = NULL;
    if (fs_read_file("/etc/timezone", 4096, &text, NULL, NULL) == HEW_OK) {
        text[strcspn(text, "\r\n")] = '\0';
        if (zone_like(text)) {
            snprintf(tz_name, sizeof tz_name, "%s", text);
            free(text);
            return;
        }
        free(text);
    }
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm) && tm.tm_zone && zone_like(tm.tm_zone)) {
        snprintf(tz_name, sizeof tz_name, "%s", tm.tm_zone);
        return;
    }
    snprintf(tz_name, sizeof tz_name, "%s", "UTC");
}

const char *env_details_tz_name(void)
{
    pthread_once(&tz_once, tz_init);
    return tz_name;
}

/* ---- the block ------------------------------------------------------------------------- */

static void put_output(const char *s, buf *out)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n > ENV_DETAILS_OUTPUT_MAX) {
        /* keep the most recent part, starting at a character (and, if near, a line) */
        size_t from = n - ENV_DETAILS_OUTPUT_MAX;
        while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80)
            from++;
        const char *nl = memchr(s + from, '\n', n - from);
        if (nl && (size_t)(nl - (s + from)) < 512)
            from = (size_t)(nl - s) + 1;
        buf_printf(out, "[… %zu earlier bytes of output not shown]\n", from);
        s += from;
        n -= from;
    }
    utf8_sanitize(s, n, out);
    buf_putc(out, '\n');
}

static void commands(const env_details *e, bool running, buf *out)
{
    bool any = false;
    for (size_t i = 0; i < e->ncommands; i++) {
        const env_details_command *c = &e->commands[i];
        bool has_output = c->output && *c->output;
        if (c->running != running)
            continue;
        if (!any)
            buf_puts(out, running ? "\n# Running Commands\n" : "\n# Finished Commands\n");
        any = true;
        buf_printf(out, "## `%s`\n", c->command ? c->command : "");
        if (!running && c->exit_code >= 0)
            buf_printf(out, "Exit code: %d\n", c->exit_code);
        else if (!running)
            buf_puts(out, "Exit code: unknown (it may have been stopped by a signal)\n");
        if (has_output) {
            buf_puts(out, "### New Output\n");
            put_output(c->output, out);
        }
    }
}

static void put_time(const env_details *e, buf *out)
{
    time_t now = (time_t)e->now_epoch_s;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char when[96] = "";
    if (localtime_r(&now, &tm))
        strftime(when, sizeof when, "%A %Y-%m-%d %H:%M:%S", &tm);
    long off = tm.tm_gmtoff;
    char sign = off < 0 ? '-' : '+';
    if (off < 0)
        off = -off;
    buf_printf(out, "\n# Current Time\n%s (%s, UTC%c%02ld:%02ld)\n", when,
               e->tz_name ? e->tz_name : env_details_tz_name(), sign, off / 3600,
               (off % 3600) / 60);
}

static void put_mode(const env_details *e, buf *out)
{
    bool plan = e->mode == MODE_PLAN;
    buf_puts(out, "\n# Current Mode\n");
    if (!plan) {
        buf_puts(out, "ACT MODE\n");
        return;
    }
    buf_puts(out, "PLAN MODE\n"
                  "In this mode you gather information, ask what you need to know, and work "
                  "out a plan for the task. Explore first with the read-only tools (read_file, "
                  "list_files, search_files, list_code_definition_names");
    buf_puts(out, e->ask_tool ? ", ask_followup_question). " : "). ");
    buf_puts(out, "When you have what you need, present your plan with plan_mode_respond and "
                  "talk it through with the user; do not use plan_mode_respond before you "
                  "have looked at what the plan depends on. ");
    buf_puts(out, e->strict_plan ? "File changes are refused in this mode. "
                                 : "Do not change files or run commands that change anything "
                                   "in this mode. ");
    if (e->yolo)
        buf_puts(out, "Nobody approves the plan in this session: once you present it with "
                      "plan_mode_respond, hew switches to ACT MODE and you carry it out.\n");
    else
        buf_puts(out, "If the task needs tools that only work in ACT MODE, ask the user to "
                      "\"switch to ACT MODE\" (in those words): you cannot switch yourself, "
                      "the user does it once they are happy with the plan.\n");
}

bool env_details_remode(const char *details, const env_details *e, buf *out)
{
    static const char head[] = "\n# Current Mode\n", end[] = "</environment_details>";
    const char *at = NULL;
    for (const char *p = details; (p = strstr(p, head)); p++)
        at = p;
    const char *close = at ? strstr(at, end) : NULL;
    if (!close)
        return false;
    buf_append(out, details, (size_t)(at - details));
    put_mode(e, out);
    buf_puts(out, close);
    return true;
}

void env_details_build(const env_details *e, buf *out)
{
    /* Each section starts with "\n#" and ends with "\n": a blank line between sections,
     * none after the opening tag. */
    buf_puts(out, "<environment_details>");
    commands(e, true, out);
    commands(e, false, out);
    if (e->nchanged) {
        buf_puts(out, "\n# Recently Modified Files\nThese files were changed outside hew "
                      "since you last read them; read them again before you edit them:\n");
        for (size_t i = 0; i < e->nchanged; i++)
            buf_printf(out, "%s\n", e->changed_files[i]);
    }
    put_time(e, out);
    if (e->first_turn && e->listing) {
        buf_printf(out, "\n# Current Working Directory (%s) Files\n", e->cwd ? e->cwd : ".");
        size_t n = strlen(e->listing);
        while (n && e->listing[n - 1] == '\n')
            n--;
        buf_append(out, e->listing, n);
        buf_putc(out, '\n');
    }
    if (e->context_window > 0) {
        int64_t used = e->tokens_used > 0 ? e->tokens_used : 0;
        int pct = (int)((used * 100 + e->context_window / 2) / e->context_window);
        buf_puts(out, "\n# Context Window Usage\n");
        env_details_count(used, out);
        buf_puts(out, " / ");
        env_details_count(e->context_window, out);
        buf_printf(out, " tokens used (%d%%)\n", pct);
    }
    put_mode(e, out);
    buf_puts(out, "</environment_details>");
}

/* ---- the listing ------------------------------------------------------------------------ */

static void quiet_say(tool_env *env, const char *type, const char *text, json_t *data,
                      int partial)
{
    (void)env, (void)type, (void)text, (void)data, (void)partial;
}

static hew_code quiet_ask(tool_env *env, const char *type, const char *text, json_t *data,
                          int partial, tool_answer *answer)
{
    (void)env, (void)type, (void)text, (void)data, (void)partial;
    if (answer)
        *answer = (tool_answer){ .kind = TOOL_ANSWER_YES };
    return HEW_OK;
}

static hew_code quiet_approve(tool_env *env, const char *group, bool outside, const char *type,
                              json_t *data, bool *approved, tool_answer *answer)
{
    (void)env, (void)group, (void)outside, (void)type, (void)data;
    *approved = true;
    if (answer)
        *answer = (tool_answer){ .kind = TOOL_ANSWER_YES };
    return HEW_OK;
}

static void quiet_mistake(tool_env *env, bool made)
{
    (void)env, (void)made;
}

static void quiet_set_mode(tool_env *env, mode_kind mode)
{
    (void)env, (void)mode;
}

hew_code env_details_listing(const char *cwd, buf *out, hew_err *err)
{
    const tool_def *lf = registry_find("list_files");
    if (!lf || !lf->run)
        return hew_err_set(err, HEW_E_NOTFOUND, "the tool table has no list_files tool");
    char *real = realpath(cwd, NULL);
    const char *home = getenv("HOME");
    char *home_real = home && *home ? realpath(home, NULL) : NULL;
    bool refused = real && (strcmp(real, "/") == 0 || (home_real && strcmp(real, home_real) == 0));
    free(real);
    free(home_real);
    if (refused) {
        buf_puts(out, "(The working directory is the home directory or the file system root: "
                      "its files are not listed here. Use list_files to look at the folders "
                      "you need.)");
        return HEW_OK;
    }
    tool_env env = {
        .task = NULL,
        .cwd = cwd,
        .abort = NULL,
        .yolo = true,
        .set_mode = quiet_set_mode,
        .say = quiet_say,
        .ask = quiet_ask,
        .approve = quiet_approve,
        .ask_nowait = NULL,
        .complete = NULL,
        .mistake = quiet_mistake,
    };
    const char *keys[] = { "path", "recursive" };
    const char *values[] = { ".", "true" };
    tool_call call = {
        .name = "list_files", .id = "env_details", .nparams = 2, .keys = keys,
        .values = values, .partial = false, .native = false, .invalid_args = NULL,
    };
    tool_result res = { BUF_INIT(0), false, false, NULL };
    hew_code rc = lf->run(&env, &call, &res);
    if (rc == HEW_OK)
        buf_append(out, res.text.data ? res.text.data : "", res.text.len);
    buf_release(&res.text);
    if (rc != HEW_OK)
        return hew_err_set(err, rc, "cannot list %s", cwd);
    return HEW_OK;
}
