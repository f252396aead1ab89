/**
 * Calls `next` with `value` — at once when it is a plain value, once it settles when it is a promise — or
 * `fail` with the promise's rejection. For hot paths whose answer is usually known at once: awaiting it
 * would cost a promise and a microtask turn every time. `next` must not throw (it hands the value on).
 */
export function whenSettled<T>(value: T | Promise<T>, next: (value: T) => void, fail: (error: unknown) => void): void {
  if (value instanceof Promise) value.then(next, fail);
  else next(value);
}
