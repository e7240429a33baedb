#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include "handoff_shims.h"

/* Both ends close-on-exec from birth: a posix_spawn on another thread between pipe() and
   fcntl(FD_CLOEXEC) would otherwise inherit them. */
int handoff_pipe2_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int handoff_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

long handoff_splice(int in, int out, unsigned long len) {
    return splice(in, NULL, out, NULL, len, SPLICE_F_MOVE | SPLICE_F_MORE);
}

int handoff_set_pipe_size(int fd, int size) { return fcntl(fd, F_SETPIPE_SZ, size); }

#include <spawn.h>
/* glibc 2.34's: every descriptor from `fd` up closed in the child. */
int handoff_spawn_close_from(void *actions, int fd) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, fd);
}

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

long handoff_send_with_fd(int sock, const void *buf, unsigned long len, int fd) {
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    union {
        char bytes[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof(control));
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof(control.bytes)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    return (long)sendmsg(sock, &msg, MSG_NOSIGNAL);
}

long handoff_recv_with_fd(int sock, void *buf, unsigned long len, int *fd) {
    *fd = -1;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    union {
        char bytes[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof(control.bytes)};
    ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0) return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            int fds[4];
            memcpy(fds, CMSG_DATA(c), sizeof(int) * (count < 4 ? count : 4));
            for (int i = 0; i < count && i < 4; i++) {
                /* One descriptor is expected: any more are closed, never leaked. */
                if (*fd < 0) *fd = fds[i]; else close(fds[i]);
            }
        }
    }
    return (long)n;
}

int handoff_accept_cloexec(int sock) { return accept4(sock, NULL, NULL, SOCK_CLOEXEC); }

#include <pthread.h>

void handoff_name_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    pthread_setname_np(pthread_self(), shortened);
}

#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include <stdio.h>

/* The file-backed pages mapped in this process, in bytes (RssFile of /proc/self/status), or -1.
   Not mincore: for a file mapping it says whether a page is in the page cache, which the
   madvise below does not change, so it always reported 0 released. */
static long resident_file_bytes(void) {
    FILE *f = fopen("/proc/self/status", "re");
    if (!f) return -1;
    char line[128];
    long kib = -1;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "RssFile: %ld kB", &kib) == 1) break;
    }
    fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

long handoff_release_startup_pages(void) {
    const ElfW(Phdr) *phdr = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    size_t count = getauxval(AT_PHNUM);
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t bias = 0;
    int found = 0;
    if (!phdr || count == 0 || page <= 0) return 0;
    for (size_t i = 0; i < count; i++) {
        if (phdr[i].p_type == PT_PHDR) {
            bias = (uintptr_t)phdr - phdr[i].p_vaddr;
            found = 1;
        }
    }
    if (!found) return 0;
    long before = resident_file_bytes();
    for (size_t i = 0; i < count; i++) {
        if (phdr[i].p_type != PT_LOAD || (phdr[i].p_flags & PF_W)) continue;
        /* Whole pages inside the segment only: a page shared with a writable neighbour stays. */
        uintptr_t start = (bias + phdr[i].p_vaddr + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
        uintptr_t end = (bias + phdr[i].p_vaddr + phdr[i].p_memsz) / (uintptr_t)page * (uintptr_t)page;
        if (end <= start) continue;
        size_t length = end - start;
        madvise((void *)start, length, MADV_RANDOM);
        madvise((void *)start, length, MADV_DONTNEED);
    }
    long after = resident_file_bytes();
    malloc_trim(0);
    return before < 0 || after < 0 ? -1 : before - after;
}

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>

int handoff_stop_signals_fd(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int rc = pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        errno = e;
    }
    return fd;
}

void handoff_return_large_allocations(long bytes) { mallopt(M_MMAP_THRESHOLD, (int)bytes); }
