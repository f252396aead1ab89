import { AsyncLocalStorage } from 'node:async_hooks';

/** Which open transaction an async context belongs to (the seams' view of "am I inside a transaction?"). */
export interface TransactionContext<T> {
  /** The open transaction the calling async context runs in, if any. */
  current(): T | undefined;
  /** Runs `fn` in transaction `tx`: `current()` answers `tx` in `fn` and in everything it awaits. */
  run<R>(tx: T, fn: () => Promise<R>): Promise<R>;
}

/**
 * An AsyncLocalStorage that is on only while a transaction is open. On Node 20 an enabled
 * AsyncLocalStorage installs promise hooks for the whole process: every promise then calls into them,
 * which cost a fifth of an authenticated GET's time under load although such a GET opens no transaction.
 * Switched off whenever the last open transaction ends, it costs nothing between transactions (Node 24
 * and later keep the context in a frame instead, where switching off changes nothing). Outside every
 * transaction `current()` is undefined on each Node, even in a promise a finished transaction left behind.
 */
export function createTransactionContext<T>(): TransactionContext<T> {
  const storage = new AsyncLocalStorage<T>();
  let open = 0;
  return {
    current: () => (open === 0 ? undefined : storage.getStore()),
    async run(tx, fn) {
      open++;
      try {
        return await storage.run(tx, fn);
      } finally {
        if (--open === 0) storage.disable();
      }
    },
  };
}
