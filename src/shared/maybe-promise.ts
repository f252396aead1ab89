/**
 * Calls `next` with `value` — at once when it is a plain value, once it settles when it is a promise — or
 * `fail` with the promise's rejection. For hot paths whose answer is usually known at once: awaiting it
 * would cost a promise and a microtask turn every time. `next` must not throw (it hands the value on).
 */
export function whenSettled<T>(value: T | Promise<T>, next: (value: T) => void, fail: (error: unknown) => void): void {
  if (value instanceof Promise) value.then(next, fail);
  else next(value);
}

/** `fn` applied to `value`: at once to a plain value, on settling to a promise (a handler can answer without one). */
export function mapSettled<T, U>(value: T | Promise<T>, fn: (value: T) => U): U | Promise<U> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
