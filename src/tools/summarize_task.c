/* summarize_task — the model's summary of a conversation that ran out of context, and
 * the prompt the conversation goes on from (see summarize_task.h). */
#include "tools/summarize_task.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/utf8.h"
#include "tools/workspace.h"

#define BINARY_PROBE 8000

const char SUMMARIZE_TASK_INSTRUCTION_TAG[] = "<explicit_instructions type=\"summarize_task\">";
const char SUMMARIZE_TASK_CONTINUATION_START[] =
    "This session is being continued from a previous conversation that ran out of context.";

static const tool_param params[] = {
    { "context", true,
      "The structured summary of the conversation so far, with the numbered sections the "
      "instruction asks for (\"9. Required Files\" lists the files to read again).",
      "Your detailed summary", NULL },
};

/* ---- the instruction ------------------------------------------------------------------ */

static const char instruction_body[] =
    "The conversation is about to run out of context window. Your one job now is to write "
    "a detailed summary of everything so far, so the work can go on from the summary "
    "alone: the older messages will be removed right after it. Pay close attention to "
    "what the user explicitly asked for and to what you did about it. Keep the technical "
    "details that continuing needs: file names, code patterns, function signatures, "
    "decisions and their reasons, errors and how they were fixed.\n"
    "\n"
    "Before writing it, think it through (in <thinking> tags when you think aloud): go "
    "through the conversation in order and note, for each part, what the user wanted, "
    "what you did, the key decisions and technical concepts, and the exact details (paths, "
    "snippets, edits). Then check the summary for accuracy and completeness.\n"
    "\n"
    "The summary has these numbered sections:\n"
    "1. Primary Request and Intent: everything the user explicitly asked for, in detail.\n"
    "2. Key Technical Concepts: the technologies, frameworks and concepts that matter.\n"
    "3. Files and Code Sections: the files read, changed or created, why each matters, "
    "the changes made, and the important code (whole snippets for the recent work).\n"
    "4. Problem Solving: the problems solved and any troubleshooting still going on.\n"
    "5. Pending Tasks: what you were explicitly asked to do and have not done yet.\n"
    "6. Task Evolution: how the requests changed over the conversation, quoting the "
    "user's own words where they changed direction.\n"
    "7. Current Work: precisely what was being worked on right before this request, with "
    "file names and code.\n"
    "8. Next Step: the next step, only if it follows directly from the user's requests and "
    "the current work (if the task was finished, none unless the user asked for more); "
    "quote the most recent messages that show where the work stopped, word for word, so "
    "nothing drifts.\n"
    "9. Required Files: the files that must be read again to go on, one path per line "
    "(\"- path/to/file\", relative to the working directory, at most 8). They are read "
    "again automatically and given to you with the summary.\n"
    "10. Other Important Details: anything else needed to continue (commands that work, "
    "settings, the user's preferences, open questions).\n"
    "\n";

static const char instruction_xml[] =
    "Answer ONLY with the summarize_task tool, the summary in its context parameter:\n"
    "<summarize_task>\n"
    "<context>\n"
    "1. Primary Request and Intent:\n"
    "   ...\n"
    "...\n"
    "9. Required Files:\n"
    "   - src/main.c\n"
    "10. Other Important Details:\n"
    "   ...\n"
    "</context>\n"
    "</summarize_task>\n";

static const char instruction_native[] =
    "Answer ONLY by calling the summarize_task tool with the summary in its context "
    "parameter (sections \"1. Primary Request and Intent:\" to \"10. Other Important "
    "Details:\", the required files listed as \"- path\" under \"9. Required Files:\").\n";

void summarize_task_instruction(bool native, buf *out)
{
    buf_puts(out, SUMMARIZE_TASK_INSTRUCTION_TAG);
    buf_putc(out, '\n');
    buf_puts(out, instruction_body);
    buf_puts(out, native ? instruction_native : instruction_xml);
    buf_puts(out, "If the task is already complete, you may use attempt_completion instead.\n"
                  "</explicit_instructions>");
}

/* ---- the "Required Files" section ------------------------------------------------------- */

static const char *skip_spaces(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

/* The first c in [s, end), or NULL. */
static const char *find_char(const char *s, const char *end, char c)
{
    for (; s < end; s++)
        if (*s == c)
            return s;
    return NULL;
}

/* Past a heading's decoration: '#', '*', '_' and "N." / "N)". */
static const char *skip_heading_marks(const char *s, const char *end)
{
    for (;;) {
        s = skip_spaces(s, end);
        if (s < end && (*s == '#' || *s == '*' || *s == '_')) {
            s++;
            continue;
        }
        const char *d = s;
        while (d < end && isdigit((unsigned char)*d))
            d++;
        if (d > s && d < end && (*d == '.' || *d == ')')) {
            s = d + 1;
            continue;
        }
        return s;
    }
}

static bool starts_with_ci(const char *s, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - s) >= n && strncasecmp(s, word, n) == 0;
}

