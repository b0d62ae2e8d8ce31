/* sandbox — names, the probe of what this machine offers, and sandbox_prepare, which turns
 * a policy into an immutable prepared sandbox (see sandbox.h): it picks the backend, has
 * the backend files build their parts (sandbox_landlock.c, sandbox_seccomp.c,
 * sandbox_bwrap.c), plans the child's mount namespace (sandbox_ns.c) and writes down
 * every part of the policy it could not enforce (sandbox_gaps). It must never hand out a
 * sandbox that enforces less than its gaps say, and never run anything unconfined
 * itself but the probes. */
#include "sys/sandbox_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "sys/proc.h"

/* ---- names -------------------------------------------------------------------------- */

static const char *const mode_names[] = {
    [SANDBOX_FULL_ACCESS] = "danger-full-access",
    [SANDBOX_READ_ONLY] = "read-only",
    [SANDBOX_WORKSPACE_WRITE] = "workspace-write",
};

static const char *const backend_names[] = {
    [SANDBOX_BACKEND_NONE] = "none",
    [SANDBOX_BACKEND_AUTO] = "auto",
    [SANDBOX_BACKEND_LANDLOCK] = "landlock",
    [SANDBOX_BACKEND_BWRAP] = "bwrap",
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

const char *sandbox_mode_name(sandbox_mode m)
{
    return (unsigned)m < COUNT(mode_names) ? mode_names[m] : "unknown";
}

bool sandbox_mode_parse(const char *s, sandbox_mode *out)
{
    for (size_t i = 0; s && i < COUNT(mode_names); i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *out = (sandbox_mode)i;
            return true;
        }
    return false;
}

const char *sandbox_backend_name(sandbox_backend b)
{
    return (unsigned)b < COUNT(backend_names) ? backend_names[b] : "unknown";
}

bool sandbox_backend_parse(const char *s, sandbox_backend *out)
{
    for (size_t i = 0; s && i < COUNT(backend_names); i++)
        if (strcmp(s, backend_names[i]) == 0) {
            *out = (sandbox_backend)i;
            return true;
        }
    return false;
}

static const char *const step_names[SANDBOX_STEP_COUNT] = {
    [SANDBOX_STEP_NONE] = "starting the command",
    [SANDBOX_STEP_UNSHARE] = "making a mount namespace",
    [SANDBOX_STEP_JOIN] = "entering the sandbox's namespaces",
    [SANDBOX_STEP_IDMAP] = "mapping the user into its namespace",
    [SANDBOX_STEP_PRIVATE] = "making the mounts private",
    [SANDBOX_STEP_RO_ROOT] = "making every mount read-only",
    [SANDBOX_STEP_RW_BIND] = "binding a writable root",
    [SANDBOX_STEP_RO_BIND] = "binding a read-only path",
    [SANDBOX_STEP_HIDE] = "covering a hidden path",
    [SANDBOX_STEP_CHDIR] = "entering the working directory",
    [SANDBOX_STEP_CAPS] = "dropping root's capabilities",
    [SANDBOX_STEP_NO_NEW_PRIVS] = "setting no_new_privs",
    [SANDBOX_STEP_LANDLOCK] = "applying the Landlock rules",
    [SANDBOX_STEP_SECCOMP] = "installing the seccomp filter",
    [SANDBOX_STEP_SECCOMP_FD] = "handing the seccomp filter to bwrap",
};

const char *sandbox_step_name(int step)
{
    return step >= 0 && step < SANDBOX_STEP_COUNT && step_names[step] ? step_names[step]
                                                                       : "setting up the sandbox";
}

const char *sandbox_step_path(const sandbox *sb, int step, int index)
{
    if (step == SANDBOX_STEP_RW_BIND && index >= 0 && (size_t)index < sb->n_rw_mounts)
        return sb->rw_mounts[index].path;
    if (step == SANDBOX_STEP_RO_BIND && index >= 0 && (size_t)index < sb->n_ro_mounts)
        return sb->ro_mounts[index].path;
    if (step == SANDBOX_STEP_HIDE && index >= 0 && (size_t)index < sb->n_hide_mounts)
        return sb->hide_mounts[index].path;
    return "";
}

/* ---- looking for programs -------------------------------------------------------------- */

bool sandbox_which(const char *name, char *out, size_t cap)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0)
            return false;
        return (size_t)snprintf(out, cap, "%s", name) < cap;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        int w = n ? snprintf(out, cap, "%.*s/%s", (int)n, path, name)
                  : snprintf(out, cap, "./%s", name);
        struct stat st;
        if (w > 0 && (size_t)w < cap && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
            access(out, X_OK) == 0)
            return true;
        path += n;
        if (*path == ':')
            path++;
    }
    return false;
}

