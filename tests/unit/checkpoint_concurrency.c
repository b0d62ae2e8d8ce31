/* Unit tests of checkpoint/ under concurrency: an asynchronous commit and a blocking one in
 * flight together, many queued commits, a restore asked while a commit runs (it waits and
 * sees the commit's state), two objects (two tasks, or two processes' worth of locking) on
 * one workspace from several threads, freeing with commits still queued, the per-call
 * timeout and the abort token against a slow git. */
#include <pthread.h>
#include <time.h>

#include "sys/abort.h"
#include "checkpoint_util.h"

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}

struct done_rec {
    pthread_mutex_t mu;
    int calls;
    int order[16];
    hew_code codes[16];
    char hashes[16][CHECKPOINT_HASH_MAX];
    char msg[16][HEW_ERR_MSG_MAX];
};

struct done_arg {
    struct done_rec *rec;
    int id;
};

static void on_done(void *ud, hew_code code, const checkpoint_commit_info *info,
                    const hew_err *err)
{
    struct done_arg *a = ud;
    struct done_rec *r = a->rec;
    pthread_mutex_lock(&r->mu);
    int k = r->calls++;
    if (k < 16) {
        r->order[k] = a->id;
        r->codes[k] = code;
        snprintf(r->hashes[k], CHECKPOINT_HASH_MAX, "%s", info ? info->hash : "");
        snprintf(r->msg[k], HEW_ERR_MSG_MAX, "%s", err ? err->msg : "");
    }
    pthread_mutex_unlock(&r->mu);
}

static void rec_init(struct done_rec *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
}

static void test_async_and_blocking(void)
{
    tws t;
    tws_make(&t, "ckpt-async");
    for (int i = 0; i < 300; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "d%d/f%d.txt", i % 10, i);
        wtext(t.ws, rel, rel);
    }
    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-a", &c, &err) == HEW_OK);

    struct done_rec rec;
    rec_init(&rec);
    struct done_arg a0 = { &rec, 0 };
    REQUIRE(checkpoint_commit_async(c, CHECKPOINT_INITIAL, on_done, &a0, &err) == HEW_OK);
    /* a blocking commit asked while the initial one runs waits for it */
    checkpoint_commit_info ci;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &ci, &err) == HEW_OK);
    checkpoint_drain(c);
    CHECK_INT(rec.calls, 1);
    CHECK_INT(rec.codes[0], HEW_OK);
    CHECK_STR(ci.parent, rec.hashes[0]);

    /* many queued: they run in order */
    struct done_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (struct done_arg){ &rec, i + 1 };
        char rel[32];
        snprintf(rel, sizeof rel, "q%d.txt", i);
        wtext(t.ws, rel, "q\n");
        REQUIRE(checkpoint_commit_async(c, CHECKPOINT_TURN, on_done, &args[i], &err) ==
                HEW_OK);
    }
    checkpoint_drain(c);
    CHECK_INT(rec.calls, 9);
    for (int i = 1; i < 9; i++) {
        CHECK_INT(rec.order[i], i);
        CHECK_INT(rec.codes[i], HEW_OK);
    }
    checkpoint_entries l;
    REQUIRE(checkpoint_list(c, false, &l, &err) == HEW_OK);
    CHECK_INT(l.n, 10);
    if (l.n == 10) {
        CHECK_STR(l.v[0].hash, rec.hashes[0]);
        CHECK_STR(l.v[1].hash, ci.hash);
        CHECK_STR(l.v[9].hash, rec.hashes[8]);
    }
    checkpoint_entries_release(&l);

    /* a restore asked right after an asynchronous commit: the commit goes first, and the
     * restore's safety checkpoint follows it */
    wtext(t.ws, "a.txt", "before restore\n");
    struct done_arg last = { &rec, 99 };
    REQUIRE(checkpoint_commit_async(c, CHECKPOINT_TURN, on_done, &last, &err) == HEW_OK);
    checkpoint_restore_result res;
    REQUIRE(checkpoint_restore(c, rec.hashes[0], &res, &err) == HEW_OK);
    checkpoint_drain(c);
    CHECK_INT(rec.calls, 10);
    CHECK_INT(rec.order[9], 99);
    CHECK_GONE(t.ws, "a.txt");
    CHECK_GONE(t.ws, "q0.txt");
    REQUIRE(checkpoint_list(c, false, &l, &err) == HEW_OK);
    CHECK(l.n == 13 && strcmp(l.v[10].hash, rec.hashes[9]) == 0 &&
          strcmp(l.v[11].hash, res.safety) == 0);
    checkpoint_entries_release(&l);
    /* undo brings the file the queued commit saw */
    char safety[CHECKPOINT_HASH_MAX];
    memcpy(safety, res.safety, sizeof safety);
    checkpoint_restore_result_release(&res);
    REQUIRE(checkpoint_restore(c, safety, &res, &err) == HEW_OK);
    CHECK_FILE(t.ws, "a.txt", "before restore\n");
    checkpoint_restore_result_release(&res);

    /* freeing with commits still queued: every callback runs */
    struct done_rec rec2;
    rec_init(&rec2);
    struct done_arg b[3] = { { &rec2, 1 }, { &rec2, 2 }, { &rec2, 3 } };
    for (int i = 0; i < 3; i++)
        REQUIRE(checkpoint_commit_async(c, CHECKPOINT_TURN, on_done, &b[i], &err) == HEW_OK);
    checkpoint_free(c);
    CHECK_INT(rec2.calls, 3);
    pthread_mutex_destroy(&rec.mu);
    pthread_mutex_destroy(&rec2.mu);
    tws_free(&t);
}

