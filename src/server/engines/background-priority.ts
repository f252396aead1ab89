/**
 * The service's own CPU work runs below the event loop that times vendor requests (DESIGN §15.4): a
 * provider's latency must not include the time our recognisers and synthesis kept the main thread off a
 * core. PocketSphinx children and TTS worker threads run at nice 10; the main thread stays at the nice it
 * was started with. On Linux the nice value is per thread, so a worker thread can lower itself alone.
 */
import { setPriority } from 'node:os';

/** The nice value of local recognition and synthesis: scheduled well below a nice-0 event loop, never starved. */
export const BACKGROUND_NICE = 10;

/**
 * Lowers a child process just spawned (by its pid) to BACKGROUND_NICE; every program it execs keeps it.
 * Never throws: a child that already exited, or a system that refuses, leaves the work at its priority.
 */
export function lowerChildPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, BACKGROUND_NICE);
  } catch {
    // Gone already (ESRCH), or not allowed: the work still runs, only unlowered.
  }
}

/**
 * Lowers the calling thread to BACKGROUND_NICE (`setpriority(PRIO_PROCESS, 0)` acts on the calling thread
 * on Linux; elsewhere on the whole process, so call it only from a worker thread on Linux). Threads the
 * caller creates later inherit its nice value: libuv's thread pool, shared with the main thread, must
 * already exist (see the TTS worker). Never throws.
 */
export function lowerThisThread(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, BACKGROUND_NICE);
  } catch {
    // Not allowed (a seccomp profile): synthesis runs at the thread's priority.
  }
}
