/* Differential test of tools/cmdpolicy against bash itself: lines made of shell pieces
 * (quotes, $'…', backticks, $( ), here-documents, backslash-newlines, comments, reserved
 * words, wrappers) around programs that must never run unasked are judged; every line
 * the policy calls safe (inside the workspace) is then run by a restricted bash (`bash -r`:
 * no output redirection, no cd, no exec) whose PATH holds only logging stand-ins for
 * those programs. If a stand-in logs, the policy read the line differently from bash: a
 * way past it. The lines come from a fixed seed, plus the ones this found before. The
 * stand-ins do nothing but log; nothing outside the test's directory is touched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "tmpdir.h"
#include "tools/cmdpolicy.h"
#include "sys/proc.h"

/* Programs that are not read-only: if bash runs one for a safe line, the policy is wrong. */
static const char *const standins[] = { "evil", "rm", "touch", "curl", "make", "tee",
                                        "wget", "chmod", "mv", "cp", "dd" };

static const char *const pieces[] = {
    "ls", "echo a", "cat", "evil", "rm x", "cat <<EOF\n", "cat <<'EOF'\n", "cat <<-EOF\n",
    "EOF\n", "\tEOF\n", "EO\\\nF\n", "\\\n", "\n", "'", "\"", "$'", "\\'", "\\\\", "`", "\\`",
    "$(", ")", "(", "#", ";", "|", "&&", "||", "&", " ", " ", " ", "{ ", " }", "${x}", "$x",
    "$((1))", "<<<", "2>&1", ">/dev/null", "<", "x", "-n", "--", "*", "?", "~", "=", "a=b ",
    "$\"", "\\n", "\\x65vil", "e\\vil", "ev''il", "if ", "then ", "fi", "do ", "done",
    "for i in 1; ", "eval ", "command ", "sh -c ", "bash -c ", "exec ", "env ", "xargs ",
    "timeout 1 ", "time ", "!", "<(", ">(", "$[", "]", "[", "{a,b}", "\\\"", "\"`", "`\"",
    "$'\\''", "$'\\\\'", "$'\\x27'", "cat <<$'EOF'\n", "cat <<E\\OF\n", "cat <<\"E\"OF\n",
    "cat <<EOF;", "cat <<EOF <<X\n", "X\n", "EOF\\\n", " # ", "#'", "#\"", "$( ", "`echo ",
    "$(echo ", "\"$(", "'$(", "${x:-", "}", "$#", "$?",
};

/* Lines that got past an earlier version of the policy. */
static const char *const found[] = {
    "cat <<EOF\nEO\\\nF\nevil\nEOF\n",            /* bash joins a body's continuation lines */
    "cat <<-EOF\n`${x}e\\vil`then ;",             /* an unterminated body still expands */
    "echo \"`echo \\\" ' \\\" ; evil ; \\\" ' \\\"`\"", /* \" in backticks in double quotes */
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static char *dir, *ws, *shims, *logfile, *home;
static int ran_safe, wrong;

static bool path_exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static void make_standins(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/_standin", shims);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("#!/bin/bash\nprintf '%s\\n' \"${0##*/} $*\" >>\"$LOG\"\n", f);
    fclose(f);
    REQUIRE(chmod(path, 0755) == 0);
    for (size_t i = 0; i < sizeof standins / sizeof standins[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", shims, standins[i]);
        REQUIRE(symlink("_standin", path) == 0);
    }
}

/* Run a line in a restricted bash; true when a stand-in ran (what is in *what). */
static bool run_in_bash(const char *line, char *what, size_t cap)
{
    unlink(logfile);
    char env_path[4200], env_log[4200], env_home[4200];
    snprintf(env_path, sizeof env_path, "PATH=%s", shims);
    snprintf(env_log, sizeof env_log, "LOG=%s", logfile);
    snprintf(env_home, sizeof env_home, "HOME=%s", home);
    const char *envp[] = { env_path, env_log, env_home, "LANG=C", NULL };
    const char *argv[] = { "/bin/bash", "-r", "-c", line, NULL };
    proc_opts po = { .argv = argv, .cwd = ws, .envp = envp, .timeout_ms = 5000 };
    buf out = BUF_INIT(1 << 16);
    proc_status st;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(proc_run(&po, &out, NULL, &st, &err), HEW_OK);
    buf_release(&out);
    what[0] = '\0';
    if (!path_exists(logfile))
        return false;
    FILE *f = fopen(logfile, "r");
    if (f) {
        if (!fgets(what, (int)cap, f))
            what[0] = '\0';
        fclose(f);
    }
    return true;
}

/* Judge a line; when it is safe, bash must not run a stand-in for it. */
static void judge_and_run(const cmdpolicy_opts *o, const char *line)
{
    cmdpolicy_verdict v;
    cmdpolicy_judge(o, line, &v);
    if (v.decision != CMDPOLICY_SAFE || v.outside)
        return;
    char what[512];
    ran_safe++;
    if (run_in_bash(line, what, sizeof what)) {
        wrong++;
        check_fail(__FILE__, __LINE__, "the policy called this safe, but bash ran %s: %s",
                   what, line);
    }
}

static void test_against_bash(void)
{
    if (access("/bin/bash", X_OK) != 0) {
        printf("skip: no /bin/bash\n");
        return;
    }
    make_standins();
    cmdpolicy_opts o = { ws, "/bin/bash", NULL, NULL };
    for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
        cmdpolicy_verdict v;
        cmdpolicy_judge(&o, found[i], &v);
        CHECK_INT(v.decision, CMDPOLICY_ASK);
        /* and bash does run the stand-in: each was a real way past a wrong reading */
        char what[512];
        CHECK(run_in_bash(found[i], what, sizeof what));
        CHECK(strncmp(what, "evil", 4) == 0);
    }
    int lines = 0;
    char line[1024];
    for (int n = 0; n < 12000; n++) {
        size_t len = 0;
        int count = 2 + (int)(next_rand() % 11);
        for (int k = 0; k < count; k++) {
            const char *p = pieces[next_rand() % (sizeof pieces / sizeof pieces[0])];
            size_t pl = strlen(p);
            if (len + pl >= sizeof line)
                break;
            memcpy(line + len, p, pl);
            len += pl;
        }
        line[len] = '\0';
        judge_and_run(&o, line);
        lines++;
    }
    printf("%d lines, %d judged safe and run by bash, %d ran what they must not\n", lines,
           ran_safe, wrong);
    CHECK(ran_safe > 100); /* the test tests something */
}

int main(void)
{
    dir = tmpdir_make("cmdpolicy-bash");
    if (!dir)
        return 1;
    size_t n = strlen(dir) + 16;
    ws = malloc(n);
    shims = malloc(n);
    logfile = malloc(n);
    home = malloc(n);
    snprintf(ws, n, "%s/ws", dir);
    snprintf(shims, n, "%s/bin", dir);
    snprintf(logfile, n, "%s/log", dir);
    snprintf(home, n, "%s/home", dir);
    if (mkdir(ws, 0700) != 0 || mkdir(shims, 0700) != 0 || mkdir(home, 0700) != 0)
        return 1;
    RUN(test_against_bash);
    tmpdir_remove(dir);
    free(dir);
    free(ws);
    free(shims);
    free(logfile);
    free(home);
    return check_report();
}