/* ---- the child's side -------------------------------------------------------------------- */

/* Capabilities a root child loses (from its bounding set, so its exec'd command never has
 * them): reading other processes (ptrace, /proc/<pid>/environ of an undumpable hew),
 * administration, modules, raw I/O, devices, the clock, network administration. */
static const int dropped_caps[] = {
    CAP_SYS_PTRACE, CAP_SYS_ADMIN,   CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_SYS_BOOT,
    CAP_MKNOD,      CAP_SYS_TIME,    CAP_NET_ADMIN,  CAP_NET_RAW,   CAP_SETFCAP,
    CAP_MAC_ADMIN,  CAP_MAC_OVERRIDE, CAP_SYS_CHROOT, CAP_LINUX_IMMUTABLE,
#ifdef CAP_BPF
    CAP_BPF,        CAP_PERFMON,
#endif
};

SANDBOX_IN_CHILD int sandbox_child_confine(const sandbox *sb, const char *cwd, int *step,
                                           int *index)
{
    *index = -1;
    int r = sandbox_ns_join(sb, step, index);
    if (r != 0)
        return r;
    *step = SANDBOX_STEP_CHDIR;
    if (cwd && chdir(cwd) != 0)
        return -errno;
    *step = SANDBOX_STEP_CAPS;
    if (sb->drop_caps)
        for (size_t i = 0; i < COUNT(dropped_caps); i++)
            if (prctl(PR_CAPBSET_DROP, dropped_caps[i], 0, 0, 0) != 0 && errno != EINVAL)
                return -errno;
    *step = SANDBOX_STEP_NO_NEW_PRIVS;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    *step = SANDBOX_STEP_LANDLOCK;
    if ((r = sandbox_landlock_restrict(sb)) != 0)
        return r;
    *step = SANDBOX_STEP_SECCOMP;
    if ((r = sandbox_seccomp_install(sb)) != 0)
        return r;
    *step = SANDBOX_STEP_NONE;
    return 0;
}

/* ---- probe --------------------------------------------------------------------------- */

static sandbox_caps probed;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static bool run_quietly(const char *const *argv, const sandbox *sb)
{
    proc_opts o = { 0 };
    o.argv = argv;
    o.sandbox = sb;
    o.timeout_ms = 30000; /* a safety net only: a probe that hangs is a failed probe */
    static const char *const no_env[] = { "PATH=/usr/bin:/bin", NULL };
    o.envp = no_env;
    buf out = BUF_INIT(4096);
    proc_status st;
    hew_err e;
    hew_code rc = proc_run(&o, &out, NULL, &st, &e);
    buf_release(&out);
    return rc == HEW_OK && st.end == PROC_EXITED && st.exit_code == 0;
}

static void fill_idmaps(sandbox *sb)
{
    snprintf(sb->uid_map, sizeof sb->uid_map, "%u %u 1\n", (unsigned)geteuid(),
             (unsigned)geteuid());
    snprintf(sb->gid_map, sizeof sb->gid_map, "%u %u 1\n", (unsigned)getegid(),
             (unsigned)getegid());
}

