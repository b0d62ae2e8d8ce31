/* cli_imgpaste — image paths in a prompt line (cli/imgpaste.c, compiled in): a bare path,
 * one in single or double quotes, one with backslash-escaped spaces and a file:// URL with
 * %20 are attached (punctuation after them is the sentence's) and replaced by "[image: NAME]" with a "[image: NAME WxH]" label; a
 * missing file, a text file named .png and other words stay as typed; past
 * HEW_TASK_IMAGES_MAX the rest stay text and are counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base64.h"
#include "check.h"
#include "imgpaste.h"

/* A 1x1 PNG. */
#define PNG1 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

static char dir[64];

static void put(const char *name, const void *data, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/hew-imgpaste-XXXXXX");
    if (!mkdtemp(dir))
        abort();
    size_t n = 0;
    bool bad = false;
    unsigned char *png = base64_decode(PNG1, strlen(PNG1), &n, &bad);
    put("shot.png", png, n);
    put("my shot.png", png, n);
    free(png);
    put("notes.png", "just text\n", 10);
}

static void scan(const char *line, imgpaste *p)
{
    if (imgpaste_scan(line, p) != 0)
        abort();
}

static void test_forms(void)
{
    char line[1024];
    imgpaste p;
    snprintf(line, sizeof line, "look at %s/shot.png please", dir);
    scan(line, &p);
    CHECK_INT(p.n, 1);
    CHECK_STR(p.text, "look at [image: shot.png] please");
    imgpaste_release(&p);
    snprintf(line, sizeof line, "see %s/shot.png.", dir);
    scan(line, &p);
    CHECK_INT(p.n, 1);
    CHECK_STR(p.text, "see [image: shot.png].");
    CHECK_STR(p.labels[0], "[image: shot.png 1x1]");
    char want[256];
    snprintf(want, sizeof want, "%s/shot.png", dir);
    CHECK_STR(p.paths[0], want);
    CHECK(p.images[0].path == p.paths[0] && !p.images[0].data); /* as the library takes it */
    imgpaste_release(&p);

    snprintf(want, sizeof want, "%s/my shot.png", dir);
    const char *forms[] = { "'%s/my shot.png'", "\"%s/my shot.png\"", "%s/my\\ shot.png",
                            "file://%s/my%%20shot.png" };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char word[300];
        snprintf(word, sizeof word, forms[i], dir);
        snprintf(line, sizeof line, "what is %s?", word);
        scan(line, &p);
        check_current = forms[i];
        CHECK_INT(p.n, 1);
        CHECK_STR(p.paths[0], want);
        CHECK_STR(p.text, "what is [image: my shot.png]?");
        imgpaste_release(&p);
    }
    /* two at once, text around them kept as typed */
    snprintf(line, sizeof line, "  compare %s/shot.png  and '%s/my shot.png' ", dir, dir);
    scan(line, &p);
    CHECK_INT(p.n, 2);
    CHECK_STR(p.text, "  compare [image: shot.png]  and [image: my shot.png] ");
    imgpaste_release(&p);
}

static void test_left_alone(void)
{
    char line[1024];
    imgpaste p;
    snprintf(line, sizeof line, "fix %s/missing.png and %s/notes.png, see shot.png's 'x'",
             dir, dir);
    scan(line, &p);
    CHECK_INT(p.n, 0);
    CHECK_STR(p.text, line);
    imgpaste_release(&p);
    scan("", &p);
    CHECK_INT(p.n, 0);
    CHECK_STR(p.text, "");
    imgpaste_release(&p);
    snprintf(line, sizeof line, "%s", "unclosed 'quote and a\\");
    scan(line, &p);
    CHECK_STR(p.text, line);
    imgpaste_release(&p);
}

static void test_too_many(void)
{
    char line[8192] = "";
    size_t len = 0;
    for (int i = 0; i < HEW_TASK_IMAGES_MAX + 2; i++)
        len += (size_t)snprintf(line + len, sizeof line - len, "%s/shot.png ", dir);
    imgpaste p;
    scan(line, &p);
    CHECK_INT(p.n, HEW_TASK_IMAGES_MAX);
    CHECK_INT(p.dropped, 2);
    imgpaste_release(&p);
}

int main(void)
{
    setup();
    RUN(test_forms);
    RUN(test_left_alone);
    RUN(test_too_many);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "%s/shot.png", dir);
    unlink(cmd);
    snprintf(cmd, sizeof cmd, "%s/my shot.png", dir);
    unlink(cmd);
    snprintf(cmd, sizeof cmd, "%s/notes.png", dir);
    unlink(cmd);
    rmdir(dir);
    return check_report();
}
