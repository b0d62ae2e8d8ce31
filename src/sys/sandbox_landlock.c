/* sandbox_landlock — the Landlock half of the landlock backend: the ruleset is built ONCE
 * in sandbox_prepare (an fd kept in the sandbox) and each child only calls
 * landlock_restrict_self on it. Raw system calls from <linux/landlock.h>; the constants
 * of newer ABIs than the installed headers know are defined here.
 *
 * Landlock is an allow list whose rules cover whole hierarchies, so a hidden path cannot
 * be cut out of a rule on its ancestor: read is granted on every entry of / except the
 * ancestors of hidden paths, which are walked down (their siblings granted, the hidden
 * path itself skipped). Listing directories (READ_DIR) is granted on / as a whole: names
 * are not secrets, and `ls ~` must keep working. It must never grant write outside the
 * writable roots and the few devices listed below, and never follow a symlink into a
 * rule (a link to a hidden path would grant its target). */
#include "sys/sandbox_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_RULE_NET_PORT 2
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* The ruleset attribute as ABI 6 has it; its size tells the kernel which fields we know. */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

#define LL_READ                                                                            \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_WRITE_V1                                                                        \
    (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                       \
     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |                       \
     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
     LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)
/* The rights that make sense on a file (a rule on a file with others is EINVAL). */
#define LL_FILE_RIGHTS                                                                     \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
     LANDLOCK_ACCESS_FS_TRUNCATE)

/* Devices every confined command may write (redirections to /dev/null and friends). */
static const char *const writable_devices[] = { "/dev/null", "/dev/zero", "/dev/full",
                                                "/dev/tty",  "/dev/random", "/dev/urandom" };


struct ll_build {
    int fd;          /* the ruleset */
    uint64_t fs;     /* handled file-system rights */
    const sandbox *sb;
    int depth;
};

static uint64_t write_rights(int abi)
{
    uint64_t w = LL_WRITE_V1;
    if (abi >= 2)
        w |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        w |= LANDLOCK_ACCESS_FS_TRUNCATE;
    return w;
}

/* Add a rule for path (not following a final symlink): rights masked to what the ruleset
 * handles and, for a non-directory, to file rights. 0, or -errno (ENOENT, EACCES: the
 * caller decides whether that matters). */
