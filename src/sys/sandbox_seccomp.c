/* sandbox_seccomp — the seccomp filter both backends install: a hand-written classic-BPF
 * program, built once in sandbox_prepare. Why not libseccomp: it would be a build
 * dependency for ~50 instructions, and the only thing it does for us — checking the
 * architecture — is a few lines here, done by hand for x86_64 and aarch64. On any other
 * architecture there is no filter and sandbox_gaps says so (never a silent pass); a
 * system call made through another ABI than the one the filter was written for (i386's
 * int 0x80, x32 on x86_64) is refused outright.
 *
 * What it refuses (EPERM unless noted): ptrace and process_vm_readv/writev (reading or
 * steering hew or another process), mount and the new mount API, umount2, pivot_root,
 * setns, unshare, clone with any namespace flag, clone3 (ENOSYS, so libc falls back to
 * clone, whose flags BPF can read; clone3 passes them in memory BPF cannot see),
 * keyctl/add_key/request_key, bpf, perf_event_open, io_uring_setup (io_uring could open
 * sockets behind the filter's back), open_by_handle_at, the terminal ioctls that type
 * into hew's terminal (TIOCSTI, TIOCLINUX); with the network off, socket() for every
 * family but AF_UNIX — or, with the egress proxy, but AF_UNIX and TCP over AF_INET/6
 * (Landlock then allows the proxy's port only). It must never allow by default on an
 * architecture it does not know. */
#include "sys/sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SB_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SB_X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define SB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define SB_NS_FLAGS                                                                        \
    (CLONE_NEWUSER_ | CLONE_NEWNS_ | CLONE_NEWNET_ | CLONE_NEWPID_ | CLONE_NEWIPC_ |      \
     CLONE_NEWUTS_ | CLONE_NEWCGROUP_ | CLONE_NEWTIME_)
/* The values from <linux/sched.h>, which clashes with <sched.h>. */
#define CLONE_NEWTIME_ 0x00000080u
#define CLONE_NEWNS_ 0x00020000u
#define CLONE_NEWCGROUP_ 0x02000000u
#define CLONE_NEWUTS_ 0x04000000u
#define CLONE_NEWIPC_ 0x08000000u
#define CLONE_NEWUSER_ 0x10000000u
#define CLONE_NEWPID_ 0x20000000u
#define CLONE_NEWNET_ 0x40000000u

#ifdef SB_AUDIT_ARCH
/* Refused whatever their arguments. */
static const int denied_calls[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_mount, SYS_umount2,
    SYS_pivot_root, SYS_setns, SYS_unshare, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_bpf,
    SYS_perf_event_open, SYS_io_uring_setup, SYS_open_by_handle_at,
#ifdef SYS_open_tree
    SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
#endif
#ifdef SYS_mount_setattr
    SYS_mount_setattr,
#endif
};
#endif

bool sandbox_seccomp_arch_known(void)
{
#ifdef SB_AUDIT_ARCH
    return true;
#else
    return false;
#endif
}

#ifdef SB_AUDIT_ARCH
/* A tiny assembler: instructions, and jumps to labels patched at the end. */
enum { L_DENY, L_NOSYS, L_ALLOW, L_CLONE, L_IOCTL, L_SOCKET, L_SOCKTYPE, L_COUNT };

struct bpf_fix {
    int at, label; /* the jump's instruction, where it goes */
};

struct bpf_asm {
    struct sock_filter ins[128];
    int n;
    int label[L_COUNT];
    struct bpf_fix fix[128]; /* jumps (all on jt) to patch once the labels are placed */
    int nfix;
    bool overflow;
};

static void emit(struct bpf_asm *a, unsigned short code, unsigned jt, unsigned jf,
                 unsigned k)
{
    if (a->n >= (int)(sizeof a->ins / sizeof *a->ins)) {
        a->overflow = true;
        return;
    }
    a->ins[a->n++] = (struct sock_filter){ code, (unsigned char)jt, (unsigned char)jf, k };
}

/* if (A == k) goto label (else fall through) */
static void jeq_to(struct bpf_asm *a, unsigned k, int label)
{
    if (a->nfix >= (int)(sizeof a->fix / sizeof *a->fix)) {
        a->overflow = true;
        return;
    }
    a->fix[a->nfix++] = (struct bpf_fix){ a->n, label };
    emit(a, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, k);
}

/* if (A & k) goto label */
static void jset_to(struct bpf_asm *a, unsigned k, int label)
{
    if (a->nfix >= (int)(sizeof a->fix / sizeof *a->fix)) {
        a->overflow = true;
        return;
    }
    a->fix[a->nfix++] = (struct bpf_fix){ a->n, label };
    emit(a, BPF_JMP | BPF_JSET | BPF_K, 0, 0, k);
}

/* if (A >= k) goto label */
static void jge_to(struct bpf_asm *a, unsigned k, int label)
{
    if (a->nfix >= (int)(sizeof a->fix / sizeof *a->fix)) {
        a->overflow = true;
        return;
    }
    a->fix[a->nfix++] = (struct bpf_fix){ a->n, label };
    emit(a, BPF_JMP | BPF_JGE | BPF_K, 0, 0, k);
}

