#ifndef HANDOFF_EXECUTOR_HOOK_H
#define HANDOFF_EXECUTOR_HOOK_H

/* Sends every job Swift Concurrency puts on its global executor to `enqueue` instead of the
   Dispatch thread pool (the runtime's swift_task_enqueueGlobal_hook, the hook SwiftNIO's
   NIOSingletons takeover sets through dlsym; handoffd's release link exports no symbols, so
   dlsym cannot find it, and this sets it directly). Call once, before any task starts.
   Returns 0, or -1 if a hook was already set. */
int handoff_route_global_jobs(void (*enqueue)(void *job));

/* Runs a job taken from the hook as the global executor runs it: on the generic executor
   (swift_job_run with SerialExecutorRef::generic()). A job run as isolated to the event loop's
   own SerialExecutor, as SwiftNIO runs a job given to it, may not switch executors in place: the
   runtime then enqueues the task again at every actor hop and every return from one, each a
   trip through the loop's task queue (30-odd a push in each daemon, callgrind). */
void handoff_run_global_job(void *job);

#endif
