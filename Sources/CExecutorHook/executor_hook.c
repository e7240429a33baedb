#include "executor_hook.h"
#include <stddef.h>
#include <stdint.h>

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

/* SWIFT_CC(swift) void swift_job_run(Job *job, SerialExecutorRef executor): the runtime's entry
   for an executor running a job. SerialExecutorRef is two words, identity and implementation,
   which the Swift calling convention passes as two arguments; {NULL, 0} is the generic executor. */
__attribute__((swiftcall)) extern void swift_job_run(void *job, void *identity, uintptr_t implementation);

void handoff_run_global_job(void *job) { swift_job_run(job, NULL, 0); }
