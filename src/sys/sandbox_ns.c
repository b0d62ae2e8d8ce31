/* sandbox_ns — the mount namespace of the landlock backend: made once per prepared
 * sandbox in a forked helper (sandbox_ns_enter, driven by sandbox_ns_make in sys/proc.c)
 * and joined by each command's child (sandbox_ns_join). Landlock cannot carve a read-only path out of a writable root (its rules
 * cover whole hierarchies, and a rename of .git would get around a rule on .git itself),
 * so the child gets its own mount namespace (inside a new user namespace unless hew runs
 * as root) where every mount is made read-only and the writable roots are bound writable
 * again (Landlock does not cover chmod, chown, timestamps or xattrs; a read-only mount
 * does), each read-only path is bound read-only over itself and each hidden path inside a
 * writable root is covered by an empty read-only tmpfs (a file: by /dev/null).
 *
 * Everything here runs in a child of a threaded parent: only async-signal-safe system
 * calls on data prepared before — no allocation, no stdio, no locks. It must never touch
 * the parent's mount namespace: the helper's mounts are made slaves before anything is
 * mounted, so nothing propagates back (while mounts and unmounts of the host still reach
 * the commands, as they would a command started without a namespace). */
#include "sys/sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int write_all_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = errno;
    close(fd);
    if (w < 0)
        return -e;
    return (size_t)w == n ? 0 : -EIO;
}

/* The flags a bind remount must keep (in a user namespace the kernel refuses to drop the
 * ones the mount was made with). */
static unsigned long kept_flags(const char *path)
{
    struct statfs st;
    if (statfs(path, &st) != 0)
        return 0;
    unsigned long f = 0;
    if (st.f_flags & ST_NOSUID)
        f |= MS_NOSUID;
    if (st.f_flags & ST_NODEV)
        f |= MS_NODEV;
    if (st.f_flags & ST_NOEXEC)
        f |= MS_NOEXEC;
    if (st.f_flags & ST_NOATIME)
        f |= MS_NOATIME;
    if (st.f_flags & ST_NODIRATIME)
        f |= MS_NODIRATIME;
    if (st.f_flags & ST_RELATIME)
        f |= MS_RELATIME;
    return f;
}

static int bind_readonly(const char *src, const char *dst)
{
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
        return -errno;
    if (mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | kept_flags(dst), NULL) != 0)
        return -errno;
    return 0;
}

int sandbox_ns_enter(const sandbox *sb, int *step, int *index)
{
    if (!sb->mountns)
        return 0;
    *step = SANDBOX_STEP_UNSHARE;
    if (unshare(CLONE_NEWNS | (sb->userns ? CLONE_NEWUSER : 0)) != 0)
        return -errno;
    if (sb->userns) {
        /* /proc/self/uid_map and gid_map belong to root while the process is undumpable
         * (hew is, see sandbox_prepare): the helper (a fork, its memory its own) is
         * dumpable just long enough to write them, once per prepared sandbox */
        *step = SANDBOX_STEP_IDMAP;
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        int r = write_all_file("/proc/self/setgroups", "deny");
        if (r == -ENOENT)
            r = 0;
        if (r == 0)
            r = write_all_file("/proc/self/uid_map", sb->uid_map);
        if (r == 0)
            r = write_all_file("/proc/self/gid_map", sb->gid_map);
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        if (r != 0)
            return r;
    }
    *step = SANDBOX_STEP_PRIVATE;
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
        return -errno;
    if (sb->ro_root) {
        /* every mount read-only (what Landlock does not cover: chmod, chown, times,
         * xattrs), then the writable roots bound writable again over themselves */
        *step = SANDBOX_STEP_RO_ROOT;
        struct mount_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.attr_set = MOUNT_ATTR_RDONLY;
        if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof attr) != 0)
            return -errno;
        for (size_t i = 0; i < sb->n_rw_mounts; i++) {
            *step = SANDBOX_STEP_RW_BIND;
            *index = (int)i;
            const char *p = sb->rw_mounts[i].path;
            if (mount(p, p, NULL, MS_BIND | MS_REC, NULL) != 0 ||
                mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | kept_flags(p), NULL) != 0)
                return -errno;
        }
    }
    for (size_t i = 0; i < sb->n_ro_mounts; i++) {
        *step = SANDBOX_STEP_RO_BIND;
        *index = (int)i;
        int r = bind_readonly(sb->ro_mounts[i].path, sb->ro_mounts[i].path);
        if (r != 0)
            return r;
    }
    for (size_t i = 0; i < sb->n_hide_mounts; i++) {
        *step = SANDBOX_STEP_HIDE;
        *index = (int)i;
        const char *p = sb->hide_mounts[i].path;
        if (sb->hide_mounts[i].is_dir) {
            if (mount("tmpfs", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      "mode=0755") != 0)
                return -errno;
        } else {
            int r = bind_readonly("/dev/null", p);
            if (r != 0)
                return r;
        }
    }
    *step = SANDBOX_STEP_NONE;
    *index = -1;
    return 0;
}

SANDBOX_IN_CHILD int sandbox_ns_join(const sandbox *sb, int *step, int *index)
{
    *index = -1;
    if (!sb->mountns)
        return 0;
    *step = SANDBOX_STEP_JOIN;
    if (sb->mntns_fd < 0 || (sb->userns && sb->userns_fd < 0))
        return -EBADF; /* sandbox_ns_make did not run: never run the command without it */
    /* a mount namespace is joined only by a process whose root and cwd are its own: a
     * no-op here, but a sanitizer's runtime may have started a thread in a forked child */
    if (unshare(CLONE_FS) != 0)
        return -errno;
    /* the user namespace first: it owns the mount namespace, and joining it gives the
     * capabilities that joining the mount namespace asks for */
    if (sb->userns && setns(sb->userns_fd, CLONE_NEWUSER) != 0)
        return -errno;
    if (setns(sb->mntns_fd, CLONE_NEWNS) != 0)
        return -errno;
    *step = SANDBOX_STEP_NONE;
    return 0;
}
