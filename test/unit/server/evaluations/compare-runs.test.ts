import { describe, expect, it } from 'vitest';
import { changedSetup, compareRuns as compareRunsOf, normalizerMismatch, sourceKey, type CompareRun, type RequestsOf } from '../../../../src/server/features/evaluations/compare-runs.js';
import { compareVerdict } from '../../../../src/shared/comparison-verdict.js';
import type { CompareUtteranceRow } from '../../../../src/server/features/evaluations/compare-repository.js';
import type { EvaluationSetup } from '../../../../src/shared/schemas/evaluations.js';

const TEXTS = ['the cat sat on the mat', 'a bird in the hand', 'please call me back'];
const SPEAKERS = [
  { id: 'spk_a', grp: 'en-GB' },
  { id: 'spk_b', grp: 'en-GB' },
  { id: 'spk_c', grp: 'en-US' },
  { id: 'spk_d', grp: 'en-US' },
];
/** Enough speakers for a verdict in every group (5 per group, DESIGN §15.1). */
const WIDE = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((x, i) => ({ id: `spk_${x}`, grp: i < 5 ? 'en-GB' : 'en-US' }));

const NO_FAILURES: RequestsOf = () => ({ attempted: 0, failed_requests: 0 });
const compareRuns = (input: { baseline: CompareRun; current: CompareRun; seed: number; requests?: RequestsOf }) => compareRunsOf({ requests: NO_FAILURES, ...input });

/** A run of every text × speaker on one condition and provider, with errors given per (text, speaker). */
function run(errors: (t: number, s: number) => number, texts = TEXTS, providers = ['stt-b'], conditions = ['clean'], speakers = SPEAKERS): CompareRun {
  const rows: CompareUtteranceRow[] = [];
  texts.forEach((reference, t) =>
    speakers.forEach((sp, s) =>
      conditions.forEach((_c, c) =>
        providers.forEach((_p, p) => rows.push({ text_index: t, reference, speaker_id: sp.id, grp: sp.grp, condition_index: c, provider_index: p, errors: errors(t, s), reference_words: 5 })),
      ),
    ),
  );
  return { rows, providers, conditions };
}