static int add_path_rule(struct ll_build *b, const char *path, uint64_t rights)
{
    int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (S_ISLNK(st.st_mode)) { /* a link: what it points to has its own rule (or none) */
        close(fd);
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        rights &= LL_FILE_RIGHTS;
    rights &= b->fs;
    struct landlock_path_beneath_attr pb = { .allowed_access = rights, .parent_fd = fd };
    long r = rights ? syscall(SYS_landlock_add_rule, b->fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0)
                    : 0;
    int e = errno;
    close(fd);
    return r == 0 ? 0 : -e;
}

static bool path_is(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

/* Whether dir (no trailing slash, "/" for the root) is a proper ancestor of path. */
static bool is_ancestor(const char *dir, const char *path)
{
    if (path_is(dir, "/"))
        return path[0] == '/' && path[1] != '\0';
    size_t n = strlen(dir);
    return strncmp(dir, path, n) == 0 && path[n] == '/';
}

static bool hidden(const sandbox *sb, const char *path)
{
    for (size_t i = 0; i < sb->n_hidden; i++)
        if (path_is(sb->hidden[i], path))
            return true;
    return false;
}

static bool holds_hidden(const sandbox *sb, const char *dir)
{
    for (size_t i = 0; i < sb->n_hidden; i++)
        if (is_ancestor(dir, sb->hidden[i]))
            return true;
    return false;
}

/* Grant read on every entry of dir but the hidden ones; walk into those that hold one. */
static hew_code grant_read_walk(struct ll_build *b, const char *dir, hew_err *err)
{
    if (b->depth > 64)
        return hew_err_set(err, HEW_E_INVALID, "sandbox: hidden paths nested too deep");
    DIR *d = opendir(dir);
    if (!d)
        return HEW_OK; /* unreadable anyway */
    hew_code rc = HEW_OK;
    struct dirent *de;
    while (rc == HEW_OK && (de = readdir(d)) != NULL) {
        if (path_is(de->d_name, ".") || path_is(de->d_name, ".."))
            continue;
        char full[4096];
        int n = snprintf(full, sizeof full, "%s/%s", path_is(dir, "/") ? "" : dir, de->d_name);
        if (n < 0 || (size_t)n >= sizeof full)
            continue;
        if (hidden(b->sb, full))
            continue;
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && holds_hidden(b->sb, full)) {
            b->depth++;
            rc = grant_read_walk(b, full, err);
            b->depth--;
            continue;
        }
        int r = add_path_rule(b, full, LL_READ);
        if (r < 0 && r != -ENOENT && r != -EACCES && r != -ELOOP)
            rc = hew_err_set(err, HEW_E_IO, "sandbox: cannot add a Landlock rule for %s: %s",
                             full, strerror(-r));
    }
    closedir(d);
    return rc;
}

hew_code sandbox_landlock_build(sandbox *sb, int abi, hew_err *err)
{
    if (abi < 1)
        return hew_err_set(err, HEW_E_UNSUPPORTED,
                           "sandbox: this kernel has no Landlock (Linux 5.13 or later with "
                           "CONFIG_SECURITY_LANDLOCK and lsm=landlock); install bubblewrap or "
                           "run with --sandbox danger-full-access");
    bool net_rules = !sb->network && abi >= 4;
    if (!sb->network && sb->proxy_port > 0 && abi < 4)
        return hew_err_set(err, HEW_E_UNSUPPORTED,
                           "sandbox: letting commands reach only the egress proxy needs "
                           "Landlock ABI 4 (Linux 6.7); this kernel has ABI %d", abi);
    struct ll_ruleset_attr attr = { 0 };
    attr.handled_access_fs = LL_READ | write_rights(abi);
    size_t attr_size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        attr_size = offsetof(struct ll_ruleset_attr, scoped);
        if (net_rules)
            attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    }
    if (abi >= 6) {
        attr_size = sizeof attr;
        attr.scoped = LL_SCOPE_SIGNAL | (sb->network ? 0 : LL_SCOPE_ABSTRACT_UNIX_SOCKET);
    }
    int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (fd < 0)
        return hew_err_set(err, HEW_E_UNSUPPORTED, "sandbox: cannot create a Landlock ruleset: %s",
                           strerror(errno));
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        close(fd);
        return hew_err_set(err, HEW_E_IO, "sandbox: Landlock ruleset: %s", strerror(errno));
    }
    struct ll_build b = { fd, attr.handled_access_fs, sb, 0 };
    hew_code rc = HEW_OK;

    /* read: everything but the hidden paths */
    if (sb->n_hidden == 0) {
        if (add_path_rule(&b, "/", LL_READ) != 0)
            rc = hew_err_set(err, HEW_E_IO, "sandbox: cannot add a Landlock rule for /: %s",
                             strerror(errno));
    } else {
        int r = add_path_rule(&b, "/", LANDLOCK_ACCESS_FS_READ_DIR);
        if (r != 0)
            rc = hew_err_set(err, HEW_E_IO, "sandbox: cannot add a Landlock rule for /: %s",
                             strerror(-r));
        if (rc == HEW_OK)
            rc = grant_read_walk(&b, "/", err);
    }
    /* write: the writable roots (read included: a root may sit under a hidden path's
     * ancestor that the walk did not grant) */
    uint64_t rw = LL_READ | write_rights(abi);
    for (size_t i = 0; rc == HEW_OK && i < sb->n_writable; i++) {
        int r = add_path_rule(&b, sb->writable[i], rw);
        if (r < 0 && r != -ENOENT)
            rc = hew_err_set(err, HEW_E_IO, "sandbox: cannot add a Landlock rule for %s: %s",
                             sb->writable[i], strerror(-r));
    }
    for (size_t i = 0; rc == HEW_OK && i < sizeof writable_devices / sizeof *writable_devices;
         i++)
        (void)add_path_rule(&b, writable_devices[i],
                            LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                LANDLOCK_ACCESS_FS_TRUNCATE);
    for (size_t i = 0; rc == HEW_OK && sb->mode == SANDBOX_WORKSPACE_WRITE &&
                       i < sandbox_n_scratch_dirs;
         i++)
        (void)add_path_rule(&b, sandbox_scratch_dirs[i], rw);

    /* network: TCP connect only to the proxy's port */
    if (rc == HEW_OK && net_rules && sb->proxy_port > 0) {
        struct ll_net_port_attr np = { LL_NET_CONNECT_TCP, (uint64_t)sb->proxy_port };
        if (syscall(SYS_landlock_add_rule, fd, LL_RULE_NET_PORT, &np, 0) != 0)
            rc = hew_err_set(err, HEW_E_IO, "sandbox: cannot allow the proxy's port %d: %s",
                             sb->proxy_port, strerror(errno));
    }
    if (rc != HEW_OK) {
        close(fd);
        return rc;
    }
    sb->ruleset_fd = fd;
    sb->landlock_abi = abi;
    return HEW_OK;
}

SANDBOX_IN_CHILD int sandbox_landlock_restrict(const sandbox *sb)
{
    if (sb->ruleset_fd < 0)
        return 0;
    if (syscall(SYS_landlock_restrict_self, sb->ruleset_fd, 0) != 0)
        return -errno;
    return 0;
}
