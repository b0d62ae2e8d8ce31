/* Unit tests for task/text_clean: what the user sees of a text block (seed 000 — thinking
 * tag strip, partial tag trim, the trailing code-fence tag of a final block). */
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "task/text_clean.h"

static void expect(const char *in, int partial, const char *want, int line)
{
    buf out = BUF_INIT(0);
    buf_puts(&out, "prefix:"); /* text_clean appends: what was there stays */
    text_clean(in, strlen(in), partial, &out);
    check_count++;
    if (strncmp(out.data, "prefix:", 7) != 0 || strcmp(out.data + 7, want) != 0)
        check_fail(__FILE__, line, "text_clean(\"%s\", %d) = \"%s\", want \"%s\"", in, partial,
                   out.data + 7, want);
    buf_release(&out);
}
#define EXPECT(in, partial, want) expect(in, partial, want, __LINE__)

static void test_thinking_tags_stripped(void)
{
    EXPECT("<thinking>plan</thinking> Hello", 0, "plan Hello");
    EXPECT("<thinking>\nplan\n</thinking>\nHello", 0, "plan\nHello");
    EXPECT("a <think>b</think> c", 0, "a b c");
    EXPECT("x<function_calls> y </function_calls>z", 0, "xyz");
    EXPECT("<thinking>  two spaces", 1, " two spaces"); /* only one space goes */
    EXPECT("no tags at all", 0, "no tags at all");
}

static void test_partial_tag_trimmed(void)
{
    EXPECT("Hello <thi", 1, "Hello");
    EXPECT("Hello </", 1, "Hello");
    EXPECT("Hello <", 1, "Hello");
    EXPECT("Hello </para", 1, "Hello");
    EXPECT("  Hello <read_fi", 1, "Hello"); /* trimmed on both sides, as Cline does */
    EXPECT("a < b", 1, "a");                /* Cline's rule: trimmed, "b" could be a tag */
    EXPECT("a < b", 0, "a < b");            /* but a final text keeps it (Cline cuts it) */
    EXPECT("Hello <thi", 0, "Hello <thi");
    EXPECT("x <3", 1, "x <3");              /* digits do not make a tag name */
    EXPECT("done <b>bold</b>", 1, "done <b>bold</b>");
}

static void test_trailing_fence_tag_removed_when_final(void)
{
    EXPECT("Run this:\n```bash", 0, "Run this:\n");
    EXPECT("Run this:\n```bash", 1, "Run this:\n```bash");
    EXPECT("code:\n```\nx\n```", 0, "code:\n```\nx\n```"); /* a closed fence stays */
    EXPECT("```c-lang_2", 0, "");
}

int main(void)
{
    RUN(test_thinking_tags_stripped);
    RUN(test_partial_tag_trimmed);
    RUN(test_trailing_fence_tag_removed_when_final);
    return check_report();
}
