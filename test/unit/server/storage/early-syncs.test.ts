/**
 * A batch's fsyncs start as its files are written, a bounded few at a time, and the batch's `sync` takes
 * their outcome — an error included, since the kernel reports a failed writeback to one fsync only.
 */
import { describe, expect, it } from 'vitest';
import { createEarlySyncs } from '../../../../src/server/storage/blobs/early-syncs.js';

/** An fsync stand-in whose calls the test settles one by one. */
function controlledSync() {
  const calls: { path: string; settle: (err?: Error) => void }[] = [];
  const sync = (path: string) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ path, settle: (err) => (err ? reject(err) : resolve()) });
    });
  return { calls, sync };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('early fsyncs of a batch', () => {
  it('runs at most the limit at once, the rest starting as each ends, in the order scheduled', async () => {
    const { calls, sync } = controlledSync();
    const early = createEarlySyncs(sync, 2);
    for (const p of ['a', 'b', 'c', 'd']) early.schedule(p);
    expect(calls.map((c) => c.path)).toEqual(['a', 'b']);
    calls[0]!.settle();
    await turn();
    expect(calls.map((c) => c.path)).toEqual(['a', 'b', 'c']);
    calls[1]!.settle();
    calls[2]!.settle();
    await turn();
    expect(calls.map((c) => c.path)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('hands a started fsync to take, once; a queued one is dropped so the caller syncs the file itself', async () => {
    const { calls, sync } = controlledSync();
    const early = createEarlySyncs(sync, 1);
    early.schedule('a');
    early.schedule('b');
    const a = early.take('a');
    expect(a).toBeInstanceOf(Promise);
    expect(early.take('a')).toBeUndefined();
    expect(early.take('b')).toBeUndefined();
    calls[0]!.settle();
    await expect(a).resolves.toBeUndefined();
    await turn();
    // 'b' was taken before it started: it never runs here.
    expect(calls.map((c) => c.path)).toEqual(['a']);
  });

  it("keeps an fsync's error for take, and raises no unhandled rejection when nobody takes it", async () => {
    const { calls, sync } = controlledSync();
    const early = createEarlySyncs(sync, 2);
    early.schedule('bad');
    early.schedule('lost');
    calls[0]!.settle(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    calls[1]!.settle(new Error('nobody asks'));
    await turn();
    await expect(early.take('bad')).rejects.toMatchObject({ code: 'EIO' });
    early.forget('lost');
    expect(early.take('lost')).toBeUndefined();
  });

  it('forgets a removed file: queued, it never starts', async () => {
    const { calls, sync } = controlledSync();
    const early = createEarlySyncs(sync, 1);
    early.schedule('a');
    early.schedule('gone');
    early.forget('gone');
    calls[0]!.settle();
    await turn();
    expect(calls.map((c) => c.path)).toEqual(['a']);
  });
});
