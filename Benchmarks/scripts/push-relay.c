/* The floor of a push (Benchmarks/scripts/bench-edges.sh): what the same harness measures with no daemon in
   the way. Two relays copy bytes as they come, each in one test host:
     push-relay a UNIX_PATH IP PORT   on alpha: takes the pusher's connection on UNIX_PATH, then
                                      connects to the other relay over TCP (the veth, as a
                                      session does);
     push-relay b UNIX_PATH PORT      on beta: takes that TCP connection on PORT, then the
                                      handler's on UNIX_PATH.
   Each copies every read to the other side at once (TCP_NODELAY) and ends when either side
   closes. Nothing is parsed, sealed or queued: the floor is the two sockets' hops and wake-ups. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

__attribute__((noreturn)) static void fail(const char *what) {
    perror(what);
    exit(1);
}

static int unix_listener(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (fd < 0 || strlen(path) >= sizeof a.sun_path) fail("push-relay: unix socket");
    strcpy(a.sun_path, path);
    unlink(path);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0) fail("push-relay: unix listen");
    return fd;
}

int main(int argc, char **argv) {
    int local, remote, one = 1;
    if (argc == 5 && strcmp(argv[1], "a") == 0) {
        int listener = unix_listener(argv[2]);
        if ((local = accept(listener, NULL, NULL)) < 0) fail("push-relay: accept");
        struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[4]))};
        if (inet_pton(AF_INET, argv[3], &peer.sin_addr) != 1) fail("push-relay: address");
        remote = socket(AF_INET, SOCK_STREAM, 0);
        if (remote < 0 || connect(remote, (struct sockaddr *)&peer, sizeof peer) != 0) fail("push-relay: connect");
    } else if (argc == 4 && strcmp(argv[1], "b") == 0) {
        int tcp = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[3]))};
        setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (tcp < 0 || bind(tcp, (struct sockaddr *)&any, sizeof any) != 0 || listen(tcp, 1) != 0) fail("push-relay: tcp listen");
        int listener = unix_listener(argv[2]);
        /* Both listening: the bench may connect. */
        printf("ready\n");
        fflush(stdout);
        if ((remote = accept(tcp, NULL, NULL)) < 0 || (local = accept(listener, NULL, NULL)) < 0) fail("push-relay: accept");
    } else {
        fprintf(stderr, "usage: push-relay a UNIX_PATH IP PORT | push-relay b UNIX_PATH PORT\n");
        return 2;
    }
    setsockopt(remote, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct pollfd fds[2] = {{.fd = local, .events = POLLIN}, {.fd = remote, .events = POLLIN}};
    char buffer[65536];
    for (;;) {
        if (poll(fds, 2, -1) < 0) return 1;
        for (int i = 0; i < 2; i++) {
            if (!fds[i].revents) continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n <= 0) return 0;
            if (write(fds[1 - i].fd, buffer, (size_t)n) != n) return 1;
        }
    }
}
