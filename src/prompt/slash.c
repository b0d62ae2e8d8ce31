/* slash — finds the slash command of a user message and rewrites the message (see
 * slash.h). Reads workflow files only; it must never read a path built from anything but
 * the two workflow folders and a name of [A-Za-z0-9_.-] characters. */
#include "prompt/slash.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/fs.h"
#include "sys/path.h"
#include "base/utf8.h"

static const char *const slash_builtins[] = { "newtask", "smol", "compact", "newrule", "reportbug",
                                       NULL };

slash_opts slash_defaults(const char *cwd)
{
    return (slash_opts){ .cwd = cwd, .workflows = true, .global_dir = NULL, .disabled = NULL,
                         .xml_tools = false };
}

char *slash_global_dir(const slash_opts *o)
{
    if (o && o->global_dir && *o->global_dir)
        return strdup(o->global_dir);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/')
        return path_join(xdg, "hew/workflows");
    const char *home = getenv("HOME");
    if (home && *home)
        return path_join(home, ".config/hew/workflows");
    return NULL;
}

/* ---- the built-in instructions ---------------------------------------------------------- */

static void newtask_text(const slash_opts *o, buf *out)
{
    buf_puts(out,
             "<explicit_instructions type=\"new_task\">\n"
             "The user wants to go on in a new task that starts from the context of this "
             "one. Whatever else the message below says, answer it only with a call of the "
             "new_task tool; take what the user wrote into account in the context you "
             "write.\n\n"
             "The context parameter must let the new task carry on without this "
             "conversation. Cover, where they apply:\n"
             "1. Current work: what was being done just before this request, in detail; the "
             "latest messages matter most.\n"
             "2. Key technical concepts: the technologies, frameworks, conventions and "
             "decisions that the rest of the work depends on.\n"
             "3. Relevant files and code: the files looked at, changed or created, with the "
             "parts of the code that matter, latest changes first.\n"
             "4. Problem solving: the problems solved so far and those still open.\n"
             "5. Pending tasks and next steps: everything the user asked for that is not "
             "done yet, and the next steps you would take, with the user's own words quoted "
             "where they say what to do next, so that nothing is lost on the way.\n\n"
             "The user sees the context first and decides whether to start the new task.\n");
    if (o->xml_tools)
        buf_puts(out, "\nCall it like this:\n<new_task>\n<context>the context for the new "
                      "task</context>\n</new_task>\n");
    buf_puts(out, "\nThe user's message follows.\n</explicit_instructions>\n");
}

static void condense_text(const slash_opts *o, buf *out)
{
    buf_puts(out,
             "<explicit_instructions type=\"condense\">\n"
             "The user wants the conversation so far replaced by a detailed summary, to "
             "free room in the context window. Whatever else the message below says, "
             "answer it only with a call of the condense tool; take what the user wrote "
             "into account in the summary. (\"smol\" and \"compact\" mean the same thing.)\n\n"
             "The context parameter must let the work go on as if nothing had been "
             "dropped. Cover, where they apply:\n"
             "1. Previous conversation: what was discussed from the start, enough to follow "
             "how the conversation went.\n"
             "2. Current work: what was being done just before this request, in detail; the "
             "latest messages matter most.\n"
             "3. Key technical concepts: the technologies, frameworks, conventions and "
             "decisions that the rest of the work depends on.\n"
             "4. Relevant files and code: the files looked at, changed or created, why each "
             "matters, and the snippets of code that matter, latest changes first.\n"
             "5. Problem solving: the problems solved so far and those still open.\n"
             "6. Pending tasks and next steps: everything the user asked for that is not "
             "done yet, and the next steps you would take, with the user's own words quoted "
             "where they say what to do next, so that nothing is lost on the way.\n\n"
             "The user sees the summary first and decides whether to use it.\n");
    if (o->xml_tools)
        buf_puts(out, "\nCall it like this:\n<condense>\n<context>\n1. Previous conversation:\n"
                      "...\n2. Current work:\n...\n3. Key technical concepts:\n- ...\n"
                      "4. Relevant files and code:\n- path/to/file: why it matters, what "
                      "changed, the important code\n5. Problem solving:\n...\n"
                      "6. Pending tasks and next steps:\n- ...\n</context>\n</condense>\n");
    buf_puts(out, "\nThe user's message follows.\n</explicit_instructions>\n");
}

