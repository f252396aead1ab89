/** A counting semaphore: at most `max` tasks of a kind run at once, the rest wait in FIFO order. */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`Concurrency limit must be >= 1, got ${max}`);
  }

  /** Runs `task` once a slot is free; a waiter whose `signal` aborts leaves the queue without running. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running < this.max) this.running++;
    else await this.waitForSlot(signal);
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so no newcomer can slip in between.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      const go = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(go);
    });
  }
}
