/* fakeprov — start and stop hew-fake-provider from a C test.
 *
 *   fakeprov fp;
 *   if (fakeprov_start(&fp, "{\"responses\": [{\"protocol\": \"anthropic\", \"text\": \"hi\"}]}"))
 *       return;                       // message already on stderr
 *   ... point the client at fp.url ...
 *   json_t *reqs = fakeprov_requests(&fp);   // what the client sent, one entry per request
 *   json_decref(reqs);
 *   fakeprov_stop(&fp);
 *
 * fakeprov_start() writes the scenario text into a new mkdtemp directory
 * (scenario.json), replacing every "@FIXTURES@" with the tests/fixtures path; when the
 * scenario is a JSON object without "base_dir", it sets "base_dir" to the fixtures path
 * so relative file names ("providers/anthropic_text_tool_use.sse") resolve there. It
 * starts HEW_FAKE_PROVIDER with --port 0 --record DIR/requests.jsonl (and --quiet, unless
 * the environment has HEW_FAKE_VERBOSE) and reads the URL line within 15 seconds.
 * The child is spawned with fork+execv; its stderr is the test's stderr.
 *
 * Never uses a shell; never leaves the child running after fakeprov_stop(). */
#ifndef HEW_TEST_FAKEPROV_H
#define HEW_TEST_FAKEPROV_H

#include <jansson.h>

typedef struct fakeprov {
    int pid;
    int port;
    char url[64];
    char dir[256];
    char record_path[300];
} fakeprov;

/* 0 on success; -1 with a message on stderr (nothing left running, nothing left on disk). */
int fakeprov_start(fakeprov *fp, const char *scenario_json);

/* SIGTERM, wait (SIGKILL after 10 s), remove the temporary directory. */
void fakeprov_stop(fakeprov *fp);

/* Like fakeprov_stop(), and returns the provider's exit status: 0 for a clean shutdown
 * (under ASan a leak makes it non-zero), -1 when it had to be killed or did not exit. */
int fakeprov_stop_status(fakeprov *fp);

/* The recorded requests, as a new jansson array (empty when none); the caller decrefs.
 * NULL only when the record file cannot be read or parsed. */
json_t *fakeprov_requests(const fakeprov *fp);

/* How many recorded requests the strict provider refused (their record has "violation";
 * see docs/fake-provider.md, "Strict requests"), with the first one's message copied into
 * first (cap bytes, "" when none). -1 when the record cannot be read. A test that proves
 * a client sends only valid requests checks that this is 0. */
int fakeprov_violations(const fakeprov *fp, char *first, size_t cap);

#endif
