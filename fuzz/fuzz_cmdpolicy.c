/* fuzz_cmdpolicy — libFuzzer target for tools/cmdpolicy and the sh parser under it. The
 * input (after a first byte choosing the rule set) is a command line, judged fed whole
 * and fed in pieces cut where the input's own bytes say: the verdicts must be identical,
 * and every verdict must keep its invariants (a known decision, a reason, printable valid
 * UTF-8 texts, a rule for a deny, "outside" only on a safe line). A line after `rm x;`
 * must never be safe. The parser's words must be NUL-terminated at their length. Any
 * difference or broken invariant aborts. It must never keep state between runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "tools/cmdpolicy.h"
#include "tools/shparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const allow[] = { "npm test*", "git status", "make test", NULL };
static const char *const deny[] = { "rm -rf*", "curl *", "*> /etc/*", NULL };

static void check_text(const char *s)
{
    size_t n = strnlen(s, CMDPOLICY_TEXT_MAX);
    if (n == CMDPOLICY_TEXT_MAX || !utf8_validate(s, n, NULL))
        abort();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            abort();
}

static void check_verdict(const cmdpolicy_verdict *v)
{
    if (v->decision != CMDPOLICY_SAFE && v->decision != CMDPOLICY_ASK &&
        v->decision != CMDPOLICY_DENY)
        abort();
    check_text(v->reason);
    check_text(v->part);
    check_text(v->rule);
    if (!v->reason[0] || (v->decision == CMDPOLICY_DENY && !v->rule[0]))
        abort();
    if (v->outside && v->decision != CMDPOLICY_SAFE)
        abort();
}

static void judge(const cmdpolicy_opts *o, const uint8_t *line, size_t n, const size_t *cuts,
                  size_t ncuts, cmdpolicy_verdict *out)
{
    cmdpolicy *cp = cmdpolicy_new(o);
    if (!cp)
        abort();
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        cmdpolicy_feed(cp, (const char *)line + at, to - at);
        at = to;
    }
    cmdpolicy_end(cp, out);
    cmdpolicy_free(cp);
    check_verdict(out);
}

static void check_words(const sh_word *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!w[i].text || strlen(w[i].text) != w[i].len ||
            (w[i].assign >= 0 && (size_t)w[i].assign >= w[i].len))
            abort();
}

static void parse_only(const uint8_t *line, size_t n)
{
    shparse *p = shparse_new(0);
    if (!p)
        abort();
    shparse_feed(p, (const char *)line, n);
    shparse_end(p);
    sh_event ev;
    while (shparse_next(p, &ev)) {
        if (ev.kind == SH_EV_PROBLEM) {
            if (!ev.problem || !*ev.problem)
                abort();
            continue;
        }
        check_words(ev.words, ev.nwords);
        for (size_t i = 0; i < ev.nredirs; i++)
            check_words(&ev.redirs[i].target, 1);
    }
    shparse_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 14)
        return 0;
    cmdpolicy_opts o = { "/home/u/proj", "/bin/bash", NULL, NULL };
    if (data[0] & 1)
        o.allow = allow;
    if (data[0] & 2)
        o.deny = deny;
    const uint8_t *line = data + 1;
    size_t n = size - 1;

    cmdpolicy_verdict whole, split;
    judge(&o, line, n, NULL, 0, &whole);
    size_t *cuts = malloc((n + 1) * sizeof *cuts);
    if (!cuts)
        return 0;
    size_t k = 0, at = 0;
    for (size_t i = 0; i < n; i++) {
        at += 1 + line[i] % 7;
        if (at >= n)
            break;
        cuts[k++] = at;
    }
    judge(&o, line, n, cuts, k, &split);
    free(cuts);
    if (memcmp(&whole, &split, sizeof whole) != 0)
        abort();
    parse_only(line, n);

    /* whatever follows, `rm x;` before it is never safe */
    uint8_t *pre = malloc(n + 5);
    if (!pre)
        return 0;
    memcpy(pre, "rm x;", 5);
    memcpy(pre + 5, line, n);
    cmdpolicy_verdict v;
    judge(&o, pre, n + 5, NULL, 0, &v);
    free(pre);
    if (v.decision == CMDPOLICY_SAFE)
        abort();
    return 0;
}
