import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutCall, planCall, planConversations, type ConversationOptions, type TurnAudioExtent } from '../../../../src/shared/conversations/index.js';

const options = (o: Partial<ConversationOptions> = {}): ConversationOptions => ({ calls: 5, turns: 12, speakersPerCall: 2, gapMs: [200, 800], overlap: 0, ...o });
const input = (o: Partial<ConversationOptions> = {}, seed = 0) => ({ options: options(o), seed, speakers: ['v1', 'v2', 'v3', 'v4', 'v5'], texts: 7 });

describe('conversation plan (DESIGN §16.1)', () => {
  it('is the same for a seed and differs across seeds and calls', () => {
    expect(planConversations(input({}, 3))).toEqual(planConversations(input({}, 3)));
    expect(planConversations(input({}, 3))).not.toEqual(planConversations(input({}, 4)));
    const [a, b] = planConversations(input());
    expect(a!.turns.map((t) => t.textIndex)).not.toEqual(b!.turns.map((t) => t.textIndex));
    // a call is planned alone: call 4 of a 5-call plan is call 4 planned by itself
    expect(planCall(input(), 4)).toEqual(planConversations(input())[3]);
  });

  it('turn k says perm[k mod T] and is spoken by speaker k mod n; gaps in range; overlaps at the share asked', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 2, max: 4 }), fc.integer({ min: 2, max: 60 }), (seed, n, turns) => {
        const call = planCall(input({ speakersPerCall: n, turns, overlap: 0.3 }, seed), 1);
        expect(new Set(call.speakers).size).toBe(n);
        const perm = call.turns.slice(0, 7).map((t) => t.textIndex);
        if (turns >= 7) expect([...perm].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
        for (const t of call.turns) {
          expect(t.slot).toBe(t.index % n);
          expect(t.textIndex).toBe(perm[t.index % 7]);
          expect(t.gapMs).toBeGreaterThanOrEqual(200);
          expect(t.gapMs).toBeLessThanOrEqual(800);
          if (t.overlapMs !== null) expect(t.overlapMs >= 100 && t.overlapMs <= 600 && t.index > 0).toBe(true);
        }
        expect(call.turns[0]!.overlapMs).toBeNull();
      }),
      { numRuns: 200, seed: 34 },
    );
    let overlapped = 0;
    for (let c = 1; c <= 200; c++) overlapped += planCall(input({ overlap: 0.3, turns: 51 }), c).turns.filter((t) => t.overlapMs !== null).length;
    expect(overlapped / (200 * 50)).toBeCloseTo(0.3, 1);
    expect(planCall(input({ overlap: 0 }), 1).turns.every((t) => t.overlapMs === null)).toBe(true);
  });

  it('refuses more speakers per call than the selection holds', () => {
    expect(() => planCall({ ...input({ speakersPerCall: 3 }), speakers: ['v1', 'v2'] }, 1)).toThrow('conversation.speakers_per_call (3) exceeds the 2 selected speakers');
  });
});

describe('call layout', () => {
  const extent = (startMs: number, endMs: number, durationMs: number): TurnAudioExtent => ({ startMs, endMs, durationMs });

  it('places each speech extent a gap after the previous one ends, or an overlap before it', () => {
    const plan = planCall(input({ turns: 4, overlap: 0 }), 1);
    plan.turns[2]!.overlapMs = 300;
    const layout = layoutCall(plan, [extent(100, 1100, 1300), extent(50, 2050, 2200), extent(0, 800, 900), extent(200, 700, 1000)]);
    const [t0, t1, t2, t3] = layout.turns;
    expect(t0).toMatchObject({ offsetMs: 0, startMs: 100, endMs: 1100, speaker: 'S1' });
    expect(t1).toMatchObject({ startMs: 1100 + plan.turns[1]!.gapMs, speaker: 'S2' });
    expect(t1!.endMs - t1!.startMs).toBe(2000);
    expect(t1!.offsetMs).toBe(t1!.startMs - 50);
    expect(t2!.startMs).toBe(t1!.endMs - 300);
    expect(t3!.startMs).toBe(t2!.endMs + plan.turns[3]!.gapMs);
    expect(layout.durationMs).toBe(t3!.offsetMs + 1000);
  });

  it('never lets a speaker overlap itself nor a turn start before the previous turn starts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 10, max: 3000 })), { minLength: 12, maxLength: 12 }), (seed, ex) => {
        const plan = planCall(input({ turns: 12, overlap: 0.5, gapMs: [0, 100] }, seed), 1);
        const layout = layoutCall(plan, ex.map(([lead, len]) => extent(lead, lead + len, lead + len + 50)));
        const lastEnd = new Map<string, number>();
        layout.turns.forEach((t, k) => {
          expect(t.offsetMs).toBeGreaterThanOrEqual(0);
          if (k > 0) expect(t.startMs).toBeGreaterThanOrEqual(layout.turns[k - 1]!.startMs);
          expect(t.startMs).toBeGreaterThanOrEqual(lastEnd.get(t.speaker) ?? 0);
          lastEnd.set(t.speaker, t.endMs);
          expect(Number.isInteger(t.startMs) && Number.isInteger(t.endMs)).toBe(true);
        });
      }),
      { numRuns: 200, seed: 34 },
    );
  });
});
