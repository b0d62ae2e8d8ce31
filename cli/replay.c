/* replay — `hew replay DIR [--cwd WS] [--json] [-v] [--pace]`: run a task recorded with
 * --record again, offline, through the library's replay (hew.h, "Replay"): the
 * recording's server answers, the task runs headless exactly as `hew -p` runs it
 * (headless.c, with the recording's options), and the verdict is printed. Parses
 * arguments and prints; the engine is in the library. Never contacts the recorded
 * provider, and never runs a recording that approves more than reading (edits, commands,
 * --yolo) without --trust-recording: its tool calls run for real.
 * Exit: the task's own status (headless.c) when every request matched the recording; 8
 * when one differed (stderr names it); 2 for a recording that cannot be used or bad
 * arguments. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "hew.h"

#define EXIT_DIVERGED 8

/* What the recording lets run without asking that changes something: its replay runs
 * the recorded model's calls of these for real (reads only reach the replay's own
 * server; MCP is off in a replay). A table: the option, and the words that name it. */
static const struct approval {
    size_t offset;
    const char *what;
} approvals[] = {
    { offsetof(hew_options, yolo), "everything (--yolo)" },
    { offsetof(hew_options, auto_approve_edit), "file edits" },
    { offsetof(hew_options, auto_approve_edit_outside), "file edits outside the workspace" },
    { offsetof(hew_options, auto_approve_safe_commands), "commands judged read-only" },
    { offsetof(hew_options, auto_approve_all_commands), "all commands" },
};

/* The recording's approvals beyond reading, as a list for a message; "" when none. */
static void approvals_of(const hew_replay *r, char *out, size_t n)
{
    hew_options o;
    hew_options_init(&o);
    hew_replay_apply(r, &o);
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof approvals / sizeof approvals[0]; i++)
        if (*(const int *)((const char *)&o + approvals[i].offset) && len < n) {
            int w = snprintf(out + len, n - len, "%s%s", len ? ", " : "", approvals[i].what);
            len += w > 0 ? (size_t)w : 0;
        }
}

static void usage(FILE *out)
{
    fputs("usage: hew replay DIR [--cwd WS] [--json] [-v] [--pace] [--trust-recording]\n"
          "Run the task recorded in DIR (hew --record DIR -p TASK) again, offline: a server on\n"
          "127.0.0.1 answers each request with the recorded answer once the request matches the\n"
          "recorded one. Tools run for real in WS (default: the current directory). Exits 8\n"
          "naming the first request that differs from the recording (man hew: REPLAY).\n"
          "--pace streams each answer at the recorded pace instead of at once.\n"
          "--trust-recording replays a recording that approves more than reading (edits,\n"
          "commands, --yolo): the recorded model's calls then run for real.\n",
          out);
}

int cli_replay(int argc, char **argv)
{
    const char *dir = NULL, *cwd = NULL;
    int json = 0, verbose = 0, pace = 0, trusted = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--trust-recording") == 0) {
            trusted = 1;
        } else if (strcmp(a, "--pace") == 0) {
            pace = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(a, "--cwd") == 0 && i + 1 < argc) {
            cwd = argv[++i];
        } else if (a[0] != '-' && !dir) {
            dir = a;
        } else {
            fprintf(stderr, "hew: replay: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "hew: replay: which recording? give its folder\n");
        usage(stderr);
        return 2;
    }
    char err[2048] = "";
    hew_replay *r = NULL;
    if (hew_replay_open(dir, &r, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: replay: %s\n", err);
        return 2;
    }
    char approved[512];
    approvals_of(r, approved, sizeof approved);
    if (*approved && !trusted) {
        fprintf(stderr,
                "hew: replay: %s was recorded approving %s: its replay runs the recorded "
                "model's calls of those for real in %s. Replay it only if you trust where the "
                "recording came from: pass --trust-recording\n",
                dir, approved, cwd ? cwd : "the current directory");
        hew_replay_free(r);
        return 2;
    }
    if (hew_replay_set_cwd(r, cwd, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: replay: %s\n", err);
        hew_replay_free(r);
        return 2;
    }
    hew_replay_set_paced(r, pace);
    /* The clock's time zone as recorded: the time the model is told reads the same. */
    const char *tz = hew_replay_tz(r);
    if (*tz) {
        setenv("TZ", tz, 1);
        tzset();
    }
    cli_options co;
    cli_parse_options(0, NULL, &co); /* the defaults */
    co.headless = 1;
    co.json = json;
    co.verbose = verbose;
    co.cwd = cwd;
    co.task = hew_replay_task_text(r);
    co.no_config = 1; /* the recording says how to run, not this machine's config */
    co.replay = r;
    int rc = cli_headless(&co);
    long matched = 0;
    if (hew_replay_finish(r, &matched, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: replay diverged: %s\n", err);
        rc = EXIT_DIVERGED;
    } else if (!json) {
        fprintf(stderr, "hew: replay: all %ld requests matched the recording\n", matched);
    }
    hew_replay_free(r);
    return rc;
}
