/** Interval of the probe timer, in ms: short enough that a blocked loop loses most of its ticks. */
const TICK_MS = 5;

/**
 * Watches this thread's event loop and, on `stop()`, returns the share of the watched time it was free
 * to run timers (ticks seen × tick ÷ elapsed, at most 1). A ratio, not a latency: a slow or busy machine
 * stretches the work and the ticks alike, while work run on this thread leaves long tickless gaps.
 */
export function watchEventLoop(): { stop(): number } {
  const started = performance.now();
  let ticks = 0;
  const timer = setInterval(() => ticks++, TICK_MS);
  return {
    stop() {
      clearInterval(timer);
      const elapsed = performance.now() - started;
      return Math.min(1, (ticks * TICK_MS) / elapsed);
    },
  };
}

/**
 * Runs `work` and reports how freely this thread's timers ran during it (`busy`) next to a baseline
 * taken just before with nothing to do (`idle`, over `idleMs`): comparing the two cancels out how
 * loaded the machine is. Work run on this thread drives `busy` towards 0.
 */
export async function loopFreedomDuring<T>(work: () => Promise<T>, idleMs = 300): Promise<{ idle: number; busy: number; result: T }> {
  const quiet = watchEventLoop();
  await new Promise((r) => setTimeout(r, idleMs));
  const idle = quiet.stop();
  const loop = watchEventLoop();
  const result = await work();
  return { idle, busy: loop.stop(), result };
}
