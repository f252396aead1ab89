import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { migrateRaw } from '../../../helpers/migrated-sqlite.js';
import { createSqliteDb } from '../../../../src/server/storage/sql/sqlite.js';
import { EVALUATION_SQL, utteranceQuery, type UtteranceView } from '../../../../src/server/features/evaluations/repository.js';
import { ownedPageQuery } from '../../../../src/server/storage/repositories/owned-page.js';
import { summarise } from '../../../../src/server/features/evaluations/summary.js';
import { selectSpeakers } from '../../../../src/server/features/evaluations/speakers.js';
import type { DomainError } from '../../../../src/shared/errors.js';

const Database = loadSqliteDriver();

/** A stored row: provider p, condition c, speaker s (group g), with `errors` substitutions over `words`. */
function row(o: { t?: number; s: number; g: string; c?: number; p?: number; errors?: number; words?: number; failed?: string; latency?: number }): UtteranceView {
  const failed = o.failed !== undefined;
  return {
    evaluation_id: 'ev_x',
    text_index: o.t ?? 0,
    speaker_index: o.s,
    condition_index: o.c ?? 0,
    provider_index: o.p ?? 0,
    transcript: failed ? null : 'x',
    error_code: failed ? o.failed! : null,
    error_message: failed ? 'failed' : null,
    wer: failed ? null : (o.errors ?? 0) / (o.words ?? 10),
    substitutions: failed ? null : (o.errors ?? 0),
    deletions: failed ? null : 0,
    insertions: failed ? null : 0,
    reference_words: failed ? null : (o.words ?? 10),
    reference_chars: failed ? null : 50,
    char_errors: failed ? null : (o.errors ?? 0),
    latency_ms: o.latency ?? 100,
    confidence: null,
    audio_id: null,
    speaker_id: `spk_${o.s}`,
    grp: o.g,
    reference: 'ref',
    determinable: 0,
    utterance_id: null,
    corpus_speaker: null,
  };
}

describe('summarise (DESIGN §8.3)', () => {
  it('reports corpus WER per provider × condition × group, not a mean of per-utterance rates', () => {
    // Speaker 0: 1 error in 2 words (50%); speaker 1: 1 error in 18 words (5.6%). Corpus WER: 2 / 20.
    const rows = [row({ s: 0, g: 'a', errors: 1, words: 2 }), row({ s: 1, g: 'b', errors: 1, words: 18 })];
    const { summary } = summarise({ rows, providers: ['p'], conditions: ['clean'], groups: ['b', 'a'], seed: 1 });
    expect(summary.map((r) => r.group)).toEqual(['all', 'a', 'b']);
    expect(summary[0]).toMatchObject({ provider: 'p', condition: 'clean', utterances: 2, speakers: 2, reference_words: 20, substitutions: 2, wer: 0.1, failed_requests: 0 });
    expect(summary[1]!.wer).toBe(0.5);
  });

  it('counts provider failures as failed requests and leaves failed syntheses out entirely', () => {
    const rows = [
      row({ s: 0, g: 'a', errors: 0 }),
      row({ s: 1, g: 'a', failed: 'timeout', latency: 60_000 }),
      row({ s: 2, g: 'a', failed: 'synthesis_failed' }),
    ];
    const [all] = summarise({ rows, providers: ['p'], conditions: ['clean'], groups: ['a'], seed: 1 }).summary;
    expect(all).toMatchObject({ utterances: 1, speakers: 1, failed_requests: 1, wer: 0, latency_ms: { p50: 100, p95: 100 } });
  });

  it('counts the non-speech clips sent to a provider in its clean row: a clip that failed is a failed request, never a silent pass of the hallucination gate (DESIGN §15.2)', () => {
    const clip = (t: number, failed?: string): UtteranceView => ({ ...row({ t, s: 0, g: '', failed }), kind: 'silence', speaker_id: null, grp: null, reference: '', reference_words: null }) as unknown as UtteranceView;
    const rows = [row({ s: 0, g: 'a' }), clip(1), clip(2, 'upstream_error'), clip(3, 'upstream_error')];
    const probes = { non_speech: { clips: 3, seconds: 1, kinds: ['silence'] } } as never;
    const [all] = summarise({ rows, providers: ['p'], conditions: ['clean'], groups: ['a'], seed: 1, probes }).summary;
    expect(all).toMatchObject({ utterances: 1, attempted: 4, failed_requests: 2, non_speech: { clips: 1 } });
  });

  it('gives null figures to a cell without a scored utterance', () => {
    const rows = [row({ s: 0, g: 'a', failed: 'provider_not_configured' })];
    const [all] = summarise({ rows, providers: ['p'], conditions: ['clean'], groups: ['a'], seed: 1 }).summary;
    expect(all).toMatchObject({ utterances: 0, wer: null, wer_ci95: null, cer: null, latency_ms: { p50: null, p95: null }, failed_requests: 1 });
  });

  it('pairs providers on the utterances both transcribed, with reproducible intervals', () => {
    const rows: UtteranceView[] = [];
    for (let s = 0; s < 6; s++) {
      rows.push(row({ s, g: 'a', p: 0, errors: s % 2 }));
      rows.push(row({ s, g: 'a', p: 1, errors: 2 + (s % 3) }));
    }
    // Provider 1 failed on a seventh speaker: that utterance is not part of the pairing.
    rows.push(row({ s: 6, g: 'a', p: 0, errors: 9 }), row({ s: 6, g: 'a', p: 1, failed: 'timeout' }));
    const input = { rows, providers: ['a', 'b'], conditions: ['clean'], groups: ['a'], seed: 5 };
    const { comparisons } = summarise(input);
    // Group `all` and the one group value, which holds every speaker here: the same figures.
    expect(comparisons.map((x) => x.group)).toEqual(['all', 'a']);
    const c = comparisons[0]!;
    expect(c).toMatchObject({ condition: 'clean', group: 'all', a: 'a', b: 'b', wer_a: 0.05, wer_b: 0.3, difference: -0.25, p_a_better: 1, p_equal: 0 });
    expect(c.ci95![1]).toBeLessThan(0);
    expect({ ...comparisons[1], group: 'all' }).toEqual(c);
    expect(summarise(input)).toEqual(summarise(input));
  });

  it('compares per group value too, and reports an exact tie as p_equal 1 rather than a loss', () => {
    const rows: UtteranceView[] = [];
    for (let s = 0; s < 4; s++) {
      // Group x: both providers make the same errors (a tie); group y: provider a is better.
      rows.push(row({ s, g: 'x', p: 0, errors: s }), row({ s, g: 'x', p: 1, errors: s }));
      rows.push(row({ s: s + 4, g: 'y', p: 0, errors: 0 }), row({ s: s + 4, g: 'y', p: 1, errors: 3 }));
    }
    const { comparisons } = summarise({ rows, providers: ['a', 'b'], conditions: ['clean', 'noise:5'], groups: ['y', 'x'], seed: 2 });
    expect(comparisons.map((c) => `${c.condition}/${c.group}`)).toEqual(['clean/all', 'clean/x', 'clean/y', 'noise:5/all', 'noise:5/x', 'noise:5/y']);
    const tie = comparisons[1]!;
    expect(tie).toMatchObject({ group: 'x', difference: 0, ci95: [0, 0], p_a_better: 0, p_equal: 1 });
    expect(comparisons[2]).toMatchObject({ group: 'y', wer_a: 0, wer_b: 0.3, p_a_better: 1, p_equal: 0 });
    const all = comparisons[0]!;
    expect(all.p_a_better! + all.p_equal!).toBeCloseTo(1, 10);
    expect(all.p_equal).toBeGreaterThan(0); // draws of group-x speakers only
    // Nothing transcribed under a condition: null figures, p_equal included.
    expect(comparisons[3]).toMatchObject({ group: 'all', wer_a: null, p_a_better: null, p_equal: null });
  });
});

