#ifndef HANDOFF_EXECUTOR_HOOK_H
#define HANDOFF_EXECUTOR_HOOK_H

/* Sends every job Swift Concurrency puts on its global executor to `enqueue` instead of the
   Dispatch thread pool (the runtime's swift_task_enqueueGlobal_hook, the hook SwiftNIO's
   NIOSingletons takeover sets through dlsym; handoffd's release link exports no symbols, so
   dlsym cannot find it, and this sets it directly). Call once, before any task starts.
   Returns 0, or -1 if a hook was already set. */
int handoff_route_global_jobs(void (*enqueue)(void *job));

#endif
