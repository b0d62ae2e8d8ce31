/* cli_mdrender — the terminal's markdown (cli/mdrender.c, mdtable.c, syntax.c, textw.c):
 * widths of emoji and wide characters; tables fitted to the width (every line within it,
 * borders on the same columns on every line, words whole, the header bold, alignment
 * kept) or shown as a list when the columns would be too narrow; code blocks with their
 * language label and coloured keywords, strings, comments and numbers, the text itself
 * never changed by the colouring (random lines in every language); a long block shown in
 * two goes looking as it does at once; a question's inline markdown; no escape at all
 * when colour is off. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mdrender.h"
#include "mdtable.h"
#include "syntax.h"
#include "textw.h"

static char *render(const char *md, size_t width, int color)
{
    sbuf out = SBUF_INIT;
    mdr_opts o = { width, color, NULL, NULL };
    int first = 1;
    if (mdr_render(&out, md, strlen(md), &o, &first) != 0)
        check_fail(__FILE__, __LINE__, "md4c refused the text");
    return out.data ? sbuf_detach(&out) : calloc(1, 1);
}

static size_t w(const char *s)
{
    return textw_width(s, strlen(s));
}

static void test_widths(void)
{
    CHECK_INT(w("\xe2\x9a\xa0\xef\xb8\x8f"), 2);           /* ⚠️: VS16, emoji presentation */
    CHECK_INT(w("\xe2\x9a\xa0"), 1);                       /* ⚠ alone: text presentation */
    CHECK_INT(w("\xe4\xb8\xad\xe6\x96\x87"), 4);           /* 中文 */
    CHECK_INT(w("e\xcc\x81"), 1);                          /* e + combining acute */
    CHECK_INT(w("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd"), 2);   /* 👍🏽 */
    CHECK_INT(w("\xf0\x9f\x87\xab\xf0\x9f\x87\xb7"), 2);   /* 🇫🇷 */
    CHECK_INT(w("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"),
              2);                                          /* 👨‍👩‍👧 */
    CHECK_INT(w("\033[1;31mab\033[0m"), 2);
    int cols;
    CHECK_INT(textw_char("\xe2\x9a\xa0\xef\xb8\x8fx", 7, &cols), 6);
    CHECK_INT(cols, 2);
}

static const char wide_table[] =
    "| Name | Status | Description of the thing | Owner |\n"
    "|:-----|:------:|-------------------------:|-------|\n"
    "| parser | \xe2\x9a\xa0\xef\xb8\x8f flaky | Parses the incoming stream of server-sent events "
    "into messages for the agent loop | alice |\n"
    "| store | \xe2\x9c\x85 ok | Keeps **tasks** and `checkpoints` on disk in an append-only "
    "log | bob |\n"
    "| \xe4\xb8\xad\xe6\x96\x87 | ok | short | carol |\n";

/* The display columns of the border characters (│ ┼) of a line, as a bit set. */
static unsigned long long borders(const char *line, size_t n)
{
    unsigned long long set = 0;
    size_t col = 0;
    for (size_t i = 0; i < n;) {
        if (line[i] == '\033') {
            i += textw_escape_len(line + i, n - i);
            continue;
        }
        if (n - i >= 3 && (memcmp(line + i, "\xe2\x94\x82", 3) == 0 ||
                           memcmp(line + i, "\xe2\x94\xbc", 3) == 0) && col < 64)
            set |= 1ull << col;
        int c;
        i += textw_char(line + i, n - i, &c);
        col += (size_t)c;
    }
    return set;
}

/* Every line within width; the lines with borders all have them on the same columns;
 * returns how many lines had borders. */
static int check_grid(const char *out, size_t width)
{
    unsigned long long first = 0;
    int rows = 0;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        if (!nl && textw_width(p, strlen(p)) == 0)
            break; /* the closing reset */
        if (!nl) {
            check_fail(__FILE__, __LINE__, "a line without its newline: %s", p);
            break;
        }
        size_t n = (size_t)(nl - p);
        if (textw_width(p, n) > width)
            check_fail(__FILE__, __LINE__, "line wider than %zu: %.*s", width, (int)n, p);
        unsigned long long b = borders(p, n);
        if (b) {
            if (!rows)
                first = b;
            else if (b != first)
                check_fail(__FILE__, __LINE__, "borders moved on: %.*s", (int)n, p);
            rows++;
        }
        p = nl + 1;
    }
    return rows;
}

