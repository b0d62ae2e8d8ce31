/* Tests for egress_adopt: a child in a network namespace of its own (a new user and
 * network namespace, as a sandbox backend would make one between fork and exec) binds
 * 127.0.0.1 at the proxy's port there and hands the listening socket to hew; the proxy
 * adopts it. Proves: from inside, a direct connection to a host listener fails (no route
 * out of the namespace at all), the proxy is reached at the same address the child's
 * HTTP_PROXY names, it forwards to an allowed origin in hew's namespace and refuses a
 * host not listed; a released listener is closed (the child's next connect fails); adopt
 * refuses what is not a listening socket, and a stopped proxy. Where this machine cannot
 * make the namespaces (no unprivileged user namespaces) it says so and exits 77.
 *
 * The child runs only system calls between fork and _exit (the test has threads). */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "net/egress.h"
#include "origin.h"

/* What the child reports, one byte each. */
enum { T_OK = 'o', T_REFUSED = 'r', T_OTHER = 'x', T_200 = '2', T_403 = '4', T_NS = 'n' };

static int send_fd(int s, int fd)
{
    char c = 'f';
    struct iovec io = { &c, 1 };
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr m = { 0 };
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = u.b;
    m.msg_controllen = sizeof u.b;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    return sendmsg(s, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int s)
{
    char c;
    struct iovec io = { &c, 1 };
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr m = { 0 };
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = u.b;
    m.msg_controllen = sizeof u.b;
    if (recvmsg(s, &m, 0) != 1)
        return -1;
    if (c != 'f')
        return -(int)c - 1000; /* the child could not make its namespace */
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    if (!cm || cm->cmsg_type != SCM_RIGHTS)
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(cm), sizeof fd);
    return fd;
}

static int tcp_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)port);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Send req over a new connection to the proxy, read the status digit: T_200, T_403,
 * T_OTHER; T_REFUSED when the proxy could not be reached. */
static char ask(int port, const char *req, size_t len)
{
    int fd = tcp_to(port);
    if (fd < 0)
        return T_REFUSED;
    struct timeval tv = { 20, 0 }; /* a safety net: nobody accepting must not hang */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)!write(fd, req, len);
    char b[16];
    size_t got = 0;
    while (got < 12) {
        ssize_t n = read(fd, b + got, 12 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (got < 12)
        return T_OTHER;
    return b[9] == '2' && b[10] == '0' && b[11] == '0' ? T_200
         : b[9] == '4' && b[10] == '0' && b[11] == '3' ? T_403
                                                       : T_OTHER;
}

/* The child: its own namespaces, lo up, a listener at the proxy's port, handed over;
 * then (on 'g') the tries, reported as bytes; then (on 'h', after the release) one more
 * connect. System calls only. */
static void child(int sp, int proxy_port, int origin_port, const char *get, size_t get_len,
                  const char *connect_other, size_t other_len)
{
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        char c = T_NS;
        (void)!write(sp, &c, 1);
        _exit(0);
    }
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, "lo", 3);
    if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
        _exit(3);
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
        _exit(4);
    close(s);
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)proxy_port);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0 ||
        send_fd(sp, l) != 0)
        _exit(5);
    close(l);
    char go;
    if (read(sp, &go, 1) != 1)
        _exit(6);
    char r[4];
    int d = tcp_to(origin_port);
    r[0] = d < 0 ? T_REFUSED : T_OK;
    if (d >= 0)
        close(d);
    r[1] = ask(proxy_port, get, get_len);
    r[2] = ask(proxy_port, connect_other, other_len);
    (void)!write(sp, r, 3);
    if (read(sp, &go, 1) != 1)
        _exit(7);
    r[3] = ask(proxy_port, get, get_len);
    (void)!write(sp, r + 3, 1);
    _exit(0);
}

static bool skipped;

static void test_adopted_listener_in_a_namespace(void)
{
    origin o;
    origin_start(&o, ORIGIN_HTTP);
    char allow[64], get[128];
    snprintf(allow, sizeof allow, "127.0.0.1:%d", o.port);
    snprintf(get, sizeof get, "GET http://127.0.0.1:%d/ns HTTP/1.1\r\n\r\n", o.port);
    static const char other[] = "CONNECT example.org:443 HTTP/1.1\r\n\r\n";
    egress *e = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(egress_start((const char *const[]){ allow, NULL }, &e, &err) == HEW_OK);
    int sp[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(sp[0]);
        child(sp[1], egress_port(e), o.port, get, strlen(get), other, sizeof other - 1);
    }
    close(sp[1]);
    int l = recv_fd(sp[0]);
    if (l == -(int)T_NS - 1000) {
        printf("SKIP: this machine cannot make a user and network namespace (unprivileged "
               "user namespaces off?)\n");
        skipped = true;
    } else if (l < 0) {
        check_fail(__FILE__, __LINE__, "the child sent no listener (%d)", l);
    } else {
        CHECK_INT(egress_adopt(e, l, &err), HEW_OK);
        char r[4] = { 0 };
        CHECK(write(sp[0], "g", 1) == 1);
        struct pollfd p = { sp[0], POLLIN, 0 };
        CHECK(poll(&p, 1, 60000) == 1 && read(sp[0], r, 3) == 3);
        CHECK_INT(r[0], T_REFUSED); /* no route out of the namespace */
        CHECK_INT(r[1], T_200);     /* the allowed origin, through the adopted listener */
        CHECK_INT(r[2], T_403);     /* a host not listed */
        CHECK_INT(origin_accepts(&o), 1);
        CHECK(strncmp(o.head, "GET /ns HTTP/1.1\r\n", 18) == 0);
        /* released: closed by the proxy's thread, so the child's next try finds no one */
        egress_release(e, l);
        CHECK(write(sp[0], "h", 1) == 1);
        CHECK(poll(&p, 1, 60000) == 1 && read(sp[0], r + 3, 1) == 1);
        CHECK_INT(r[3], T_REFUSED);
        CHECK_INT(origin_accepts(&o), 1);
    }
    if (check_failures)
        kill(pid, SIGKILL); /* a child stuck on a broken proxy must not hang the test */
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(sp[0]);
    egress_free(e);
    origin_stop(&o);
}

static void test_adopt_refuses(void)
{
    egress *e = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(egress_start(NULL, &e, &err) == HEW_OK);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); /* not listening */
    CHECK_INT(egress_adopt(e, s, &err), HEW_E_INVALID);
    CHECK_INT(egress_adopt(e, -1, &err), HEW_E_INVALID);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(s, (struct sockaddr *)&a, sizeof a) == 0 && listen(s, 4) == 0);
    egress_release(e, s); /* not adopted: ignored, still ours */
    egress_stop(e);
    CHECK_INT(egress_adopt(e, s, &err), HEW_E_STATE);
    CHECK(strstr(err.msg, "stopped") != NULL);
    close(s); /* on error it stayed ours */
    egress_free(e);
}

int main(void)
{
    RUN(test_adopt_refuses);
    RUN(test_adopted_listener_in_a_namespace);
    int rc = check_report();
    return rc == 0 && skipped ? 77 : rc;
}