static void probe_now(void)
{
    sandbox_caps *c = &probed;
    memset(c, 0, sizeof *c);
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    c->landlock_abi = abi > 0 ? (int)abi : 0;
    c->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && sandbox_seccomp_arch_known();

    char truth[512];
    if (!sandbox_which("true", truth, sizeof truth))
        return; /* nothing to try namespaces with: say none */
    /* a mount namespace in the child, the way the landlock backend makes it */
    sandbox ns = { 0 };
    ns.mode = SANDBOX_READ_ONLY;
    ns.backend = SANDBOX_BACKEND_LANDLOCK;
    ns.ruleset_fd = -1;
    ns.userns_fd = ns.mntns_fd = -1;
    ns.mountns = true;
    ns.ro_root = true; /* all of it, as the backend does it (a container may refuse) */
    ns.userns = geteuid() != 0;
    fill_idmaps(&ns);
    const char *const argv[] = { truth, NULL };
    hew_err e = HEW_ERR_INIT;
    c->userns = sandbox_ns_make(&ns, &e) == HEW_OK && run_quietly(argv, &ns);
    if (ns.userns_fd >= 0)
        close(ns.userns_fd);
    if (ns.mntns_fd >= 0)
        close(ns.mntns_fd);

    char bw[256];
    if (sandbox_which("bwrap", bw, sizeof bw)) {
        const char *const bargv[] = { bw,        "--ro-bind", "/",   "/",         "--dev",
                                      "/dev",     "--proc",    "/proc", "--unshare-user",
                                      "--unshare-pid", "--unshare-net", "--die-with-parent",
                                      "--new-session", "--",   truth, NULL };
        if (run_quietly(bargv, NULL))
            snprintf(c->bwrap, sizeof c->bwrap, "%s", bw);
    }
}

void sandbox_probe(sandbox_caps *out)
{
    pthread_once(&probe_once, probe_now);
    *out = probed;
}

/* ---- prepare ------------------------------------------------------------------------ */

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void free_mounts(sandbox_mount *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(m[i].path);
    free(m);
}

void sandbox_free(sandbox *sb)
{
    if (!sb)
        return;
    if (sb->ruleset_fd >= 0)
        close(sb->ruleset_fd);
    if (sb->userns_fd >= 0)
        close(sb->userns_fd);
    if (sb->mntns_fd >= 0)
        close(sb->mntns_fd);
    free_list(sb->writable, sb->n_writable);
    free_list(sb->readonly, sb->n_readonly);
    free_list(sb->hidden, sb->n_hidden);
    free_mounts(sb->rw_mounts, sb->n_rw_mounts);
    free_mounts(sb->ro_mounts, sb->n_ro_mounts);
    free_mounts(sb->hide_mounts, sb->n_hide_mounts);
    free(sb->bpf);
    free_list(sb->bwrap_argv, sb->n_bwrap_argv);
    free(sb->gaps);
    free(sb);
}

/* A policy path made canonical: absolute, resolved through symlinks when it exists, no
 * trailing slash. A new string, or NULL with err set. */
static char *canonical(const char *p, const char *what, hew_err *err)
{
    if (!p || p[0] != '/') {
        hew_err_set(err, HEW_E_INVALID, "sandbox: %s \"%s\" is not an absolute path", what,
                    p ? p : "(null)");
        return NULL;
    }
    char *real = realpath(p, NULL);
    if (real)
        return real;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    char *copy = strndup(p, n);
    if (!copy)
        hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
    return copy;
}

static hew_code copy_paths(const char *const *in, const char *what, char ***out, size_t *n,
                           hew_err *err)
{
    size_t count = 0;
    while (in && in[count])
        count++;
    *out = calloc(count + 1, sizeof **out);
    *n = 0;
    if (!*out)
        return hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
    for (size_t i = 0; i < count; i++) {
        char *c = canonical(in[i], what, err);
        if (!c)
            return err ? err->code : HEW_E_INVALID;
        (*out)[(*n)++] = c;
    }
    return HEW_OK;
}

/* Whether path is dir or below it. */
static bool inside(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0)
        return true;
    return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static bool in_writable(const sandbox *sb, const char *path)
{
    for (size_t i = 0; i < sb->n_writable; i++)
        if (inside(sb->writable[i], path))
            return true;
    return false;
}

