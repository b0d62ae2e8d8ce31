/* embed.c — an embedding program, as a user of libhew writes one: only <hew.h>, built
 * against the INSTALLED header and library (tests/e2e/embed.sh compiles it twice, with
 * libhew.so and with libhew.a). It checks the library's version against the header's,
 * the error contract on a call that fails, and runs one task against the fake provider
 * (argv[1]) in the workspace argv[2], with hew's data in argv[3]. It prints "embed: ok"
 * and exits 0, or says what broke and exits 1. Never touches anything outside argv[2..3]. */
#include <hew.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "embed: %s:%d: expected %s\n", __FILE__, __LINE__, #cond);     \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* The callback answers the completion (yes: the task ends completed). */
static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    (void)ud;
    if (ev->is_ask && !ev->partial && strcmp(ev->type, "completion_result") == 0)
        EXPECT(hew_task_respond(t, HEW_ANSWER_YES, NULL) == HEW_OK);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: embed BASE_URL WORKSPACE DATA_DIR\n");
        return 2;
    }
    /* The library this program runs with is the one it was compiled for. */
    EXPECT(hew_version_number() / 1000 == HEW_VERSION_NUMBER / 1000);
    EXPECT(strcmp(hew_version(), HEW_VERSION) == 0);
    /* Every code has a name and a meaning. */
    for (int c = 0; c < HEW_CODE_COUNT; c++) {
        EXPECT(strcmp(hew_code_name((hew_code)c), "unknown") != 0);
        EXPECT(strcmp(hew_strerror((hew_code)c), "unknown error code") != 0);
    }

    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-embed";
    o.api_key = "embed-test-key";
    o.base_url = argv[1];
    o.cwd = argv[2];
    o.data_dir = argv[3];
    o.retry_base_delay_ms = 10;
    o.mcp = 0;
    o.on_event = on_event;

    /* A call that fails: a code, a message, and nothing made. */
    char err[512] = "";
    hew_session *bad = (hew_session *)&o; /* not NULL: must be set to NULL */
    hew_options wrong = o;
    wrong.provider = "no-such-provider";
    EXPECT(hew_session_new(&wrong, &bad, err, sizeof err) == HEW_E_INVALID);
    EXPECT(bad == NULL);
    EXPECT(strstr(err, "no-such-provider") != NULL);

    hew_session *s = NULL;
    hew_code rc = hew_session_new(&o, &s, err, sizeof err);
    if (rc != HEW_OK) {
        fprintf(stderr, "embed: session: %s (%s)\n", err, hew_code_name(rc));
        return 1;
    }
    hew_task *t = NULL;
    rc = hew_task_start(s, "Paint the shed", &t, err, sizeof err);
    if (rc != HEW_OK) {
        fprintf(stderr, "embed: task: %s (%s)\n", err, hew_code_name(rc));
        hew_session_free(s);
        return 1;
    }
    EXPECT(hew_task_wait(t) == HEW_TASK_COMPLETED);
    EXPECT(strcmp(hew_task_result(t), "The shed is blue.") == 0);
    EXPECT(hew_task_respond(t, HEW_ANSWER_YES, NULL) == HEW_E_STATE); /* nothing pending */

    /* What hew hands out is released with hew_free. */
    char *js = NULL;
    rc = hew_history_task_json(&o, hew_task_id(t), 0, &js, err, sizeof err);
    EXPECT(rc == HEW_OK && js && strstr(js, "\"completed\""));
    hew_free(js);
    EXPECT(hew_history_task_json(&o, "no-such-task", 0, &js, err, sizeof err) ==
           HEW_E_NOTFOUND);
    EXPECT(js == NULL);

    hew_task_free(t);
    hew_session_free(s);
    if (failures)
        return 1;
    printf("embed: ok (libhew %s)\n", hew_version());
    return 0;
}
