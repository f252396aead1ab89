import { describe, expect, test } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConcurrencyLimit } from '../../../../../src/server/engines/stt/limit.js';

describe('ConcurrencyLimit', () => {
  test('never runs more than `max` tasks at once, and runs them all in FIFO order', async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        limit.run(async () => {
          started.push(i);
          running++;
          peak = Math.max(peak, running);
          await sleep(5 + (i % 3));
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  test('a waiter whose signal aborts leaves the queue and never runs', async () => {
    const limit = new ConcurrencyLimit(1);
    let release!: () => void;
    const first = limit.run(() => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    let ran = false;
    const second = limit.run(async () => {
      ran = true;
    }, ac.signal);
    ac.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    release();
    await first;
    await limit.run(async () => undefined); // the slot was handed back
    expect(ran).toBe(false);
  });

  test('a failing task frees its slot', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(limit.run(async () => 42)).resolves.toBe(42);
  });

  test('rejects a limit below 1', () => {
    expect(() => new ConcurrencyLimit(0)).toThrow(RangeError);
  });
});