static void ret(struct bpf_asm *a, unsigned k)
{
    emit(a, BPF_RET | BPF_K, 0, 0, k);
}

static void load(struct bpf_asm *a, unsigned off)
{
    emit(a, BPF_LD | BPF_W | BPF_ABS, 0, 0, off);
}

static void place(struct bpf_asm *a, int label)
{
    a->label[label] = a->n;
}

/* Little-endian: the low 32 bits of argument i. */
#define ARG_LO(i) ((unsigned)offsetof(struct seccomp_data, args[i]))
#endif

hew_code sandbox_seccomp_build(sandbox *sb, hew_err *err)
{
#ifndef SB_AUDIT_ARCH
    (void)sb;
    (void)err;
    return HEW_OK; /* no filter: sandbox_prepare lists the gap */
#else
    struct bpf_asm *a = calloc(1, sizeof *a);
    if (!a)
        return hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
    bool sockets = !sb->network;
    bool proxy = sockets && sb->proxy_port > 0;

    load(a, (unsigned)offsetof(struct seccomp_data, arch));
    emit(a, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, SB_AUDIT_ARCH);
    ret(a, SECCOMP_RET_ERRNO | EPERM); /* another ABI: nothing passes */
    load(a, (unsigned)offsetof(struct seccomp_data, nr));
#ifdef SB_X32_BIT
    jge_to(a, SB_X32_BIT, L_DENY);
#endif
    for (size_t i = 0; i < sizeof denied_calls / sizeof *denied_calls; i++)
        jeq_to(a, (unsigned)denied_calls[i], L_DENY);
#ifdef SYS_clone3
    jeq_to(a, SYS_clone3, L_NOSYS);
#endif
    jeq_to(a, SYS_clone, L_CLONE);
    jeq_to(a, SYS_ioctl, L_IOCTL);
    if (sockets)
        jeq_to(a, SYS_socket, L_SOCKET);
    ret(a, SECCOMP_RET_ALLOW);

    place(a, L_CLONE); /* flags are the first argument on both architectures */
    load(a, ARG_LO(0));
    jset_to(a, SB_NS_FLAGS, L_DENY);
    ret(a, SECCOMP_RET_ALLOW);

    place(a, L_IOCTL);
    load(a, ARG_LO(1));
    jeq_to(a, TIOCSTI, L_DENY);
    jeq_to(a, TIOCLINUX, L_DENY);
    ret(a, SECCOMP_RET_ALLOW);

    if (sockets) {
        place(a, L_SOCKET);
        load(a, ARG_LO(0));
        jeq_to(a, AF_UNIX, L_ALLOW);
        if (proxy) {
            jeq_to(a, AF_INET, L_SOCKTYPE);
            jeq_to(a, AF_INET6, L_SOCKTYPE);
        }
        ret(a, SECCOMP_RET_ERRNO | EPERM);
        if (proxy) {
            place(a, L_SOCKTYPE);
            load(a, ARG_LO(1));
            emit(a, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xf); /* the type without its flags */
            jeq_to(a, SOCK_STREAM, L_ALLOW);
            ret(a, SECCOMP_RET_ERRNO | EPERM);
        }
    }
    place(a, L_DENY);
    ret(a, SECCOMP_RET_ERRNO | EPERM);
    place(a, L_NOSYS);
    ret(a, SECCOMP_RET_ERRNO | ENOSYS);
    place(a, L_ALLOW);
    ret(a, SECCOMP_RET_ALLOW);

    for (int i = 0; !a->overflow && i < a->nfix; i++) {
        int off = a->label[a->fix[i].label] - a->fix[i].at - 1;
        if (off < 0 || off > 255)
            a->overflow = true;
        else
            a->ins[a->fix[i].at].jt = (unsigned char)off;
    }
    hew_code rc = HEW_OK;
    if (a->overflow) {
        rc = hew_err_set(err, HEW_E_INTERNAL, "sandbox: the seccomp program does not fit");
    } else {
        sb->bpf = malloc((size_t)a->n * sizeof *sb->bpf);
        if (!sb->bpf) {
            rc = hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
        } else {
            memcpy(sb->bpf, a->ins, (size_t)a->n * sizeof *sb->bpf);
            sb->bpf_len = (unsigned short)a->n;
        }
    }
    free(a);
    return rc;
#endif
}

SANDBOX_IN_CHILD int sandbox_seccomp_install(const sandbox *sb)
{
    if (sb->bpf_len == 0)
        return 0;
    struct sock_fprog prog = { sb->bpf_len, sb->bpf };
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        return -errno;
    return 0;
}

int sandbox_seccomp_memfd(const sandbox *sb)
{
    int fd = (int)syscall(SYS_memfd_create, "hew-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    const char *p = (const char *)sb->bpf;
    size_t left = (size_t)sb->bpf_len * sizeof *sb->bpf;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            return -e;
        }
        p += w;
        left -= (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}
