/* stage — the shadow index brought in line with the workspace (see stage.h). It must
 * never write into the workspace, never enter or alter a nested repository's .git, and
 * never hand git a file above the size limit. */
#include "checkpoint/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "sys/path.h"
#include "checkpoint/excludes.h"

#define STAGE_NESTED_MAX 512 /* nested repositories followed per workspace */
#define STAGE_PACK_FROM 200  /* from this many paths on, new blobs go into one pack */

void stage_report_release(stage_report *r)
{
    if (!r)
        return;
    pathlist_release(&r->too_big);
    pathlist_release(&r->unreadable);
    *r = (stage_report)STAGE_REPORT_INIT;
}

/* True when rel lies in one of the nested repositories (sorted list of folder paths). */
static bool under_nested(const pathlist *nested, const char *rel)
{
    for (size_t i = 0; i < nested->n; i++) {
        size_t n = strlen(nested->v[i]);
        if (strncmp(rel, nested->v[i], n) == 0 && rel[n] == '/')
            return true;
    }
    return false;
}

/* List the files of the nested repository at rel (and of repositories nested in it),
 * appending workspace-relative paths to files and the folders to nested. */
static hew_code list_nested(shadow *s, const char *rel, pathlist *files, pathlist *queue,
                            hew_err *err)
{
    char *scratch = path_join(s->git_dir, "scratch-index");
    if (!scratch)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    unlink(scratch); /* an empty index: every file is "other" */
    free(scratch);
    size_t elen = strlen(s->exclude_path);
    char *from = malloc(elen + 16);
    if (!from)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    memcpy(from, "--exclude-from=", 15);
    memcpy(from + 15, s->exclude_path, elen + 1);
    const char *args[] = { "ls-files", "-z", "--others", from,
                           "--exclude-per-directory=.gitignore", NULL };
    shadow_call c = { .sub_tree = rel, .scratch_index = true };
    buf out = BUF_INIT(0);
    hew_code rc = shadow_git(s, &c, args, &out, err);
    free(from);
    if (rc == HEW_OK) {
        size_t rlen = strlen(rel);
        size_t i = 0;
        while (i < out.len) {
            const char *p = out.data + i;
            size_t n = strlen(p);
            i += n + 1;
            if (!n)
                continue;
            char *full = malloc(rlen + 1 + n + 1);
            if (!full) {
                rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
                break;
            }
            memcpy(full, rel, rlen);
            full[rlen] = '/';
            memcpy(full + rlen + 1, p, n + 1);
            if (full[rlen + n] == '/') {
                full[rlen + n] = '\0';
                pathlist_add_str(queue, full, 0);
            } else {
                pathlist_add_str(files, full, '?');
            }
            free(full);
        }
    }
    buf_release(&out);
    return rc;
}