static void test_wide_table_fits(void)
{
    for (int color = 0; color <= 1; color++) {
        char *out = render(wide_table, 60, color);
        /* header, rule, and the rows wrapped: more lines than rows, all aligned */
        CHECK(check_grid(out, 60) > 5);
        /* words wrap whole: each of these fits its column, so none is cut */
        static const char *const words[] = { "Description", "server-sent", "incoming",
                                             "messages", "append-only", "checkpoints",
                                             "\xe2\x9a\xa0\xef\xb8\x8f flaky" };
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (!strstr(out, words[i]))
                check_fail(__FILE__, __LINE__, "\"%s\" cut (colour %d):\n%s", words[i], color,
                           out);
        free(out);
    }
}

static void test_header_bold_alignment(void)
{
    char *out = render(wide_table, 60, 1);
    CHECK(strstr(out, "\033[1mName") != NULL); /* the first header cell too */
    CHECK(strstr(out, "\033[1mStatus") != NULL);
    CHECK(strstr(out, "\033[1mOwner") != NULL);
    free(out);
    /* a span in a header cell keeps it bold after the span */
    out = render("| `id` and more | b |\n|---|---|\n| 1 | 2 |\n", 60, 1);
    const char *after = strstr(out, "id");
    REQUIRE(after != NULL);
    const char *reset = strstr(after, "\033[0m");
    REQUIRE(reset != NULL);
    CHECK(strncmp(reset, "\033[0m\033[1m and", 12) == 0);
    free(out);
    out = render("| left | center | right |\n|:--|:-:|--:|\n| a | b | c |\n", 60, 0);
    CHECK_STR(out, "left │ center │ right\n"
                   "─────┼────────┼──────\n"
                   "a    │   b    │     c\n");
    free(out);
    /* alignment holds on every wrapped line */
    out = render("| x | y |\n|--:|:-:|\n| one two three | four five six |\n", 20, 0);
    CHECK_STR(out, "        x │    y\n"
                   "──────────┼─────────\n"
                   "  one two │   four\n"
                   "    three │ five six\n");
    free(out);
}

static void test_too_many_columns_become_a_list(void)
{
    const char *md = "| a | b | c | d | e | f | g | h | i | j |\n"
                     "|---|---|---|---|---|---|---|---|---|---|\n"
                     "| alpha beta | gamma | delta | epsilon | zeta | eta | theta | iota | "
                     "kappa | lambda |\n"
                     "| 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |\n";
    char *out = render(md, 40, 0);
    CHECK(strstr(out, "\xe2\x94\x82") == NULL); /* no column borders */
    CHECK(strstr(out, "a: alpha beta\nb: gamma\n") != NULL);
    CHECK(strstr(out, "j: lambda\n\na: 1\n") != NULL);
    CHECK_INT(check_grid(out, 40), 0);
    free(out);
    /* the wide table at 30 columns: a list, long values wrapped under their label */
    out = render(wide_table, 30, 0);
    CHECK(strstr(out, "\xe2\x94\x82") == NULL);
    CHECK(strstr(out, "Description of the thing:\n  Parses the incoming stream\n") != NULL);
    CHECK(strstr(out, "Owner: alice\n\nName: store\n") != NULL);
    CHECK_INT(check_grid(out, 30), 0);
    free(out);
    /* a table that fits stays a table */
    out = render("| k | v |\n|---|---|\n| 1 | 2 |\n", 40, 0);
    CHECK_STR(out, "k │ v\n──┼──\n1 │ 2\n");
    free(out);
}

/* The layout alone at widths too small for anything: it ends, every line within the width
 * where a character fits at all. */