static hew_code add_mount(sandbox_mount **v, size_t *n, const char *path, bool is_dir,
                          hew_err *err)
{
    sandbox_mount *m = realloc(*v, (*n + 1) * sizeof **v);
    if (!m)
        return hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
    *v = m;
    char *copy = strdup(path);
    if (!copy)
        return hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
    m[*n] = (sandbox_mount){ copy, is_dir };
    (*n)++;
    return HEW_OK;
}

const char *const sandbox_scratch_dirs[] = { "/dev/shm" };
const size_t sandbox_n_scratch_dirs = COUNT(sandbox_scratch_dirs);

/* Plan the child's mount namespace (landlock backend): the read-only binds and hidden
 * covers inside the writable roots, and the whole tree read-only but the writable roots;
 * gaps for what cannot be done. */
static hew_code plan_mounts(sandbox *sb, const sandbox_caps *caps, buf *gaps, hew_err *err)
{
    hew_code rc = HEW_OK;
    for (size_t i = 0; rc == HEW_OK && i < sb->n_readonly; i++) {
        struct stat st;
        if (lstat(sb->readonly[i], &st) != 0) {
            if (in_writable(sb, sb->readonly[i]))
                buf_printf(gaps, "%s can be created (it did not exist when the sandbox was "
                                 "set up)\n", sb->readonly[i]);
            continue;
        }
        if (sb->backend == SANDBOX_BACKEND_LANDLOCK && in_writable(sb, sb->readonly[i]))
            rc = add_mount(&sb->ro_mounts, &sb->n_ro_mounts, sb->readonly[i],
                           S_ISDIR(st.st_mode), err);
    }
    for (size_t i = 0; rc == HEW_OK && i < sb->n_hidden; i++) {
        struct stat st;
        if (sb->backend != SANDBOX_BACKEND_LANDLOCK || !in_writable(sb, sb->hidden[i]) ||
            lstat(sb->hidden[i], &st) != 0)
            continue;
        rc = add_mount(&sb->hide_mounts, &sb->n_hide_mounts, sb->hidden[i], S_ISDIR(st.st_mode),
                       err);
    }
    if (rc != HEW_OK || sb->backend != SANDBOX_BACKEND_LANDLOCK)
        return rc;
    if (caps->userns) {
        /* the whole tree read-only at the mount level, the writable roots (and the scratch
         * dirs of workspace-write) writable again */
        for (size_t i = 0; rc == HEW_OK && i < sb->n_writable; i++) {
            struct stat st;
            if (stat(sb->writable[i], &st) == 0 && S_ISDIR(st.st_mode))
                rc = add_mount(&sb->rw_mounts, &sb->n_rw_mounts, sb->writable[i], true, err);
        }
        for (size_t i = 0; rc == HEW_OK && sb->mode == SANDBOX_WORKSPACE_WRITE &&
                           i < sandbox_n_scratch_dirs;
             i++) {
            struct stat st;
            const char *d = sandbox_scratch_dirs[i];
            if (stat(d, &st) == 0 && S_ISDIR(st.st_mode) && !in_writable(sb, d))
                rc = add_mount(&sb->rw_mounts, &sb->n_rw_mounts, d, true, err);
        }
        sb->ro_root = true;
        sb->mountns = true;
        sb->userns = geteuid() != 0;
        fill_idmaps(sb);
        return rc;
    }
    buf_puts(gaps, "file metadata (chmod, chown, timestamps) outside the writable roots is not "
                   "protected (no mount namespace; Landlock does not cover it)\n");
    if (sb->n_ro_mounts + sb->n_hide_mounts == 0)
        return HEW_OK;
    for (size_t i = 0; i < sb->n_ro_mounts; i++)
        buf_printf(gaps, "%s writable (no mount namespace)\n", sb->ro_mounts[i].path);
    for (size_t i = 0; i < sb->n_hide_mounts; i++)
        buf_printf(gaps, "%s readable (inside a writable root, no mount namespace)\n",
                   sb->hide_mounts[i].path);
    free_mounts(sb->ro_mounts, sb->n_ro_mounts);
    free_mounts(sb->hide_mounts, sb->n_hide_mounts);
    sb->ro_mounts = sb->hide_mounts = NULL;
    sb->n_ro_mounts = sb->n_hide_mounts = 0;
    return HEW_OK;
}