describe('compareRuns', () => {
  it('identical runs: no_change everywhere, difference and interval 0, P(worse) 0', () => {
    const wide = (errors: (t: number, s: number) => number) => run(errors, TEXTS, ['stt-b'], ['clean'], WIDE);
    const { matched, rows } = compareRuns({ baseline: wide((t, s) => (t + s) % 3), current: wide((t, s) => (t + s) % 3), seed: 0 });
    expect(matched).toBe(30);
    expect(rows.map((r) => r.group)).toEqual(['all', 'en-GB', 'en-US']);
    for (const r of rows) expect(r).toMatchObject({ difference: 0, ci95: [0, 0], p_worse: 0, verdict: 'no_change' });
    expect(rows[0]).toMatchObject({ provider: 'stt-b', condition: 'clean', utterances: 30, speakers: 10 });
    expect(rows[1]).toMatchObject({ speakers: 5 });
  });

  it('worse on every speaker: regressed with P(worse) 1; the other way round: improved', () => {
    const good = run(() => 0, TEXTS, ['stt-b'], ['clean'], WIDE);
    const bad = run(() => 1, TEXTS, ['stt-b'], ['clean'], WIDE);
    const worse = compareRuns({ baseline: good, current: bad, seed: 4 }).rows[0]!;
    expect(worse).toMatchObject({ wer_baseline: 0, wer: 0.2, difference: 0.2, ci95: [0.2, 0.2], p_worse: 1, verdict: 'regressed' });
    const better = compareRuns({ baseline: bad, current: good, seed: 4 }).rows[0]!;
    expect(better).toMatchObject({ difference: -0.2, p_worse: 0, verdict: 'improved' });
  });

  it('a change on one speaker only is noise, not a regression (the interval reaches 0)', () => {
    const base = run(() => 1, TEXTS, ['stt-b'], ['clean'], WIDE);
    const cmp = compareRuns({ baseline: base, current: run((_t, s) => (s === 0 ? 3 : 1), TEXTS, ['stt-b'], ['clean'], WIDE), seed: 1 });
    const all = cmp.rows[0]!;
    expect(all.difference).toBeGreaterThan(0);
    expect(all.ci95[0]).toBe(0);
    expect(all.verdict).toBe('no_change');
    expect(all.p_worse).toBeGreaterThan(0.5);
    expect(all.p_worse).toBeLessThan(1);
  });

  it('matches on the text, not on its index', () => {
    const base = run((t) => t, ['one two', 'three four', 'five six']);
    // The new run holds the second text first, a new text, and not the third.
    const current = run(() => 0, ['three four', 'seven eight']);
    const { matched, rows } = compareRuns({ baseline: base, current, seed: 0 });
    expect(matched).toBe(4);
    // Baseline errors of 'three four' (index 1 there) were 1 per utterance.
    expect(rows[0]).toMatchObject({ utterances: 4, wer_baseline: 0.2, wer: 0 });
  });

  it('matches speaker, condition and provider by name whatever their order; unmatched cells have no row', () => {
    const base = run(() => 1, TEXTS, ['stt-a', 'stt-b'], ['clean', 'telephone']);
    const current = run((_t, s) => (s % 2 ? 1 : 1), TEXTS, ['stt-b', 'stt-c'], ['telephone']);
    const { matched, rows } = compareRuns({ baseline: base, current, seed: 0 });
    expect(matched).toBe(12);
    expect(new Set(rows.map((r) => `${r.provider}/${r.condition}`))).toEqual(new Set(['stt-b/telephone']));
  });

  it('tells a text given twice apart by its occurrence', () => {
    const texts = ['same words here', 'same words here'];
    const base = run((t) => t, texts);
    const current = run((t) => t, texts);
    const { matched, rows } = compareRuns({ baseline: base, current, seed: 0 });
    expect(matched).toBe(8);
    expect(rows[0]!.difference).toBe(0);
  });

  it('nothing in common: no rows', () => {
    expect(compareRuns({ baseline: run(() => 0, ['x y']), current: run(() => 0, ['z w']), seed: 0 })).toEqual({ matched: 0, rows: [] });
  });

  it('is reproducible for a seed', () => {
    const a = run((t, s) => (t * s) % 4);
    const b = run((t, s) => (t + s) % 4);
    expect(compareRuns({ baseline: a, current: b, seed: 9 })).toEqual(compareRuns({ baseline: a, current: b, seed: 9 }));
  });

  it('the source key of a text utterance is its text', () => {
    expect(sourceKey({ text_index: 3, reference: 'hello there', speaker_id: 's', grp: 'g', condition_index: 0, provider_index: 0, errors: 0, reference_words: 2 })).toBe('text:hello there');
  });

  it('matches recordings by corpus and utterance id, not by their transcript or index (DESIGN §11.3)', () => {
    const corpus = (r: CompareRun, ids: string[], corpusId = 'cp_1'): CompareRun => ({
      ...r,
      rows: r.rows.map((u) => ({ ...u, corpus: { corpusId, utteranceId: ids[u.text_index]! } })),
    });
    // Two recordings share one transcript; the new run samples them in another order and corrects a transcript.
    const base = corpus(run((t) => t, ['yes', 'yes', 'no thanks']), ['u1', 'u2', 'u3']);
    const current = corpus(run((t) => [2, 1, 0][t]!, ['no thank you', 'yes', 'yes']), ['u3', 'u2', 'u1']);
    const { matched, rows } = compareRuns({ baseline: base, current, seed: 0 });
    expect(matched).toBe(12);
    expect(rows[0]).toMatchObject({ difference: 0, speakers: 4, verdict: 'inconclusive' });
    // The same utterance ids in another corpus are other recordings.
    expect(compareRuns({ baseline: base, current: corpus(current, ['u3', 'u2', 'u1'], 'cp_2'), seed: 0 }).matched).toBe(0);
    expect(sourceKey(base.rows[0]!)).not.toBe(sourceKey(base.rows[4]!));
  });
});