describe('speaker selection and the evaluation tables', () => {
  const raw = new Database(':memory:');
  migrateRaw(raw);
  // The services run on the seam; EXPLAIN QUERY PLAN needs the raw driver.
  const db = createSqliteDb(raw);

  it('picks per_group speakers of every group value, the same for the same seed', async () => {
    const spec = { filter: { region: 'Europe' }, group_by: 'accent' as const, per_group: 2, seed: 4 };
    const a = await selectSpeakers(db, spec);
    expect(await selectSpeakers(db, spec)).toEqual(a);
    const accents = await db.all<{ accent: string; n: number }>(`SELECT accent, COUNT(*) AS n FROM speakers WHERE region_key = 'europe' GROUP BY accent`);
    expect(a.speakers).toHaveLength(accents.reduce((n, g) => n + Math.min(2, g.n), 0));
    for (const g of accents) expect(a.speakers.filter((s) => s.group === g.accent)).toHaveLength(Math.min(2, g.n));
    const regions = await db.column(
      `SELECT DISTINCT region FROM speakers WHERE id IN (${a.speakers.map(() => '?').join(',')})`,
      a.speakers.map((s) => s.speakerId),
    );
    expect(regions).toEqual(['Europe']);
    expect((await selectSpeakers(db, { ...spec, seed: 5 })).speakers).not.toEqual(a.speakers);
    expect((await selectSpeakers(db, { filter: {}, group_by: 'engine', per_group: 1 })).speakers.map((s) => s.group)).toEqual(['espeak', 'flite']);
  });

  it('refuses an empty match and unknown ids with the design messages', async () => {
    const message = async (f: () => Promise<unknown>) => {
      try {
        await f();
      } catch (err) {
        return (err as DomainError).message;
      }
      return undefined;
    };
    expect(await message(() => selectSpeakers(db, { filter: { gender: 'Robot' }, group_by: 'accent', per_group: 1 }))).toBe('No speakers match the filter');
    expect(await message(() => selectSpeakers(db, { ids: ['spk_none'] }))).toBe('Speaker not found: spk_none');
  });

  it('lists utterances and claims syntheses through indexes', () => {
    const plan = (sql: string, ...args: unknown[]) =>
      (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');
    const q = utteranceQuery('ev_x', { determinableOnly: true, providerIndex: 0 });
    const listing = plan(`${q.sql} ORDER BY text_index LIMIT 20`, ...q.params);
    expect(listing).not.toMatch(/SCAN (u|o|evaluation_utterances)\b/);
    // The repository's own SQL, not copies: a query edited there is checked here.
    expect(plan(EVALUATION_SQL.claimPending, 4)).toMatch(/INDEX evaluation_syntheses_status/);
    expect(plan(EVALUATION_SQL.hasOpen, 'ev')).toMatch(/INDEX evaluation_syntheses_open/);
    const page = ownedPageQuery('evaluations', { userId: 'u', limit: 20, offset: 0 }).items;
    expect(plan(page.sql, ...page.params)).toMatch(/INDEX evaluations_user_created/);
  });
});