static void newrule_text(const slash_opts *o, buf *out)
{
    buf_puts(out,
             "<explicit_instructions type=\"new_rule\">\n"
             "The user wants a new rule file for this project, written from what this "
             "conversation has shown so far. Create it with write_to_file (in PLAN MODE "
             "too) inside the .clinerules/ folder at the top of the workspace; the folder "
             "is created if it does not exist. Never overwrite or change a rule file that "
             "already exists: pick a new name.\n\n"
             "The file:\n"
             "- is Markdown, named NAME.md, with a short name in lowercase words joined by "
             "hyphens that says what the rules are about (e.g. "
             ".clinerules/testing-conventions.md);\n"
             "- is split into sections with Markdown headings, the first one being "
             "\"## Brief overview\", and bullet points under each heading, with an example "
             "only where it makes a rule clearer;\n"
             "- records the preferences and conventions this conversation actually showed: "
             "coding style, naming, design patterns, preferred libraries and tools, "
             "testing, how much planning before coding, how to communicate with the user. "
             "Invent nothing a typical user might want, and do not retell the "
             "conversation;\n"
             "- stays short: rules, not prose.\n"
             "Write the complete file content in one call.\n");
    if (o->xml_tools)
        buf_puts(out, "\nFor example:\n<write_to_file>\n<path>.clinerules/project-preferences."
                      "md</path>\n<content>\n## Brief overview\n- [what these rules cover]\n\n"
                      "## Coding style\n- [rule]\n\n## Workflow\n- [rule]\n</content>\n"
                      "</write_to_file>\n");
    buf_puts(out, "\nThe user's message follows.\n</explicit_instructions>\n");
}

static void reportbug_text(buf *out)
{
    buf_puts(out,
             "<explicit_instructions type=\"report_bug\">\n"
             "The user wants to report a bug in hew. Help with that now, whatever the "
             "conversation was about before. A report needs:\n"
             "- title: a short description of the problem;\n"
             "- what happened: what went wrong, and what the user expected instead;\n"
             "- steps to reproduce: what to do to see the problem again;\n"
             "- API request output: the model's output that shows the problem (optional);\n"
             "- additional context: anything else that helps (optional).\n\n"
             "Fill in what the conversation already makes clear and suggest it to the "
             "user, but do not guess what the problem is when it is not clear. Ask the user "
             "for whatever is missing, naming the fields in plain words (\"steps to "
             "reproduce\", not \"steps_to_reproduce\"); \"N/A\" is fine for details the user "
             "does not know. When every required field is there, give the finished report "
             "as Markdown, with a heading per field, as your final answer (attempt_completion, "
             "or plan_mode_respond in PLAN MODE), so that the user can file it.\n"
             "\nThe user's message follows.\n</explicit_instructions>\n");
}

/* ---- finding the command ---------------------------------------------------------------- */

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

typedef struct found_cmd {
    size_t start;   /* where the removed part starts (blanks before the '/') */
    size_t end;     /* one past the name */
    size_t name;    /* offset of the name (after '/') */
} found_cmd;

/* A command at text[from..] (after blanks), followed by a blank, the end, or closing. */
static bool command_at(const char *text, size_t from, const char *closing, found_cmd *fc)
{
    size_t i = from;
    while (isspace((unsigned char)text[i]))
        i++;
    if (text[i] != '/')
        return false;
    size_t n = i + 1;
    while (name_char(text[n]))
        n++;
    if (n == i + 1)
        return false;
    bool ok = text[n] == '\0' ? closing == NULL
                              : isspace((unsigned char)text[n]) ||
                                    (closing && strncmp(text + n, closing, strlen(closing)) == 0);
    if (!ok)
        return false;
    *fc = (found_cmd){ from, n, i + 1 };
    return true;
}

/* The first <tag> whose content starts with a command and that is closed later. */
static bool command_in_tag(const char *text, const char *tag, found_cmd *fc)
{
    char open[32], close[32];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    for (const char *p = strstr(text, open); p; p = strstr(p + 1, open)) {
        size_t from = (size_t)(p - text) + strlen(open);
        if (command_at(text, from, close, fc) && strstr(text + fc->end, close))
            return true;
    }
    return false;
}

static bool builtin(const char *name)
{
    for (const char *const *b = slash_builtins; *b; b++)
        if (strcmp(*b, name) == 0)
            return true;
    return false;
}