static void test_table_tiny_widths(void)
{
    mdt_cell cells[] = {
        { "H\xe4\xb8\xad", 4, 0, MDT_LEFT, 1 }, { "k", 1, 0, MDT_RIGHT, 1 },
        { "\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87 xyz", 16, 1, MDT_LEFT, 0 },
        { "", 0, 1, MDT_CENTER, 0 },
    };
    for (size_t width = 1; width < 12; width++) {
        sbuf out = SBUF_INIT;
        mdt_render(&out, cells, 4, width, width % 2);
        REQUIRE(out.data != NULL && !out.err);
        if (width >= 2) /* within the width, borders (if any) aligned */
            check_grid(out.data, width);
        if (width < 8)
            CHECK(strstr(out.data, "\xe2\x94\x82") == NULL); /* a list */
        sbuf_release(&out);
    }
}

static void test_table_in_a_quote_fits(void)
{
    char *out = render("> | key | value |\n> |---|---|\n> | k | a value long enough to wrap "
                       "inside the quote at this width |\n",
                       30, 0);
    CHECK(check_grid(out, 30) >= 4);
    CHECK(strncmp(out, "\xe2\x94\x82 key", 6) == 0);
    free(out);
}

struct hl {
    const char *md, *want[6];
};

static const struct hl highlights[] = {
    { "```python\ndef f(x):\n    # note\n    return \"s\" + 42\n```\n",
      { "── python", "\033[35mdef\033[0m", "\033[2;3m# note\033[0m", "\033[35mreturn\033[0m",
        "\033[32m\"s\"\033[0m", "\033[33m42\033[0m" } },
    { "```c\n#include <stdio.h>\n/* a\n   b */ int main(void) { return 0; } // end\n```\n",
      { "── c", "\033[35m#include\033[0m", "\033[2;3m/* a\033[0m", "\033[2;3m   b */\033[0m",
        "\033[35mint\033[0m", "\033[2;3m// end\033[0m" } },
    { "```js\nconst s = `a\nb`; let n = 0x1F; // c\n```\n",
      { "── javascript", "\033[35mconst\033[0m", "\033[32m`a\033[0m", "\033[32mb`\033[0m",
        "\033[33m0x1F\033[0m", "\033[2;3m// c\033[0m" } },
    { "```go\nfunc main() { fmt.Println(\"hi\") }\n```\n",
      { "── go", "\033[35mfunc\033[0m", "\033[32m\"hi\"\033[0m", NULL } },
    { "```rust\nfn f<'a>(s: &'a str) -> char { 'x' }\n```\n",
      { "── rust", "\033[35mfn\033[0m", "\033[35mstr\033[0m", "\033[32m'x'\033[0m", NULL } },
    { "```sh\nif [ -n \"$HOME\" ]; then echo $USER # who\nfi\n```\n",
      { "── shell", "\033[35mif\033[0m", "\033[32m\"$HOME\"\033[0m", "\033[36m$USER\033[0m",
        "\033[2;3m# who\033[0m", "\033[35mfi\033[0m" } },
    { "```json\n{\"a\": \"b\", \"n\": 1.5, \"t\": true}\n```\n",
      { "── json", "\033[36m\"a\"\033[0m", "\033[32m\"b\"\033[0m", "\033[33m1.5\033[0m",
        "\033[35mtrue\033[0m", NULL } },
    { "```yaml\nname: hew # x\nitems:\n  - key: 'v'\n```\n",
      { "── yaml", "\033[36mname\033[0m", "\033[2;3m# x\033[0m", "\033[36mkey\033[0m",
        "\033[32m'v'\033[0m", NULL } },
    { "```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n```\n",
      { "── diff", "\033[31m-old\033[0m", "\033[32m+new\033[0m", "\033[36m@@ -1 +1 @@\033[0m",
        "\033[1m--- a/x\033[0m", NULL } },
    { "```java\npublic class A { String s = \"x\"; }\n```\n",
      { "── java", "\033[35mpublic\033[0m", "\033[35mclass\033[0m", "\033[32m\"x\"\033[0m",
        NULL } },
    { "```ruby\ndef hi = puts 'x' # c\n```\n",
      { "── ruby", "\033[35mdef\033[0m", "\033[32m'x'\033[0m", "\033[2;3m# c\033[0m", NULL } },
    { "```cpp\nnamespace n { auto x = nullptr; }\n```\n",
      { "── cpp", "\033[35mnamespace\033[0m", "\033[35mnullptr\033[0m", NULL } },
    { "```ts\ninterface P { name: string }\n```\n",
      { "── typescript", "\033[35minterface\033[0m", "\033[35mstring\033[0m", NULL } },
    { "```python\nx = \"\"\"doc\nstring\"\"\" + 1\n```\n",
      { "\033[32m\"\"\"doc\033[0m", "\033[32mstring\"\"\"\033[0m", "\033[33m1\033[0m", NULL } },
};

