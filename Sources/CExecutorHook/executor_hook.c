#include "executor_hook.h"
#include <stddef.h>

/* The runtime's hook: SWIFT_CC(swift) void (*)(Job *job, original enqueue). */
extern void *swift_task_enqueueGlobal_hook;

static void (*route_to)(void *job);

__attribute__((swiftcall)) static void routed_enqueue(void *job, void *original) {
    (void)original;
    route_to(job);
}

int handoff_route_global_jobs(void (*enqueue)(void *job)) {
    if (swift_task_enqueueGlobal_hook != NULL) return -1;
    route_to = enqueue;
    __atomic_store_n(&swift_task_enqueueGlobal_hook, (void *)routed_enqueue, __ATOMIC_SEQ_CST);
    return 0;
}
