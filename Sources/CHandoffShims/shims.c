#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include "handoff_shims.h"

/* Both ends close-on-exec from birth: a posix_spawn on another thread between pipe() and
   fcntl(FD_CLOEXEC) would otherwise inherit them. */
int handoff_pipe2_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