static void test_code_blocks(void)
{
    for (size_t i = 0; i < sizeof highlights / sizeof highlights[0]; i++) {
        char *out = render(highlights[i].md, 80, 1);
        for (size_t k = 0; k < 6 && highlights[i].want[k]; k++)
            if (!strstr(out, highlights[i].want[k]))
                check_fail(__FILE__, __LINE__, "case %zu: no \"%s\" in:\n%s", i,
                           highlights[i].want[k], out);
        free(out);
        /* colour off: the label and the code, no escape at all */
        out = render(highlights[i].md, 80, 0);
        CHECK(strchr(out, '\033') == NULL);
        if (strncmp(highlights[i].md, "```", 3) == 0 && highlights[i].want[0][0] != '\033')
            CHECK(strstr(out, highlights[i].want[0]) != NULL);
        free(out);
    }
    /* an unknown language: labelled, in one colour; no language: no label */
    char *out = render("```brainfuck\n+[-]\n```\n", 80, 1);
    CHECK(strstr(out, "── brainfuck") != NULL);
    CHECK(strstr(out, "\033[36m  +[-]") != NULL);
    free(out);
    out = render("```\nplain\n```\n", 80, 0);
    CHECK_STR(out, "  plain\n");
    free(out);
    /* the label never carries what the info string could smuggle */
    out = render("```py;rm -rf\nx\n```\n", 80, 0);
    CHECK_STR(out, "  ── python\n  x\n");
    free(out);
}

/* The text without its escape sequences. */
static char *visible(const char *s)
{
    size_t n = strlen(s);
    char *v = malloc(n + 1), *p = v;
    for (size_t i = 0; v && i < n;) {
        if (s[i] == '\033') {
            i += textw_escape_len(s + i, n - i);
            continue;
        }
        *p++ = s[i++];
    }
    if (v)
        *p = '\0';
    return v;
}

/* A long code block shown in two goes (its first lines before its end, as the terminal
 * does when they would not fit its live region, then the rest with the block reopened)
 * looks as it does rendered at once: label once, lines indented, the highlighter's state
 * (a string open across lines) carried over. */
static void test_open_block_goes_on(void)
{
    const char *head = "Intro\n\n```python\ndef a():\n    s = \"\"\"x\n";
    const char *rest = "y\"\"\" + 1\n    return 2\n```\n\nafter\n";
    for (int color = 0; color <= 1; color++) {
        sbuf whole = SBUF_INIT, split = SBUF_INIT;
        mdr_opts o = { 60, color, NULL, NULL };
        sbuf all = SBUF_INIT;
        sbuf_puts(&all, head);
        sbuf_puts(&all, rest);
        int first = 1;
        mdr_render(&whole, all.data, all.len, &o, &first);
        /* "Intro" is a finished block, rendered; the code's lines go up open */
        first = 1;
        mdr_render(&split, "Intro\n\n", 7, &o, &first);
        mdr_open op;
        memset(&op, 0, sizeof op);
        const char *code = head + 7;
        mdr_render_open(&split, code, strlen(code), &o, &op, &first);
        CHECK(op.fence != 0);
        CHECK_STR(op.lang, "python");
        mdr_opts go = { 60, color, NULL, &op };
        mdr_render(&split, rest, strlen(rest), &go, &first);
        char *a = visible(whole.data), *b = visible(split.data);
        REQUIRE(a && b);
        CHECK_STR(b, a);
        CHECK_STR(b, "Intro\n\n  ── python\n  def a():\n      s = \"\"\"x\n  y\"\"\" + 1\n"
                     "      return 2\n\nafter\n");
        if (color) {
            CHECK(strstr(split.data, "\033[32my\"\"\"\033[0m") != NULL); /* still a string */
            CHECK(strstr(split.data, "\033[35mreturn\033[0m") != NULL);
        }
        free(a);
        free(b);
        sbuf_release(&whole);
        sbuf_release(&split);
        sbuf_release(&all);
    }
}