static bool enabled(const slash_opts *o, const char *path)
{
    if (o->disabled)
        for (const char *const *d = o->disabled; *d; d++)
            if (strcmp(*d, path) == 0)
                return false;
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The workflow file for name (a new string), or NULL. */
static char *find_workflow(const slash_opts *o, const char *name)
{
    if (name[0] == '.')
        return NULL; /* no hidden files, no ".." */
    char *dirs[2] = { o->cwd ? path_join(o->cwd, ".clinerules/workflows") : NULL,
                      slash_global_dir(o) };
    char *hit = NULL;
    for (int d = 0; d < 2 && !hit; d++) {
        if (!dirs[d])
            continue;
        char *exact = path_join(dirs[d], name);
        buf md = BUF_INIT(0);
        buf_printf(&md, "%s/%s.md", dirs[d], name);
        if (exact && enabled(o, exact)) {
            hit = exact;
            exact = NULL;
        } else if (md.data && enabled(o, md.data)) {
            hit = buf_detach(&md, NULL);
        }
        free(exact);
        buf_release(&md);
    }
    free(dirs[0]);
    free(dirs[1]);
    return hit;
}

bool slash_known(const slash_opts *o, const char *name)
{
    if (!name || !*name)
        return false;
    for (const char *c = name; *c; c++)
        if (!name_char(*c))
            return false;
    if (builtin(name))
        return true;
    if (!o->workflows)
        return false;
    char *path = find_workflow(o, name);
    free(path);
    return path != NULL;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Read a workflow file's content, trimmed, into out. False when it cannot be read. */
static bool workflow_content(const char *path, buf *out)
{
    char *text = NULL;
    size_t len = 0;
    hew_code rc = fs_read_file(path, SLASH_WORKFLOW_MAX, &text, &len, NULL);
    bool cut = false;
    size_t size = 0;
    if (rc == HEW_E_TOOBIG) {
        struct stat st;
        if (stat(path, &st) != 0)
            return false;
        size = (size_t)st.st_size;
        /* read the head by hand: fs_read_file refuses files over its cap */
        FILE *f = fopen(path, "rbe");
        if (!f)
            return false;
        text = malloc(SLASH_WORKFLOW_MAX + 1);
        len = text ? fread(text, 1, SLASH_WORKFLOW_MAX, f) : 0;
        fclose(f);
        if (!text)
            return false;
        len = utf8_cut(text, len, len);
        text[len] = '\0';
        cut = true;
    } else if (rc != HEW_OK) {
        return false;
    }
    size_t i = 0, n = len;
    while (i < n && isspace((unsigned char)text[i]))
        i++;
    while (n > i && isspace((unsigned char)text[n - 1]))
        n--;
    utf8_sanitize(text + i, n - i, out);
    if (cut)
        buf_printf(out, "\n[hew: this workflow file is %zu bytes long; only its first %d "
                        "bytes are shown.]", size, SLASH_WORKFLOW_MAX);
    free(text);
    return true;
}

hew_code slash_rewrite(const char *text, const slash_opts *o, slash_result *out, hew_err *err)
{
    *out = (slash_result)SLASH_RESULT_INIT;
    if (!text)
        return HEW_OK;
    static const char *const tags[] = { "task", "feedback", "answer", "user_message" };
    found_cmd cands[5];
    size_t ncand = 0;
    if (command_at(text, 0, NULL, &cands[ncand]))
        ncand++;
    for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++)
        if (command_in_tag(text, tags[t], &cands[ncand]))
            ncand++;

    buf b = BUF_INIT(0);
    for (size_t c = 0; c < ncand; c++) {
        const found_cmd *fc = &cands[c];
        char *name = strndup(text + fc->name, fc->end - fc->name);
        if (!name)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        char *path = NULL;
        buf_reset(&b);
        if (builtin(name)) {
            if (strcmp(name, "newtask") == 0)
                newtask_text(o, &b);
            else if (strcmp(name, "smol") == 0 || strcmp(name, "compact") == 0)
                condense_text(o, &b);
            else if (strcmp(name, "newrule") == 0)
                newrule_text(o, &b);
            else
                reportbug_text(&b);
            out->kind = SLASH_BUILTIN;
            out->newrule = strcmp(name, "newrule") == 0;
        } else if (o->workflows && (path = find_workflow(o, name)) != NULL) {
            buf_printf(&b, "<explicit_instructions type=\"%s\">\n", base_name(path));
            if (!workflow_content(path, &b)) {
                free(path);
                free(name);
                continue;
            }
            buf_puts(&b, "\n</explicit_instructions>\n");
            out->kind = SLASH_WORKFLOW;
        } else {
            free(name);
            continue;
        }
        buf_append(&b, text, fc->start);
        buf_puts(&b, text + fc->end);
        out->command = name;
        out->path = path;
        out->text = buf_detach(&b, NULL);
        buf_release(&b);
        if (!out->text) {
            slash_result_release(out);
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        }
        return HEW_OK;
    }
    buf_release(&b);
    return HEW_OK;
}

void slash_result_release(slash_result *r)
{
    free(r->command);
    free(r->path);
    free(r->text);
    *r = (slash_result)SLASH_RESULT_INIT;
}