stage_where stage_look(int wfd, const char *rel)
{
    char tmp[4096];
    size_t n = strlen(rel);
    if (n >= sizeof tmp || n == 0)
        return STAGE_BLOCKED;
    memcpy(tmp, rel, n + 1);
    struct stat st;
    for (char *slash = strchr(tmp, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int r = fstatat(wfd, tmp, &st, AT_SYMLINK_NOFOLLOW);
        *slash = '/';
        if (r != 0)
            return errno == ENOENT || errno == ENOTDIR ? STAGE_ABSENT : STAGE_BLOCKED;
        if (!S_ISDIR(st.st_mode))
            return STAGE_BLOCKED;
    }
    if (fstatat(wfd, tmp, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? STAGE_ABSENT : STAGE_BLOCKED;
    return S_ISDIR(st.st_mode) ? STAGE_DIR : STAGE_FILE;
}

/* Sort candidates into what update-index gets and what is dropped. */
static void check_sizes(shadow *s, const pathlist *cand, size_t max_bytes, pathlist *update,
                        pathlist *drop, stage_report *rep)
{
    int wfd = open(s->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (size_t i = 0; i < cand->n; i++) {
        const char *p = cand->v[i];
        struct stat st;
        if (wfd >= 0 && strchr(p, '/') && stage_look(wfd, p) == STAGE_BLOCKED) {
            /* behind a symlinked folder or a file now: not part of the work tree */
            pathlist_add_str(drop, p, 0);
            continue;
        }
        if (wfd < 0 || fstatat(wfd, p, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            /* gone (a deletion to record) or not reachable: update-index --remove decides */
            pathlist_add_str(update, p, cand->status[i]);
            continue;
        }
        if (S_ISREG(st.st_mode)) {
            if ((size_t)st.st_size > max_bytes) {
                pathlist_add_str(&rep->too_big, p, 0);
                pathlist_add_str(drop, p, 0);
                continue;
            }
            if (faccessat(wfd, p, R_OK, AT_EACCESS) != 0) {
                pathlist_add_str(&rep->unreadable, p, 0);
                pathlist_add_str(drop, p, 0);
                continue;
            }
            pathlist_add_str(update, p, cand->status[i]);
        } else if (S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)) {
            /* a symlink is stored as a link; a tracked path that became a folder is
             * dropped by update-index --remove and its files come as new ones */
            pathlist_add_str(update, p, cand->status[i]);
        } else {
            pathlist_add_str(drop, p, 0); /* fifo, socket, device: never snapshotted */
        }
    }
    if (wfd >= 0)
        close(wfd);
}

hew_code stage_worktree(shadow *s, size_t max_bytes, stage_report *rep, hew_err *err)
{
    hew_code rc = excludes_write(s->exclude_path, s->workspace, err);
    if (rc != HEW_OK)
        return rc;

    pathlist cand = PATHLIST_INIT, nested = PATHLIST_INIT, queue = PATHLIST_INIT;
    pathlist update = PATHLIST_INIT, drop = PATHLIST_INIT, ignored = PATHLIST_INIT;
    buf out = BUF_INIT(0);

    /* 1. untracked-and-not-ignored (?), tracked-and-changed-or-gone (C). Nested
     *    repositories show as "? dir/". */
    {
        const char *args[] = { "ls-files", "-z", "-t", "--others", "--modified",
                               "--exclude-standard", NULL };
        shadow_call c = { .work_tree = true };
        rc = shadow_git(s, &c, args, &out, err);
        if (rc != HEW_OK)
            goto done;
        pathlist raw = PATHLIST_INIT;
        pathlist_add_tagged_z(&raw, out.data, out.len);
        for (size_t i = 0; i < raw.n; i++) {
            size_t n = strlen(raw.v[i]);
            if (n > 1 && raw.v[i][n - 1] == '/') {
                raw.v[i][n - 1] = '\0';
                pathlist_add_str(&queue, raw.v[i], 0);
            } else {
                pathlist_add_str(&cand, raw.v[i], raw.status[i]);
            }
        }
        rc = pathlist_check(&raw, err);
        pathlist_release(&raw);
        if (rc != HEW_OK)
            goto done;
    }

    /* 2. nested repositories, breadth first */
    for (size_t qi = 0; qi < queue.n && rc == HEW_OK; qi++) {
        if (nested.n >= STAGE_NESTED_MAX)
            break;
        pathlist_add_str(&nested, queue.v[qi], 0);
        rc = list_nested(s, queue.v[qi], &cand, &queue, err);
    }
    if (rc != HEW_OK)
        goto done;
    rep->nested_repos = nested.n;

    /* 3. tracked files that are ignored now (a new .gitignore rule) leave the snapshot;
     *    nested repositories follow their own rules (step 2). */
    {
        buf_reset(&out);
        const char *args[] = { "ls-files", "-z", "--cached", "--ignored",
                               "--exclude-standard", NULL };
        shadow_call c = { .work_tree = true };
        rc = shadow_git(s, &c, args, &out, err);
        if (rc != HEW_OK)
            goto done;
        pathlist_add_z(&ignored, out.data, out.len);
        for (size_t i = 0; i < ignored.n; i++)
            if (!under_nested(&nested, ignored.v[i]))
                pathlist_add_str(&drop, ignored.v[i], 0);
    }

    /* 4. the size guard and the kinds of file (a tracked file in a nested repository is
     *    listed twice: once changed, once by the nested listing) */
    pathlist_sort_unique(&cand);
    check_sizes(s, &cand, max_bytes, &update, &drop, rep);
    rc = pathlist_check(&cand, err);
    if (rc == HEW_OK)
        rc = pathlist_check(&update, err);
    if (rc == HEW_OK)
        rc = pathlist_check(&drop, err);
    if (rc == HEW_OK)
        rc = pathlist_check(&queue, err);
    if (rc != HEW_OK)
        goto done;

    /* 5. add, refresh and remove by name, then drop what must not be there */
    if (update.n) {
        const char *args[] = { "update-index", "--add", "--remove", "--replace", NULL };
        shadow_call c = { .work_tree = true, .pack = update.n >= STAGE_PACK_FROM };
        rc = shadow_git_paths(s, &c, args, update.v, update.n, NULL, err);
        if (rc != HEW_OK)
            goto done;
    }
    if (drop.n) {
        const char *args[] = { "update-index", "--force-remove", NULL };
        shadow_call c = { .work_tree = true };
        rc = shadow_git_paths(s, &c, args, drop.v, drop.n, NULL, err);
        if (rc != HEW_OK)
            goto done;
    }
    rep->listed = update.n;

done:
    buf_release(&out);
    pathlist_release(&cand);
    pathlist_release(&nested);
    pathlist_release(&queue);
    pathlist_release(&update);
    pathlist_release(&drop);
    pathlist_release(&ignored);
    return rc;
}