/* A question's text: inline markdown rendered, no backticks, no newline at the end. */
static void test_text(void)
{
    char *q = mdr_text("Build it with `make` or **ninja**?", 60, 0);
    CHECK_STR(q, "Build it with make or ninja?");
    free(q);
    q = mdr_text("Build it with `make`?", 60, 1);
    REQUIRE(q != NULL);
    const char *code = strstr(q, "\033[36m"); /* inline code's colour, then the word */
    CHECK(code != NULL && strstr(code, "make") != NULL);
    CHECK(strchr(q, '`') == NULL);
    CHECK(strchr(q, '\n') == NULL);
    CHECK(strlen(q) >= 4 && strcmp(q + strlen(q) - 4, "\033[0m") == 0);
    free(q);
    q = mdr_text("", 60, 0);
    CHECK_STR(q, "");
    free(q);
}

/* Colouring only adds colour codes: whatever a line holds (quotes and comment marks left
 * open, escapes at its end), in every language, with the state carried from line to line,
 * the text without the codes is the line as it was. */
static void test_highlight_keeps_the_text(void)
{
    static const char *const names[] = { "c", "cpp", "cs", "java", "kotlin", "js", "ts",
                                         "go", "rust", "python", "ruby", "sh", "json",
                                         "yaml", "sql", "diff" };
    static const char alphabet[] = "ab_ 0x9.\"'`/*#-$:{}=\\\t+@[]é";
    unsigned seed = 7;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const syn_lang *l = syn_find(names[k], strlen(names[k]));
        REQUIRE(l != NULL);
        int state = 0;
        for (int line = 0; line < 400; line++) {
            char in[48];
            size_t n = 0;
            seed = seed * 1103515245u + 12345u;
            size_t len = (seed >> 16) % sizeof in;
            for (; n < len; n++) {
                seed = seed * 1103515245u + 12345u;
                in[n] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
            }
            in[n] = '\0';
            sbuf out = SBUF_INIT;
            syn_line(&out, l, in, n, &state, "\033[0m");
            sbuf_putc(&out, '\0');
            char *v = visible(out.data);
            REQUIRE(v != NULL);
            if (strcmp(v, in) != 0)
                check_fail(__FILE__, __LINE__, "%s changed \"%s\" into \"%s\"", names[k], in, v);
            free(v);
            sbuf_release(&out);
        }
    }
    CHECK(syn_find("PYTHON", 6) == syn_find("py", 2));
    CHECK(syn_find("cobol", 5) == NULL);
}

static void test_no_color_has_no_escapes(void)
{
    char *out = render(wide_table, 60, 0);
    CHECK(strchr(out, '\033') == NULL);
    free(out);
    out = render("# T\n\n**b** `c` [l](http://x)\n\n```c\nint x;\n```\n", 60, 0);
    CHECK(strchr(out, '\033') == NULL);
    free(out);
}

int main(void)
{
    RUN(test_widths);
    RUN(test_wide_table_fits);
    RUN(test_header_bold_alignment);
    RUN(test_too_many_columns_become_a_list);
    RUN(test_table_in_a_quote_fits);
    RUN(test_table_tiny_widths);
    RUN(test_code_blocks);
    RUN(test_open_block_goes_on);
    RUN(test_text);
    RUN(test_highlight_keeps_the_text);
    RUN(test_no_color_has_no_escapes);
    return check_report();
}