/* A line that opens another numbered section ("10. Other Important Details:", "## 10."):
 * unindented, a number, then words (a numbered path like "1. src/a.c" is an item). */
static bool is_next_section(const char *line, const char *end)
{
    if (line < end && (*line == ' ' || *line == '\t'))
        return false;
    const char *s = line;
    while (s < end && (*s == '#' || *s == '*'))
        s++;
    s = skip_spaces(s, end);
    const char *d = s;
    while (d < end && isdigit((unsigned char)*d))
        d++;
    if (d == s || d >= end || (*d != '.' && *d != ')'))
        return line < end && *line == '#';
    return find_char(skip_spaces(d + 1, end), end, ' ') != NULL;
}

/* The path an item line names: the first `quoted` part, else its first word, without
 * list marks and trailing punctuation. NULL when it names none. */
static char *item_path(const char *s, const char *end)
{
    s = skip_spaces(s, end);
    if (s < end && (*s == '-' || *s == '*' || *s == '+'))
        s++;
    else if (end - s >= 3 && memcmp(s, "\xe2\x80\xa2", 3) == 0) /* • */
        s += 3;
    else {
        const char *d = s;
        while (d < end && isdigit((unsigned char)*d))
            d++;
        if (d > s && d < end && (*d == '.' || *d == ')'))
            s = d + 1;
    }
    s = skip_spaces(s, end);
    const char *tick = find_char(s, end, '`');
    const char *close = tick ? find_char(tick + 1, end, '`') : NULL;
    const char *from = s, *to;
    if (close) {
        from = tick + 1;
        to = close;
    } else {
        to = from;
        while (to < end && *to != ' ' && *to != '\t')
            to++;
    }
    while (from < to && (*from == '"' || *from == '\'' || *from == '*'))
        from++;
    while (to > from && strchr(":,;\"'*", to[-1]))
        to--;
    size_t n = (size_t)(to - from);
    if (n == 0 || n > 4096 || (n == 4 && strncasecmp(from, "none", 4) == 0) ||
        (n == 3 && strncasecmp(from, "n/a", 3) == 0) ||
        (n >= 5 && strncasecmp(from, "(none", 5) == 0))
        return NULL;
    return strndup(from, n);
}

static void add_path(char **out, size_t cap, size_t *n, char *path)
{
    if (!path)
        return;
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(out[i], path) == 0) {
            free(path);
            return;
        }
    }
    if (*n < cap)
        out[(*n)++] = path;
    else
        free(path);
}

/* "9. Required Files: a.c, b.c" on the heading line itself. */
static void add_inline_items(const char *s, const char *end, char **out, size_t cap, size_t *n)
{
    while (s < end && *n < cap) {
        const char *comma = find_char(s, end, ',');
        const char *stop = comma ? comma : end;
        add_path(out, cap, n, item_path(s, stop));
        s = comma ? comma + 1 : end;
    }
}

size_t summarize_task_required_files(const char *summary, char **out, size_t cap)
{
    size_t n = 0;
    bool inside = false;
    const char *line = summary;
    while (line && *line && n < cap) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        if (!inside) {
            const char *h = skip_heading_marks(line, end);
            if (starts_with_ci(h, end, "required files")) {
                inside = true;
                h += strlen("required files");
                while (h < end && (*h == ':' || *h == '*' || *h == ' '))
                    h++;
                add_inline_items(h, end, out, cap, &n);
            }
        } else if (is_next_section(line, end)) {
            break;
        } else if (skip_spaces(line, end) < end) {
            add_path(out, cap, &n, item_path(line, end));
        }
        line = nl ? nl + 1 : NULL;
    }
    return n;
}

/* ---- the continuation ----------------------------------------------------------------- */

typedef struct file_budget {
    size_t listed; /* paths looked at */
    size_t read;   /* files included */
    size_t chars;  /* bytes of content included */
} file_budget;