/* Two objects on one workspace (two tasks, or what two processes would do), each driven
 * from two threads: the lock file serialises them; nothing fails; history stays linear. */
struct hammer {
    checkpoint *c;
    const char *ws;
    int id;
    int failures;
    char msg[HEW_ERR_MSG_MAX];
};

static void *hammer_main(void *arg)
{
    struct hammer *h = arg;
    for (int i = 0; i < 6; i++) {
        char rel[64], text[64];
        snprintf(rel, sizeof rel, "t%d/file%d.txt", h->id, i);
        snprintf(text, sizeof text, "%d %d\n", h->id, i);
        wtext(h->ws, rel, text);
        hew_err err = HEW_ERR_INIT;
        checkpoint_commit_info ci;
        if (checkpoint_commit(h->c, CHECKPOINT_TURN, &ci, &err) != HEW_OK) {
            h->failures++;
            snprintf(h->msg, sizeof h->msg, "%s", err.msg);
        }
        if (i == 3) {
            checkpoint_changes d;
            if (checkpoint_diff(h->c, ci.hash, NULL, 0, &d, &err) != HEW_OK) {
                h->failures++;
                snprintf(h->msg, sizeof h->msg, "%s", err.msg);
            }
            checkpoint_changes_release(&d);
        }
    }
    return NULL;
}

static void test_two_objects(void)
{
    tws t;
    tws_make(&t, "ckpt-two");
    wtext(t.ws, "a.txt", "a\n");
    checkpoint *c1 = NULL, *c2 = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-1", &c1, &err) == HEW_OK);
    REQUIRE(tws_open(&t, "task-2", &c2, &err) == HEW_OK);
    CHECK_STR(checkpoint_shadow_dir(c1), checkpoint_shadow_dir(c2));
    struct hammer h[4] = { { c1, t.ws, 0, 0, "" }, { c1, t.ws, 1, 0, "" },
                           { c2, t.ws, 2, 0, "" }, { c2, t.ws, 3, 0, "" } };
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, hammer_main, &h[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT(h[i].failures, 0);
        if (h[i].failures)
            printf("hammer %d: %s\n", i, h[i].msg);
    }
    checkpoint_entries l1, l2, all;
    REQUIRE(checkpoint_list(c1, false, &l1, &err) == HEW_OK);
    REQUIRE(checkpoint_list(c2, false, &l2, &err) == HEW_OK);
    REQUIRE(checkpoint_list(c1, true, &all, &err) == HEW_OK);
    CHECK_INT(l1.n, 12);
    CHECK_INT(l2.n, 12);
    CHECK_INT(all.n, 24);
    for (size_t i = 0; i < l1.n; i++)
        CHECK_STR(l1.v[i].task_id, "task-1");
    /* the last checkpoint has every file */
    if (all.n) {
        checkpoint_changes d;
        REQUIRE(checkpoint_diff(c2, all.v[all.n - 1].hash, NULL, 0, &d, &err) == HEW_OK);
        CHECK_INT(d.n, 0);
        checkpoint_changes_release(&d);
    }
    checkpoint_entries_release(&l1);
    checkpoint_entries_release(&l2);
    checkpoint_entries_release(&all);
    checkpoint_free(c1);
    checkpoint_free(c2);
    tws_free(&t);
}

