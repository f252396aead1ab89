import { describe, expect, it } from 'vitest';
import { achievedPace, FrameScheduler, type SchedulerClock } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';

/** A manual clock: timers fire when `advance` passes them, possibly late by `lateBy` ms. */
function fakeClock() {
  let t = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let ids = 0;
  const created: number[] = [];
  const clock: SchedulerClock & { advance(ms: number, lateBy?: number): void; created: number[]; pending(): number } = {
    now: () => t,
    setTimer(fn, ms) {
      const id = ++ids;
      created.push(ms);
      timers.push({ at: t + ms, fn, id });
      return id;
    },
    clearTimer(h) {
      timers = timers.filter((x) => x.id !== h);
    },
    advance(ms, lateBy = 0) {
      const end = t + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at + lateBy > end) break;
        timers.shift();
        t = next.at + lateBy;
        next.fn();
      }
      t = end;
    },
    created,
    pending: () => timers.length,
  };
  return clock;
}

describe('FrameScheduler', () => {
  it('sends frame k at start + k·20/pace and resolves after the last', async () => {
    const clock = fakeClock();
    const s = new FrameScheduler(clock);
    const sent: number[] = [];
    const p = s.add({ frames: 5, frameMs: 20, pace: 2, send: (k) => sent.push(k) });
    expect(sent).toEqual([0]);
    clock.advance(100);
    await p.done;
    expect(sent).toEqual([0, 1, 2, 3, 4]);
    expect(p.sentAt).toEqual([0, 10, 20, 30, 40]);
    expect(achievedPace(p.sentAt, 20)).toBe(2);
    expect(s.active).toBe(0);
  });

  it('catches up after a late wake-up without drifting: later frames keep their due times', async () => {
    const clock = fakeClock();
    const s = new FrameScheduler(clock);
    const p = s.add({ frames: 10, frameMs: 20, pace: 1, send: () => undefined });
    clock.advance(80, 55); // the first wake-up comes 55 ms late: frames 1..3 go out together
    expect(p.sentAt).toEqual([0, 75, 75, 75]);
    clock.advance(200);
    await p.done;
    expect(p.sentAt.slice(4)).toEqual([80, 100, 120, 140, 160, 180]);
    expect(Math.max(...p.lateness)).toBe(55);
  });

  it('serves many streams from one timer', () => {
    const clock = fakeClock();
    const s = new FrameScheduler(clock);
    const streams = Array.from({ length: 50 }, () => s.add({ frames: 100, frameMs: 20, pace: 1, send: () => undefined }));
    expect(clock.pending()).toBe(1);
    clock.advance(1000);
    expect(clock.pending()).toBe(1);
    for (const st of streams) expect(st.sentAt.length).toBe(51);
    // One wake-up per frame period, not one per stream.
    expect(clock.created.length).toBeLessThanOrEqual(52);
  });

  it('stops a stream whose send throws and keeps the others going', async () => {
    const clock = fakeClock();
    const s = new FrameScheduler(clock);
    const bad = s.add({ frames: 10, frameMs: 20, pace: 1, send: (k) => { if (k === 2) throw new Error('gone'); } });
    const good = s.add({ frames: 10, frameMs: 20, pace: 1, send: () => undefined });
    clock.advance(300);
    await expect(bad.done).rejects.toThrow('gone');
    await good.done;
    expect(bad.sentAt.length).toBe(2);
    expect(good.sentAt.length).toBe(10);
  });

  it('cancel stops sending', () => {
    const clock = fakeClock();
    const s = new FrameScheduler(clock);
    const p = s.add({ frames: 10, frameMs: 20, pace: 1, send: () => undefined });
    clock.advance(40);
    p.cancel();
    clock.advance(400);
    expect(p.sentAt.length).toBe(3);
    expect(clock.pending()).toBe(0);
  });
});