/* Whether the policy needs mounts the landlock backend can only make in a namespace. */
static bool needs_mounts(const sandbox *sb)
{
    for (size_t i = 0; i < sb->n_readonly; i++)
        if (in_writable(sb, sb->readonly[i]))
            return true;
    for (size_t i = 0; i < sb->n_hidden; i++)
        if (in_writable(sb, sb->hidden[i]))
            return true;
    return false;
}

static sandbox_backend choose(const sandbox *sb, const sandbox_caps *caps)
{
    bool ll = caps->landlock_abi >= 1 && (sb->network || sb->proxy_port <= 0 ||
                                          caps->landlock_abi >= 4);
    bool bw = caps->bwrap[0] && (sb->network || sb->proxy_port <= 0);
    if (ll && (caps->userns || !needs_mounts(sb)))
        return SANDBOX_BACKEND_LANDLOCK;
    if (bw)
        return SANDBOX_BACKEND_BWRAP;
    if (ll)
        return SANDBOX_BACKEND_LANDLOCK; /* with gaps */
    return SANDBOX_BACKEND_NONE;
}

/* Run bwrap's prefix once with `true`: a view it cannot build fails here, not later. */
static hew_code bwrap_try(const sandbox *sb, hew_err *err)
{
    char truth[512];
    if (!sandbox_which("true", truth, sizeof truth))
        return HEW_OK;
    const char *const argv[] = { truth, NULL };
    proc_opts o = { 0 };
    o.argv = argv;
    o.sandbox = sb;
    o.timeout_ms = 30000;
    static const char *const no_env[] = { "PATH=/usr/bin:/bin", NULL };
    o.envp = no_env;
    buf out = BUF_INIT(2048);
    proc_status st;
    hew_code rc = proc_run(&o, &out, NULL, &st, err);
    if (rc == HEW_OK && !(st.end == PROC_EXITED && st.exit_code == 0))
        rc = hew_err_set(err, HEW_E_UNSUPPORTED, "sandbox: bwrap cannot set up this policy: %s",
                         out.data ? out.data : "(no output)");
    buf_release(&out);
    return rc;
}