/* A git that is slow to list files (the rest goes to the real git). */
static char *slow_git(const tws *t)
{
    char *p = tjoin(t->root, "slowgit");
    wtext(t->root, "slowgit",
          "#!/bin/sh\n"
          "case \" $* \" in *\" ls-files \"*) sleep 20 ;; esac\n"
          "exec git \"$@\"\n");
    chmod(p, 0755);
    return p;
}

struct trig {
    hew_abort *a;
    long ms;
};

static void *trigger_main(void *arg)
{
    struct trig *tr = arg;
    usleep((useconds_t)tr->ms * 1000);
    abort_trigger(tr->a, "test");
    return NULL;
}

static void test_timeout_and_abort(void)
{
    tws t;
    tws_make(&t, "ckpt-slow");
    wtext(t.ws, "a.txt", "a\n");
    char *git = slow_git(&t);
    hew_abort *ab = abort_new();
    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = t.ws;
    o.data_dir = t.data;
    o.home = t.home;
    o.git = git;
    o.timeout_ms = 700;
    o.abort = ab;
    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(checkpoint_open(&o, &c, &err) == HEW_OK);

    /* the timeout */
    long long t0 = ms_now();
    checkpoint_commit_info ci;
    CHECK_INT(checkpoint_commit(c, CHECKPOINT_INITIAL, &ci, &err), HEW_E_TIMEOUT);
    long long el = ms_now() - t0;
    CHECK(el >= 600 && el < 5000);
    CHECK(strstr(err.msg, "longer than") != NULL);
    CHECK_STR(ci.hash, "");

    /* the abort token stops an asynchronous commit at once */
    struct done_rec rec;
    rec_init(&rec);
    struct done_arg a0 = { &rec, 0 };
    checkpoint_free(c);
    o.timeout_ms = 30000;
    REQUIRE(checkpoint_open(&o, &c, &err) == HEW_OK);
    t0 = ms_now();
    REQUIRE(checkpoint_commit_async(c, CHECKPOINT_INITIAL, on_done, &a0, &err) == HEW_OK);
    struct trig tr = { ab, 200 };
    pthread_t th;
    pthread_create(&th, NULL, trigger_main, &tr);
    /* meanwhile a blocking call waits for its turn and also wakes on the abort */
    checkpoint_entries l;
    CHECK_INT(checkpoint_list(c, false, &l, &err), HEW_E_ABORTED);
    checkpoint_drain(c);
    el = ms_now() - t0;
    pthread_join(th, NULL);
    CHECK_INT(rec.calls, 1);
    CHECK_INT(rec.codes[0], HEW_E_ABORTED);
    CHECK(el < 5000);
    checkpoint_free(c);

    /* once the token is re-armed, checkpoints work again (with the real git) */
    abort_reset(ab);
    o.git = NULL;
    REQUIRE(checkpoint_open(&o, &c, &err) == HEW_OK);
    CHECK_INT(checkpoint_commit(c, CHECKPOINT_INITIAL, &ci, &err), HEW_OK);
    checkpoint_free(c);
    abort_free(ab);
    pthread_mutex_destroy(&rec.mu);
    free(git);
    tws_free(&t);
}

int main(void)
{
    RUN(test_async_and_blocking);
    RUN(test_two_objects);
    RUN(test_timeout_and_abort);
    return check_report();
}
