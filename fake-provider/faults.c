/* faults — delivery pacing and injected failures (see faults.h). Never writes to a
 * socket itself and never sleeps without watching the client and the stop descriptor. */
#include "faults.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "field.h"
#include "sys/clock.h"

#define MAX_MS (10LL * 60 * 1000)
#define MAX_BYTES ((long long)PLAN_BODY_MAX)

const char *const faults_keys[] = {"chunk_size",        "delay_ms",          "splits",
                                   "delay_first_byte_ms", "headers_first",   "close_after_bytes",
                                   "stall_ms",          "stall_after_bytes", "malformed",
                                   NULL};

hew_code faults_parse(const json_t *resp, const char *path, fp_faults *f, hew_err *err)
{
    long long v = 0;
    bool has = false;
    if (field_uint(resp, "chunk_size", path, MAX_BYTES, &v, &has, err))
        return err->code;
    f->chunk_size = has ? (size_t)v : 0;
    v = 0;
    if (field_uint(resp, "delay_ms", path, MAX_MS, &v, NULL, err))
        return err->code;
    f->delay_ms = (long)v;
    v = 0;
    if (field_uint(resp, "delay_first_byte_ms", path, MAX_MS, &v, NULL, err))
        return err->code;
    f->delay_first_byte_ms = (long)v;
    if (field_bool(resp, "headers_first", path, &f->headers_first, err))
        return err->code;
    if (field_uint(resp, "close_after_bytes", path, MAX_BYTES, &v, &has, err))
        return err->code;
    f->close_after_bytes = has ? v : -1;
    if (field_uint(resp, "stall_after_bytes", path, MAX_BYTES, &v, &has, err))
        return err->code;
    f->stall_after_bytes = has ? v : -1;
    v = 0;
    bool has_ms = false;
    if (field_uint(resp, "stall_ms", path, MAX_MS, &v, &has_ms, err))
        return err->code;
    f->stall_ms = (long)v;
    if (has_ms != (f->stall_after_bytes >= 0))
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: stall_ms and stall_after_bytes go together — give both", path);

    json_t *m = json_object_get(resp, "malformed");
    f->malformed_at = -1;
    if (json_is_true(m))
        f->malformed_at = 1;
    else if (json_is_integer(m) && json_integer_value(m) >= 0 &&
             json_integer_value(m) <= 1000000)
        f->malformed_at = (long)json_integer_value(m);
    else if (m && !json_is_false(m))
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.malformed: must be true, false or the index of the event to "
                           "inject before",
                           path);

    json_t *s = json_object_get(resp, "splits");
    if (s) {
        if (!json_is_array(s))
            return hew_err_set(err, HEW_E_INVALID,
                               "%s.splits: must be an array of byte offsets", path);
        f->nsplits = json_array_size(s);
        f->splits = calloc(f->nsplits ? f->nsplits : 1, sizeof *f->splits);
        if (!f->splits)
            return hew_err_set(err, HEW_E_NOMEM, "%s.splits: out of memory", path);
        for (size_t i = 0; i < f->nsplits; i++) {
            json_t *o = json_array_get(s, i);
            if (!json_is_integer(o) || json_integer_value(o) < 0 ||
                json_integer_value(o) > MAX_BYTES)
                return hew_err_set(err, HEW_E_INVALID,
                                   "%s.splits[%zu]: must be a byte offset (a whole number "
                                   ">= 0)",
                                   path, i);
            f->splits[i] = (size_t)json_integer_value(o);
        }
    }
    return HEW_OK;
}

/* Copy the value of an "event:" line of [p, p+n) into name (empty when there is none). */
static void event_name_of(const char *p, size_t n, char *name, size_t cap)
{
    name[0] = '\0';
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && p[e] != '\n' && p[e] != '\r')
            e++;
        if (e - i > 6 && memcmp(p + i, "event:", 6) == 0) {
            size_t s = i + 6;
            if (s < e && p[s] == ' ')
                s++;
            size_t len = e - s < cap - 1 ? e - s : cap - 1;
            memcpy(name, p + s, len);
            name[len] = '\0';
            return;
        }
        i = e + 1;
    }
}

