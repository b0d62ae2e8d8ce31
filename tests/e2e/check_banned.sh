#!/usr/bin/env bash
# scripts/check-banned: this checkout passes; in a tiny fake tree a banned call, a child
# process started outside sys/proc.c, a clock read outside sys/clock.c (and its few
# named exceptions), and a condition variable made or timed-waited outside sys/clock.c
# each make it fail, naming FILE:LINE (right also after a multi-line comment); the same
# names in comments and strings do not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=$here/../../scripts/check-banned
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# The real tree passes.
"$check" >/dev/null || fail "this checkout has banned calls (run scripts/check-banned)"

mk() { mkdir -p "$(dirname "$tmp/$1")"; printf '%s\n' "${@:2}" >"$tmp/$1"; }
# The homes may call what they own.
mk src/sys/proc.c 'int p(void) { return posix_spawnp(0, 0, 0, 0, 0, 0); }'
mk src/sys/clock.c 'void c(void) { clock_gettime(CLOCK_MONOTONIC, &ts);' \
    '  pthread_cond_init(&cv, &ca); pthread_condattr_setclock(&ca, 1);' \
    '  pthread_cond_timedwait(&cv, &mu, &ts); }'
mk src/base/log.c 'void l(void) { clock_gettime(CLOCK_REALTIME, &ts); }'
mk cli/clockms.c 'long long m(void) { clock_gettime(CLOCK_MONOTONIC, &ts); return 0; }'
# Names in comments and strings are not calls.
mk src/task/notes.c '/* fork() and clock_gettime() are' '   not called here */' \
    'const char *s = "pthread_cond_init(x)"; // gettimeofday(&tv)'
out=$("$check" "$tmp" 2>&1) || fail "a tree with calls only in their homes is refused: $out"

expect_refused() { # what file lines...
    local what=$1 file=$2 rc=0 out
    shift 2
    local saved=
    [[ -f $tmp/$file ]] && saved=$(cat "$tmp/$file")
    mkdir -p "$(dirname "$tmp/$file")"
    printf '%s\n' "$@" >>"$tmp/$file"
    out=$("$check" "$tmp" 2>&1) || rc=$?
    [[ $rc -eq 1 ]] || fail "$file: exit $rc, want 1 ($out)"
    [[ $out == *"$what"* ]] || fail "$file: the message does not name '$what': $out"
    if [[ -n $saved ]]; then printf '%s\n' "$saved" >"$tmp/$file"; else rm -f "$tmp/$file"; fi
    "$check" "$tmp" >/dev/null 2>&1 || fail "$file: the tree does not pass again after the test"
}

# A banned call (line 4: after the three lines of the file).
expect_refused "src/task/notes.c:4:" src/task/notes.c 'void f(char *d) { strcpy(d, "x"); }'
# A private clock: the line counted right after a multi-line comment.
expect_refused "src/task/notes.c:4:" src/task/notes.c \
    'long long now(void) { clock_gettime(CLOCK_MONOTONIC, &ts); return 0; }'
expect_refused "read the clock through sys/clock.h" src/net/http.c \
    'static long n(void) { struct timeval tv; gettimeofday(&tv, 0); return 0; }'
# A clock in cli/ outside its one copy.
expect_refused "cli/history.c:1:" cli/history.c 'void h(void) { clock_gettime(CLOCK_REALTIME, &ts); }'
# A condition variable made outside sys/clock.c (wall-clock timed waits), and a timed wait.
expect_refused "src/lib/task_api.c:1:" src/lib/task_api.c 'void t(void) { pthread_cond_init(&cv, NULL); }'
expect_refused "clock_cond_wait_until" src/task/loop.c \
    'void w(void) { pthread_cond_timedwait (&cv, &mu, &until); }'
# A child process started outside sys/proc.c.
expect_refused "src/mcp/stdio.c:1:" src/mcp/stdio.c 'int s(void) { return fork(); }'
expect_refused "only through sys/proc.h" src/checkpoint/git.c \
    'int g(void) { return execvp("git", argv); }'
echo "check_banned: ok"
