#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include "handoff_shims.h"

/* Both ends close-on-exec from birth: a posix_spawn on another thread between pipe() and
   fcntl(FD_CLOEXEC) would otherwise inherit them. */
int handoff_pipe2_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>

/* A route netlink socket subscribed to address and link changes. Its datagrams are only counted
   (each means "look again at the addresses"), so no rtnetlink message is parsed here. */
int handoff_netlink_open(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl sa;
    memset(&sa, 0, sizeof sa);
    sa.nl_family = AF_NETLINK;
    sa.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}
