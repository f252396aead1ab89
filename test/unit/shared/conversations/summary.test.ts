import { describe, expect, it } from 'vitest';
import { wordsOf } from '../../../../src/shared/normalize.js';
import { conversationSummary, scoreCall, type HypothesisWord, type ReferenceTurn } from '../../../../src/shared/conversations/index.js';
import { summaryGateFailures } from '../../../../src/shared/evaluation-gates.js';

const words = (t: string) => wordsOf(t, true);
const call = (shift: number): ReferenceTurn[] => [
  { speaker: 'S1', start: shift + 0.2, end: shift + 1.8, text: 'Thank you for calling.' },
  { speaker: 'S2', start: shift + 2.3, end: shift + 4.1, text: 'My card was stolen yesterday.' },
];
const answer = (ref: ReferenceTurn[], labels: [string, string], drop = false): HypothesisWord[] =>
  ref.flatMap((t, k) => {
    if (drop && k === 1) return [];
    const ws = words(t.text);
    const step = (t.end - t.start) / ws.length;
    return ws.map((text, i) => ({ text, start: t.start + i * step, end: t.start + (i + 1) * step - 0.01, speaker: labels[k]! }));
  });
const scored = (ref: ReferenceTurn[], ws: HypothesisWord[], diarized = true) => scoreCall(ref, { transcript: ws.map((w) => w.text).join(' '), words: ws, diarized }, words);

describe('conversationSummary (DESIGN §16.4)', () => {
  const a = call(0);
  const b = call(10);
  const perfect = { call: 'call-1', score: scored(a, answer(a, ['0', '1'])) };
  const merged = { call: 'call-2', score: scored(b, answer(b, ['0', '0'])) };
  const dropped = { call: 'call-3', score: scored(b, answer(b, ['0', '1'], true)) };

  it('sums before dividing and counts calls, speakers and dropped turns', () => {
    const s = conversationSummary([perfect, merged, dropped], { seed: 0 });
    expect(s).toMatchObject({ calls: 3, reference_words: 27, deletions: 5, dropped_turns: 1, loops: 0, speaker_count_accuracy: 0.3333 });
    expect(s.wer).toBe(Math.round((5 / 27) * 10_000) / 10_000);
    // cpWER: the merged call pairs S2 with its one speaker (S1's 4 words inserted there) and S1 with nobody
    // (4 deleted): 8; the dropped call 5 deleted
    expect(s.cpwer).toBe(Math.round((13 / 27) * 10_000) / 10_000);
    const times = [perfect, merged, dropped].map((c) => c.score.der as { scoredSpeaker: number; missed: number; falseAlarm: number; speakerError: number });
    const err = times.reduce((x, t) => x + t.missed + t.falseAlarm + t.speakerError, 0);
    expect(s.der).toBe(Math.round((err / times.reduce((x, t) => x + t.scoredSpeaker, 0)) * 10_000) / 10_000);
    const [lo, hi] = s.der_ci95 as [number, number];
    expect(lo).toBeLessThanOrEqual(s.der as number);
    expect(hi).toBeGreaterThanOrEqual(s.der as number);
  });

  it('a provider without diarization: cpwer, der and speaker count unsupported; --max-der fails it as not measured', () => {
    const plain = conversationSummary([{ call: 'call-1', score: scored(a, answer(a, ['0', '1']), false) }], { seed: 0 });
    expect(plain).toMatchObject({ wer: 0, cpwer: { unsupported: true }, der: { unsupported: true }, speaker_count_accuracy: { unsupported: true } });
    const row = (provider: string, der: number | { unsupported: true } | null) => ({ provider, condition: 'clean', group: 'all', wer: 0, failed_requests: 0, der });
    const failures = summaryGateFailures([row('stt-a', 0.05), row('stt-b', 0.2), row('local-sphinx', plain.der as { unsupported: true }), row('stt-c', null)], { maxDer: 0.1 });
    expect(failures.map((f) => [f.provider, f.type])).toEqual([
      ['stt-b', 'max-der'],
      ['local-sphinx', 'max-der'],
      ['stt-c', 'max-der'],
    ]);
    expect(failures[0]!.line).toBe('stt-b under clean: DER 0.2000 exceeds --max-der 0.1');
    expect(failures[1]!.line).toBe('local-sphinx under clean: DER not measured (no diarization) cannot pass --max-der 0.1');
  });
});