describe('verdicts, normalisers and setup differences', () => {
  it('reads the interval one-sided', () => {
    expect(compareVerdict([0.01, 0.2], 5)).toBe('regressed');
    expect(compareVerdict([-0.2, -0.01], 5)).toBe('improved');
    expect(compareVerdict([0, 0.2], 5)).toBe('no_change');
    expect(compareVerdict([-0.1, 0.1], 5)).toBe('no_change');
  });

  it('under 5 speakers nothing is decided, whatever the interval says (DESIGN §15.1)', () => {
    expect(compareVerdict([0.01, 0.2], 4)).toBe('inconclusive');
    expect(compareVerdict([-0.2, -0.01], 1)).toBe('inconclusive');
    expect(compareVerdict([0, 0.2], 0)).toBe('inconclusive');
  });

  it('names the normalisers that differ', () => {
    expect(normalizerMismatch({ name: 'basic', version: 1 }, { name: 'basic', version: 1 })).toBeUndefined();
    expect(normalizerMismatch({ name: 'basic', version: 1 }, { name: 'whisper-en', version: 1 })).toBe('basic vs whisper-en');
    expect(normalizerMismatch({ name: 'basic', version: 1 }, { name: 'basic', version: 2 })).toBe('basic v1 vs basic v2');
  });

  const setup = (over: Partial<EvaluationSetup> = {}): EvaluationSetup => ({
    voxctl_version: '0.1.0',
    normalizer: { name: 'basic', version: 1 },
    providers: { 'stt-b': { adapter: 'deepgram', model: 'nova-2', language: null }, 'local-sphinx': { adapter: 'local-sphinx', model: null, language: null } },
    conditions: ['clean'],
    seed: 0,
    ...over,
  });

  it('lists each difference, baseline → new', () => {
    expect(changedSetup(setup(), setup())).toEqual([]);
    const now = setup({
      voxctl_version: '0.2.0',
      providers: { 'stt-b': { adapter: 'deepgram', model: 'nova-3', language: 'en' }, 'stt-c': { adapter: 'openai', model: 'whisper-1', language: null } },
      conditions: ['clean', 'telephone'],
      seed: 5,
    });
    expect(changedSetup(setup(), now)).toEqual([
      'voxctl 0.1.0 → 0.2.0',
      'stt-b model nova-2 → nova-3',
      'stt-b language none → en',
      'stt-c added',
      'local-sphinx removed',
      'condition telephone added',
      'seed 0 → 5',
    ]);
  });

  it('says "unknown" for what an evaluation older than the recorded setup never recorded', () => {
    const old = setup({ voxctl_version: null, providers: { 'stt-b': { adapter: null, model: null, language: null } } });
    expect(changedSetup(old, setup({ providers: { 'stt-b': { adapter: 'deepgram', model: 'nova-3', language: null } } }))).toEqual([
      'voxctl unknown → 0.1.0',
      'stt-b adapter unknown → deepgram',
      'stt-b model unknown → nova-3',
    ]);
  });
});

describe('a regression on too few speakers (DESIGN §15.1)', () => {
  // The QA engineer's corpus: 2 named speakers and 1 unattributed utterance (its own block), the vendor
  // made 3.4× worse. With 3 blocks about 1 draw in 27 resamples only the unchanged block, so the
  // interval reaches 0 and the row used to read `no_change` — a green tick on a regression.
  const speakers = [
    { id: 'spk_1', grp: 'all' },
    { id: 'spk_2', grp: 'all' },
    { id: 'utt_9', grp: 'all' },
  ];
  const texts = ['one two three four five', 'six seven eight nine ten', 'eleven twelve thirteen fourteen fifteen'];
  const baseline = run((t, s) => (s === 2 ? 0 : t === 0 ? 1 : 0), texts, ['openai'], ['clean'], speakers);
  const current = run((t, s) => (s === 2 ? 0 : t === 0 ? 3 : 2), texts, ['openai'], ['clean'], speakers);

  it('is inconclusive, with the blocks it counted and a difference far above 0', () => {
    const { rows } = compareRuns({ baseline, current, seed: 0 });
    expect(rows[0]).toMatchObject({ group: 'all', speakers: 3, verdict: 'inconclusive' });
    expect(rows[0]!.difference).toBeGreaterThan(0.2);
    expect(rows[0]!.ci95[0]).toBe(0);
  });

  it("carries the new run's requests, as the summary row of the same cell has them (DESIGN §15.2)", () => {
    const requests: RequestsOf = (key) => (key.group === 'all' ? { attempted: 9, failed_requests: 4 } : { attempted: 0, failed_requests: 0 });
    const { rows } = compareRuns({ baseline, current, seed: 0, requests });
    expect(rows[0]).toMatchObject({ attempted: 9, failed_requests: 4 });
  });
});
