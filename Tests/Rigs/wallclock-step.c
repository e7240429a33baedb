// An LD_PRELOAD shim for Tests/Rigs/chaos.sh: the wall clock (CLOCK_REALTIME through clock_gettime,
// gettimeofday and time) of one process shifted by the seconds written in the file named by
// $WALLCLOCK_STEP_FILE (e.g. "-3600"), read again at most every 100 ms. Every other clock
// (CLOCK_MONOTONIC, CLOCK_BOOTTIME) is left alone, as a real step of the wall clock (NTP, a person
// setting the time, a restored virtual machine) leaves them. libfaketime does this too, but under
// it our statically linked Swift binaries sometimes started with no command-line arguments.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime(void) {
  static _Atomic(clock_gettime_fn) real;
  clock_gettime_fn f = atomic_load(&real);
  if (!f) {
    f = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    atomic_store(&real, f);
  }
  return f;
}

static long shift_seconds(void) {
  static _Atomic long shift, read_at_ms;
  struct timespec mono;
  real_clock_gettime()(CLOCK_MONOTONIC, &mono);
  long ms = mono.tv_sec * 1000 + mono.tv_nsec / 1000000;
  if (ms - atomic_load(&read_at_ms) >= 100) {
    atomic_store(&read_at_ms, ms);
    const char *path = getenv("WALLCLOCK_STEP_FILE");
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
      char text[32] = {0};
      ssize_t n = read(fd, text, sizeof text - 1);
      close(fd);
      if (n > 0) atomic_store(&shift, strtol(text, NULL, 10));
    }
  }
  return atomic_load(&shift);
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  int r = real_clock_gettime()(id, ts);
  if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += shift_seconds();
  return r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  (void)tz;
  struct timespec ts;
  int r = clock_gettime(CLOCK_REALTIME, &ts);
  if (r == 0) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  return r;
}

time_t time(time_t *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}