/* Why the file cannot be included, or NULL when *text holds its content (caller frees). */
static const char *read_required(tool_env *env, const ignore *ig, const ws_path *wp,
                                 const file_budget *b, char **text, size_t *len)
{
    if (b->read >= SUMMARIZE_FILES_READ)
        return "more files than are read automatically";
    if (!env->auto_approved || !env->auto_approved(env, "read", wp->outside))
        return "reading files needs the user's approval in this session";
    if (ws_ignored(ig, wp, false))
        return "blocked by .clineignore";
    struct stat st;
    int fd = -1;
    if (ws_open_file(env->cwd, wp, &fd, &st, NULL) != HEW_OK || fd < 0)
        return "not found";
    const char *why = NULL;
    if (ws_link_check(env->cwd, ig, &st) != WS_LINK_OK)
        why = "blocked by .clineignore (a hard link of an ignored file)";
    else if ((size_t)st.st_size > SUMMARIZE_FILES_CHARS - b->chars)
        why = "too large to include with the summary";
    else if (fs_read_fd(fd, wp->rel, SUMMARIZE_FILES_CHARS - b->chars, text, len, NULL) != HEW_OK)
        why = "could not be read";
    close(fd);
    if (why)
        return why;
    if (memchr(*text, '\0', *len < BINARY_PROBE ? *len : BINARY_PROBE)) {
        free(*text);
        *text = NULL;
        return "a binary file";
    }
    return NULL;
}

static void append_file(buf *out, const char *rel, const char *text, size_t len)
{
    buf_printf(out, "\n\n<file_content path=\"%s\">\n", rel);
    utf8_sanitize(text, len, out);
    if (len && text[len - 1] != '\n')
        buf_putc(out, '\n');
    buf_puts(out, "</file_content>");
}

static void append_required_files(tool_env *env, const char *summary, buf *out)
{
    char *paths[SUMMARIZE_FILES_LISTED];
    size_t n = summarize_task_required_files(summary, paths, SUMMARIZE_FILES_LISTED);
    if (n == 0)
        return;
    ignore *ig = NULL;
    ignore_load_cline(env->cwd, &ig, NULL);
    buf skipped = BUF_INIT(0);
    file_budget b = { 0, 0, 0 };
    for (size_t i = 0; i < n; i++, b.listed++) {
        ws_path wp = WS_PATH_INIT;
        char *text = NULL;
        size_t len = 0;
        const char *why = ws_resolve(env->cwd, paths[i], &wp, NULL) != HEW_OK
                              ? "not found"
                              : read_required(env, ig, &wp, &b, &text, &len);
        if (why) {
            buf_printf(&skipped, "\n- %s (%s)", wp.rel ? wp.rel : paths[i], why);
        } else {
            if (b.read == 0)
                buf_puts(out, "\n\nThe required files, as they are now:");
            append_file(out, wp.rel, text, len);
            b.read++;
            b.chars += len;
        }
        free(text);
        ws_path_release(&wp);
        free(paths[i]);
    }
    if (skipped.len) {
        buf_puts(out, "\n\nRequired files not included here (read them with read_file if you "
                      "need them):");
        buf_append(out, skipped.data, skipped.len);
    }
    buf_release(&skipped);
    ignore_free_chain(ig);
}

void summarize_task_continuation(tool_env *env, const char *summary, buf *out)
{
    buf_puts(out, SUMMARIZE_TASK_CONTINUATION_START);
    buf_puts(out, " The conversation is summarized below:\n");
    buf_puts(out, summary);
    buf_puts(out, "\n\nGo on with the conversation from where it stopped, without asking the "
                  "user further questions: continue the last task you were asked to work "
                  "on.");
    append_required_files(env, summary, out);
}

/* ---- the tool ------------------------------------------------------------------------------ */

static json_t *summary_data(const char *summary)
{
    json_t *data = ws_tool_data("summarizeTask", NULL);
    ws_data_put(data, "content", summary);
    return data;
}

static void partial(tool_env *env, const tool_call *call)
{
    const char *summary = tool_call_param(call, "context");
    json_t *data = summary_data(summary ? summary : "");
    env->say(env, "tool", NULL, data, 1);
    json_decref(data);
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *summary = tool_call_param(call, "context");
    if (!env->accept_summary || !env->accept_summary(env)) {
        tool_result_error(out, "No summary was asked for: summarize_task is only for the "
                               "request that asks for one. Go on with the task.");
        return HEW_OK;
    }
    json_t *data = summary_data(summary);
    env->say(env, "tool", NULL, data, 0);
    json_decref(data);
    summarize_task_continuation(env, summary, &out->text);
    out->no_prefix = true; /* the text the conversation goes on from, as is */
    return HEW_OK;
}

const tool_def tool_summarize_task = {
    .name = "summarize_task",
    .description =
        "Give the structured summary of the conversation that was asked for because the "
        "context window is nearly full; the conversation then goes on from the summary.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY | TOOL_SUMMARY,
    .run = run,
    .partial = partial,
};
