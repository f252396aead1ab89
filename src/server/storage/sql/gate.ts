/**
 * A FIFO lock for the one SQLite connection of a process: while a transaction holds it, queries of other
 * async contexts wait, so they can neither read its uncommitted rows nor slip their writes into it.
 */
export interface Gate {
  /** True while someone holds the gate. */
  readonly held: boolean;
  /** Resolves when the caller holds the gate. */
  acquire(): Promise<void>;
  /** Hands the gate to the next waiter (or frees it). */
  release(): void;
  /** Resolves once the gate is free (without taking it). */
  idle(): Promise<void>;
}

/** A gate with no holder. */
export function createGate(): Gate {
  let held = false;
  const waiters: (() => void)[] = [];
  const gate: Gate = {
    get held() {
      return held;
    },
    acquire() {
      if (!held) {
        held = true;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    release() {
      const next = waiters.shift();
      if (next) next();
      else held = false;
    },
    async idle() {
      while (held) {
        await gate.acquire();
        gate.release();
      }
    },
  };
  return gate;
}
