#ifndef HANDOFF_SHIMS_H
#define HANDOFF_SHIMS_H

/* glibc declares pipe2 only under _GNU_SOURCE, which Swift's Glibc module does not set. */
int handoff_pipe2_cloexec(int fds[2]);
/* A posix_spawn_file_actions_t (passed as a pointer) closes every descriptor from `fd` up. */
int handoff_spawn_close_from(void *actions, int fd);

/* A non-blocking NETLINK_ROUTE socket in the link and address groups, or -1 (errno set). */
int handoff_netlink_open(void);

/* Sends len bytes and one descriptor (SCM_RIGHTS) in one sendmsg (MSG_NOSIGNAL); returns the
   bytes sent or -1 (errno set). The CMSG macros do not import into Swift. */
long handoff_send_with_fd(int sock, const void *buf, unsigned long len, int fd);

/* Receives up to len bytes; a descriptor passed with them is stored in *fd (close-on-exec),
   else *fd is -1. Returns the bytes read, 0 at the end, or -1 (errno set). */
long handoff_recv_with_fd(int sock, void *buf, unsigned long len, int *fd);

/* accept4 with SOCK_CLOEXEC (glibc declares accept4 only under _GNU_SOURCE). */
int handoff_accept_cloexec(int sock);

/* Starts writing back [offset, offset + length) of a file without waiting (sync_file_range with
   SYNC_FILE_RANGE_WRITE; glibc declares it only under _GNU_SOURCE): a large file written as it
   arrives is then mostly on disk when its fsync comes. 0, or -1 (errno set). */
int handoff_start_writeback(int fd, long long offset, long long length);

/* Moves up to len bytes from in to out inside the kernel (splice(2), one of them a pipe; glibc
   declares it only under _GNU_SOURCE): a received file is written from the stream's socket
   without passing through the process. The count, 0 at the end, or -1 (errno set). */
long handoff_splice(int in, int out, unsigned long len);

/* The pipe's capacity (F_SETPIPE_SZ): its new size, or -1 (errno set). */
int handoff_set_pipe_size(int fd, int size);

/* Names the calling thread (at most 15 bytes are kept); glibc declares pthread_setname_np only
   under _GNU_SOURCE. */
void handoff_name_thread(const char *name);

/* Gives back the pages of the main executable that start-up touched and the process does not
   use any more: its segments the ELF program headers mark not writable (code, read-only data; never
   the relocated RELRO data or the data segments, which are private copies) are told MADV_RANDOM
   (no fault-around: a page comes back alone, when it is used) and MADV_DONTNEED (unmapped here;
   the pages stay in the page cache, so one needed again is a minor fault), and the heap's free
   pages go back with malloc_trim. Returns the bytes of file-backed pages no longer mapped in this
   process (RssFile before and after), or -1 when /proc/self/status cannot be read. */
long handoff_release_startup_pages(void);

/* SIGTERM and SIGINT blocked in the calling thread (and so in every thread it starts later) and
   readable instead from the returned signalfd (non-blocking, close-on-exec): the daemon reads its
   stop signals on its own event loop. Returns -1 (errno set, the signals left as they were) when
   the descriptor cannot be made. Call before any other thread exists: a thread started earlier
   keeps its mask, and a signal the kernel gives it would end the process. */
int handoff_stop_signals_fd(void);

/* Allocations of `bytes` and more come from mmap and go back to the system when freed, whatever
   sizes were freed before (glibc raises its threshold after each large free, and the heap then
   keeps the pages: the clipboard agent sat at 40 MiB after five 10 MB pastes, 11 with this). */
void handoff_return_large_allocations(long bytes);

#endif
