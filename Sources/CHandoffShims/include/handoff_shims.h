#ifndef HANDOFF_SHIMS_H
#define HANDOFF_SHIMS_H

/* glibc declares pipe2 only under _GNU_SOURCE, which Swift's Glibc module does not set. */
int handoff_pipe2_cloexec(int fds[2]);

/* A non-blocking NETLINK_ROUTE socket in the link and address groups, or -1 (errno set). */
int handoff_netlink_open(void);

#endif
