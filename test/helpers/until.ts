/**
 * Waits until `check` holds, polling every `everyMs`; throws `condition not reached` after `ms`. Tests wait
 * on what a real process does (a folder appears, a row is stored), which no event announces.
 */
export async function until(check: () => boolean | Promise<boolean>, ms = 60_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Waits until `check` returns a value and returns it, as `until` does. */
export async function untilFound<T>(check: () => T | undefined, ms = 60_000, everyMs = 10): Promise<T> {
  let found: T | undefined;
  await until(() => (found = check()) !== undefined, ms, everyMs);
  return found as T;
}