static void inject_malformed(fp_plan *p)
{
    size_t k = (size_t)p->faults.malformed_at;
    if (k > p->nevents)
        k = p->nevents;
    /* borrow the framing of a neighbouring event: its line ending and event name */
    size_t ref = k < p->nevents ? k : (k ? k - 1 : 0);
    const char *eol = "\n";
    char name[96] = "";
    if (p->nevents) {
        size_t start = ref ? p->events[ref - 1] : 0;
        size_t len = p->events[ref] - start;
        const char *ev = p->body.data + start;
        if (memmem(ev, len, "\r\n", 2))
            eol = "\r\n";
        event_name_of(ev, len, name, sizeof name);
    }
    buf b = BUF_INIT(4096);
    if (name[0])
        buf_printf(&b, "event: %s%s", name, eol);
    buf_printf(&b, "data: {\"fake_malformed\": tru%s%s", eol, eol);
    if (b.err)
        p->body.err = b.err;
    else
        plan_insert_event(p, k, b.data, b.len);
    buf_release(&b);
}

hew_code faults_apply(fp_plan *p, const char *path, hew_err *err)
{
    fp_faults *f = &p->faults;
    if (f->malformed_at >= 0)
        inject_malformed(p);
    if (f->close_after_bytes >= 0 && (size_t)f->close_after_bytes > p->body.len)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.close_after_bytes: %lld is past the end of the %zu-byte body",
                           path, f->close_after_bytes, p->body.len);
    if (f->stall_after_bytes >= 0 && (size_t)f->stall_after_bytes > p->body.len)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s.stall_after_bytes: %lld is past the end of the %zu-byte body",
                           path, f->stall_after_bytes, p->body.len);
    for (size_t i = 0; i < f->nsplits; i++)
        if (f->splits[i] > p->body.len)
            return hew_err_set(err, HEW_E_INVALID,
                               "%s.splits[%zu]: %zu is past the end of the %zu-byte body",
                               path, i, f->splits[i], p->body.len);
    return plan_finish(p, path, err);
}

faults_wait_result faults_wait(int client_fd, int stop_fd, long ms)
{
    long long deadline = clock_now_ms() + ms;
    for (;;) {
        long long left = deadline - clock_now_ms();
        if (left <= 0)
            return FAULTS_WAIT_DONE;
        struct pollfd pf[2];
        nfds_t n = 0;
        int si = -1, ci = -1;
        if (stop_fd >= 0) {
            si = (int)n;
            pf[n++] = (struct pollfd){.fd = stop_fd, .events = POLLIN};
        }
        if (client_fd >= 0) {
            ci = (int)n;
            pf[n++] = (struct pollfd){.fd = client_fd, .events = POLLIN | POLLRDHUP};
        }
        int r = poll(pf, n, (int)(left < 200 ? left : 200));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return FAULTS_WAIT_STOP;
        }
        if (r == 0)
            continue;
        if (si >= 0 && (pf[si].revents & (POLLIN | POLLHUP | POLLERR)))
            return FAULTS_WAIT_STOP;
        if (ci >= 0 && pf[ci].revents) {
            if (pf[ci].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
                return FAULTS_WAIT_GONE;
            char c;
            ssize_t k = recv(client_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
            if (k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
                return FAULTS_WAIT_GONE;
            /* pipelined bytes from the client: not a disconnect; don't spin on them */
            struct timespec nap = {0, 20 * 1000000L};
            nanosleep(&nap, NULL);
        }
    }
}

long faults_send(fp_sender *s, size_t pos, char *out, size_t max)
{
    const fp_plan *p = s->plan;
    const fp_faults *f = &p->faults;
    if (f->close_after_bytes >= 0 && pos >= (size_t)f->close_after_bytes)
        return FAULTS_SEND_ABORT;
    if (!s->stalled && f->stall_after_bytes >= 0 && pos == (size_t)f->stall_after_bytes) {
        s->stalled = true;
        if (faults_wait(s->client_fd, s->stop_fd, f->stall_ms) != FAULTS_WAIT_DONE)
            return FAULTS_SEND_ABORT;
    }
    if (pos >= p->body.len)
        return FAULTS_SEND_END;
    long pause = 0;
    if (!s->started) {
        s->started = true;
        if (f->headers_first)
            pause = f->delay_first_byte_ms;
    } else {
        pause = f->delay_ms;
    }
    if (pause > 0 && faults_wait(s->client_fd, s->stop_fd, pause) != FAULTS_WAIT_DONE)
        return FAULTS_SEND_ABORT;
    size_t end = plan_next_cut(p, pos);
    size_t n = end - pos;
    if (n > max)
        n = max;
    memcpy(out, p->body.data + pos, n);
    return (long)n;
}
