#ifndef HANDOFF_LIBRARY_LOADER_H
#define HANDOFF_LIBRARY_LOADER_H

// A C library loaded on first use instead of at every start (CLDNS: libldns, CSystemdBus:
// libsystemd). Each function the Swift side calls is defined here, hidden, as a forwarder to the
// pointer handoff_library_load fills: hidden, so that the library's calls to its own functions
// are never captured by ours.
#include <pthread.h>
#include <stddef.h>

#define HANDOFF_FORWARD(ret, name, params, args)                                                              \
    static ret(*real_##name) params;                                                                          \
    __attribute__((visibility("hidden"))) ret name params { return real_##name args; }
#define HANDOFF_FORWARD_VOID(name, params, args)                                                              \
    static void(*real_##name) params;                                                                         \
    __attribute__((visibility("hidden"))) void name params { real_##name args; }
#define HANDOFF_ENTRY(name) {#name, (void **)&real_##name}

struct handoff_library_function {
    const char *name;
    void **slot;
};

struct handoff_library {
    const char *soname;
    const struct handoff_library_function *functions;
    size_t count;
    pthread_mutex_t lock;
    int loaded;
    const char *failure;
};

#define HANDOFF_LIBRARY(soname, functions)                                                                    \
    {soname, functions, sizeof functions / sizeof functions[0], PTHREAD_MUTEX_INITIALIZER, 0, NULL}

// Loads the library (RTLD_LOCAL: nothing of it, or of what it brings, is seen by later lookups)
// and finds every function. NULL when it is ready; else what went wrong (dlerror's text, kept
// until the next call). Safe to call more than once, from any thread.
const char *handoff_library_load(struct handoff_library *library);

#endif