hew_code sandbox_prepare(const sandbox_policy *policy, sandbox **out, hew_err *err)
{
    *out = NULL;
    if (!policy)
        return hew_err_set(err, HEW_E_INVALID, "sandbox: no policy");
    if (policy->mode == SANDBOX_FULL_ACCESS)
        return HEW_OK;
    if (policy->mode != SANDBOX_READ_ONLY && policy->mode != SANDBOX_WORKSPACE_WRITE)
        return hew_err_set(err, HEW_E_INVALID, "sandbox: unknown mode %d", (int)policy->mode);
    sandbox *sb = calloc(1, sizeof *sb);
    if (!sb)
        return hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
    sb->ruleset_fd = -1;
    sb->userns_fd = sb->mntns_fd = -1;
    sb->drop_caps = geteuid() == 0;
    sb->mode = policy->mode;
    sb->network = policy->network;
    sb->proxy_port = policy->network ? 0 : policy->proxy_port;
    if (policy->proxy_port < 0 || policy->proxy_port > 65535) {
        sandbox_free(sb);
        return hew_err_set(err, HEW_E_INVALID, "sandbox: proxy port %d is out of range",
                           policy->proxy_port);
    }
    hew_code rc = copy_paths(policy->mode == SANDBOX_WORKSPACE_WRITE ? policy->writable_roots
                                                                     : NULL,
                             "writable root", &sb->writable, &sb->n_writable, err);
    if (rc == HEW_OK)
        rc = copy_paths(policy->readonly_paths, "read-only path", &sb->readonly,
                        &sb->n_readonly, err);
    if (rc == HEW_OK)
        rc = copy_paths(policy->hidden_paths, "hidden path", &sb->hidden, &sb->n_hidden, err);
    if (rc != HEW_OK) {
        sandbox_free(sb);
        return rc;
    }

    sandbox_caps caps;
    sandbox_probe(&caps);
    /* NONE in a policy (a zeroed one) means AUTO: only the mode says "unconfined" */
    sb->backend = policy->backend == SANDBOX_BACKEND_AUTO || policy->backend == SANDBOX_BACKEND_NONE
                      ? choose(sb, &caps)
                      : policy->backend;
    if ((unsigned)sb->backend > SANDBOX_BACKEND_BWRAP) {
        sandbox_free(sb);
        return hew_err_set(err, HEW_E_INVALID, "sandbox: unknown backend %d",
                           (int)policy->backend);
    }
    buf gaps = BUF_INIT(1 << 16);
    if (sb->backend == SANDBOX_BACKEND_NONE) {
        rc = hew_err_set(err, HEW_E_UNSUPPORTED,
                         "sandbox: this machine can enforce no sandbox here (Landlock ABI %d, "
                         "bubblewrap %s); install bubblewrap (Debian: apt-get install "
                         "bubblewrap), use a kernel with Landlock, or run with --sandbox "
                         "danger-full-access",
                         caps.landlock_abi, caps.bwrap[0] ? "found" : "not found");
    }
    if (rc == HEW_OK && caps.seccomp)
        rc = sandbox_seccomp_build(sb, err);
    if (rc == HEW_OK && !caps.seccomp)
        buf_puts(&gaps, sandbox_seccomp_arch_known()
                            ? "no seccomp filter (the kernel has none): ptrace, namespaces, "
                              "mount and sockets are not refused\n"
                            : "no seccomp filter for this architecture: ptrace, namespaces, "
                              "mount and sockets are not refused\n");
    if (rc == HEW_OK)
        rc = plan_mounts(sb, &caps, &gaps, err);
    if (rc == HEW_OK && sb->backend == SANDBOX_BACKEND_LANDLOCK)
        rc = sandbox_landlock_build(sb, caps.landlock_abi, err);
    if (rc == HEW_OK && sb->backend == SANDBOX_BACKEND_LANDLOCK && sb->mountns)
        rc = sandbox_ns_make(sb, err);
    if (rc == HEW_OK && sb->backend == SANDBOX_BACKEND_BWRAP)
        rc = sandbox_bwrap_build(sb, caps.bwrap, err);
    if (rc == HEW_OK && sb->backend == SANDBOX_BACKEND_LANDLOCK && !sb->network &&
        caps.landlock_abi < 4 && !caps.seccomp)
        buf_puts(&gaps, "the network is not off (no seccomp filter, Landlock ABI < 4)\n");
    if (rc == HEW_OK && sb->proxy_port > 0)
        buf_printf(&gaps, "TCP to port %d is allowed to any host, not only the proxy "
                          "(Landlock limits ports, not addresses)\n", sb->proxy_port);
    if (rc == HEW_OK && sb->backend == SANDBOX_BACKEND_BWRAP)
        rc = bwrap_try(sb, err);
    if (rc == HEW_OK) {
        rc = buf_check(&gaps, "sandbox gaps", err);
        if (rc == HEW_OK) {
            if (gaps.len && gaps.data[gaps.len - 1] == '\n')
                buf_truncate(&gaps, gaps.len - 1);
            sb->gaps = gaps.len ? buf_detach(&gaps, NULL) : strdup("");
            if (!sb->gaps)
                rc = hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
        }
    }
    buf_release(&gaps);
    if (rc != HEW_OK) {
        sandbox_free(sb);
        return rc;
    }
    /* A confined command runs as hew's user: unless hew is undumpable it could read hew's
     * environment (an API key) through /proc/<pid>/environ, which Landlock does not
     * refuse. Children are not affected (exec resets it). */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    *out = sb;
    return HEW_OK;
}

sandbox_backend sandbox_backend_of(const sandbox *sb)
{
    return sb ? sb->backend : SANDBOX_BACKEND_NONE;
}

sandbox_mode sandbox_mode_of(const sandbox *sb)
{
    return sb ? sb->mode : SANDBOX_FULL_ACCESS;
}

const char *sandbox_gaps(const sandbox *sb)
{
    return sb && sb->gaps ? sb->gaps : "";
}
