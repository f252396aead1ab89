import { calculateAccuracy } from '../../../../src/shared/accuracy.js';
import { comparisonVerdict } from '../../../../src/shared/comparison-verdict.js';
import type { EvaluationComparison, EvaluationDetail, EvaluationSummaryRow, EvaluationUtterance } from '../../../../src/shared/schemas/evaluations.js';
import { corpusWer, createPrng, latencyPercentiles, pairedSpeakerBootstrap, speakerBootstrapCi, type UtteranceScore } from '../../../../src/shared/stats.js';

/** Texts of the fixture; the last carries markup, as user data may. */
export const TEXTS = [
  'the quick brown fox jumps over the lazy dog',
  'please call stella and ask her to bring these things',
  'she sells sea shells by the sea shore',
  '<script>alert("ref")</script> & five "quoted" words',
];
export const HOSTILE_TRANSCRIPT = '"><img src=x onerror=alert(1)> <script>alert(2)</script>';

/** `perGroup` speakers of each engine: 2 by default (4 in all, too few for a conclusive comparison). */
const speakersOf = (perGroup: number) =>
  ['flite', 'espeak'].flatMap((group) => Array.from({ length: perGroup }, (_, i) => ({ id: `spk_${group}_${String.fromCharCode(97 + i)}`, group })));

/** What a provider "hears": words dropped or swapped at a rate that depends on the voice and condition. */
function transcribe(text: string, rate: number, rand: () => number): string {
  return text
    .split(' ')
    .flatMap((w) => {
      const r = rand();
      if (r < rate / 3) return [];
      if (r < (2 * rate) / 3) return ['uh'];
      if (r < rate) return [w, 'extra'];
      return [w];
    })
    .join(' ');
}

/** Options of the fixture. */
export interface FixtureOptions {
  hostile?: boolean;
  status?: EvaluationDetail['status'];
  /** The hosted provider's token (default `stt-b`); its label is `{token} · deepgram nova-3`. */
  hosted?: string;
  /** The evaluation lists its providers hosted first (the data stays the same). */
  reversed?: boolean;
  /** Speakers per engine group (default 2). */
  perGroup?: number;
  /** The evaluation ran on a recorded corpus. */
  corpus?: boolean;
  /** The view's `event_loop_lag_ms`. */
  lag?: { p50: number; p99: number };
  /** A streaming evaluation: the hosted provider's failed request is a failed stream (DESIGN §15.3). */
  streaming?: boolean;
}

/**
 * A realistic evaluation computed from synthetic utterances with the real statistics: two providers
 * (`local-sphinx`, and a hosted one perfect on Flite; both poor on eSpeak), three conditions, two groups.
 * `hostile` puts markup in the name and in one transcript.
 */
export function fixtureReport(options: FixtureOptions = {}): { evaluation: EvaluationDetail; utterances: EvaluationUtterance[] } {
  const hosted = options.hosted ?? 'stt-b';
  const providers = ['local-sphinx', hosted];
  const conditions = ['clean', 'telephone', 'noise:5'];
  const SPEAKERS = speakersOf(options.perGroup ?? 2);
  const rand = createPrng(7);
  const utterances: EvaluationUtterance[] = [];
  TEXTS.forEach((reference, text_index) => {
    for (const s of SPEAKERS) {
      conditions.forEach((condition, c) => {
        for (const provider of providers) {
          const base = s.group === 'espeak' ? 0.5 : provider === hosted ? 0 : 0.1;
          let transcript: string | null = transcribe(reference, Math.min(0.9, base + c * 0.08), rand);
          if (options.hostile && text_index === 3 && provider === 'local-sphinx' && c === 0) transcript = HOSTILE_TRANSCRIPT;
          const failed = provider === hosted && text_index === 1 && s.id === 'spk_espeak_b' && c === 2;
          if (failed) transcript = null;
          const acc = transcript === null ? null : calculateAccuracy(reference, transcript);
          utterances.push({
            text_index,
            speaker_id: s.id,
            group: s.group,
            condition,
            provider,
            reference,
            transcript,
            wer: acc?.wer ?? null,
            substitutions: acc?.substitutions ?? null,
            deletions: acc?.deletions ?? null,
            insertions: acc?.insertions ?? null,
            latency_ms: Math.round((provider === hosted ? 300 : 900) + rand() * 400),
            confidence: null,
            error: failed ? { code: 'timeout', message: 'stt-b did not answer within 60 s' } : null,
            determinable: false,
            audio_url: `http://127.0.0.1/v1/audio/aud_${text_index}_${s.id}_${c}.wav?expires=1&sig=x`,
          });
        }
      });
    }
  });
  if (options.streaming) {
    for (const u of utterances) {
      u.first_partial_ms = u.transcript === null ? null : Math.round((u.latency_ms ?? 0) / 3);
      u.final_latency_ms = u.transcript === null ? null : Math.round((u.latency_ms ?? 0) / 2);
      u.revisions = 0;
      u.early_words = 0;
    }
  }
  markDeterminable(utterances);
  const summary = summarise(utterances, providers, conditions, hosted);
  if (options.streaming) for (const r of summary) streamingFigures(r, utterances);
  const listed = options.reversed ? [...providers].reverse() : providers;
  const evaluation: EvaluationDetail = {
    evaluation_id: 'ev_fixture',
    name: options.hostile ? '</title><script>alert("name")</script>' : 'Flite vs eSpeak',
    status: options.status ?? 'completed',
    progress: 100,
    total_utterances: utterances.length,
    completed_utterances: utterances.length,
    created_at: '2026-11-22T17:00:00.000Z',
    started_at: '2026-11-22T17:00:01.000Z',
    completed_at: '2026-11-22T17:03:30.000Z',
    providers: listed,
    provider_labels: { 'local-sphinx': 'local-sphinx · en-us', [hosted]: `${hosted} · deepgram nova-3` },
    conditions,
    group_by: 'engine',
    seed: 3,
    normalizer: { name: 'basic', version: 1 },
    report_url: 'http://127.0.0.1/v1/evaluations/ev_fixture/report?expires=1&sig=x',
    setup: {
      voxctl_version: '0.1.0',
      normalizer: { name: 'basic', version: 1 },
      providers: Object.fromEntries(providers.map((p) => [p, { adapter: p === 'local-sphinx' ? 'local-sphinx' : 'deepgram', model: p === 'local-sphinx' ? 'en-us' : 'nova-3', language: null }])),
      conditions,
      seed: 3,
    },
    baseline_id: null,
    summary: options.reversed ? [...summary].reverse() : summary,
    comparisons: compare(utterances, conditions, hosted),
    ...(options.corpus ? { corpus_id: 'cor_fixture', corpus_name: 'support calls' } : {}),
    ...(options.streaming ? { mode: 'streaming' as const, pace: 1 } : {}),
    // The view's extension fields of DESIGN §15 (spread: read by the report whatever the schema says yet).
    ...(options.lag ? { event_loop_lag_ms: options.lag } : {}),
  };
  return { evaluation, utterances };
}

/** A streaming row's figures: a failed stream counts as +∞, so a percentile it reaches is null (DESIGN §15.3). */
function streamingFigures(r: EvaluationSummaryRow, utterances: EvaluationUtterance[]): void {
  const mine = utterances.filter((u) => u.provider === r.provider && u.condition === r.condition && (r.group === 'all' || u.group === r.group));
  const pctl = (key: 'first_partial_ms' | 'final_latency_ms', p: number) => {
    const values = mine.map((u) => u[key] ?? Infinity).sort((a, b) => a - b);
    const v = values[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
    return Number.isFinite(v) ? v : null;
  };
  r.first_partial_ms = { p50: pctl('first_partial_ms', 50), p95: pctl('first_partial_ms', 95) };
  r.final_latency_ms = { p50: pctl('final_latency_ms', 50), p95: pctl('final_latency_ms', 95), p99: pctl('final_latency_ms', 99) };
  r.streams_failed = r.failed_requests;
  r.revisions_per_utterance = 0;
  r.early_words = 0;
}

function markDeterminable(utterances: EvaluationUtterance[]): void {
  const key = (u: EvaluationUtterance) => `${u.text_index}|${u.speaker_id}|${u.condition}`;
  const exact = new Set(utterances.filter((u) => u.wer === 0).map(key));
  for (const u of utterances) u.determinable = (u.wer ?? 0) > 0 && exact.has(key(u));
}

const score = (u: EvaluationUtterance): UtteranceScore => ({
  speaker: u.speaker_id ?? `utterance ${u.utterance_id}`,
  errors: (u.substitutions ?? 0) + (u.deletions ?? 0) + (u.insertions ?? 0),
  referenceWords: u.reference.split(' ').length,
});

function summarise(utterances: EvaluationUtterance[], providers: string[], conditions: string[], hosted: string): EvaluationSummaryRow[] {
  const rows: EvaluationSummaryRow[] = [];
  for (const provider of providers) {
    for (const condition of conditions) {
      const mine = utterances.filter((u) => u.provider === provider && u.condition === condition);
      for (const group of ['all', ...new Set(mine.map((u) => u.group))]) {
        const inGroup = mine.filter((u) => group === 'all' || u.group === group);
        const scored = inGroup.filter((u) => u.transcript !== null);
        const scores = scored.map(score);
        const sum = (k: 'substitutions' | 'deletions' | 'insertions') => scored.reduce((t, u) => t + (u[k] ?? 0), 0);
        const lat = latencyPercentiles(inGroup.map((u) => u.latency_ms ?? 0));
        rows.push({
          provider,
          condition,
          group,
          utterances: scored.length,
          speakers: new Set(scored.map((u) => u.speaker_id)).size,
          reference_words: scores.reduce((t, s) => t + s.referenceWords, 0),
          substitutions: sum('substitutions'),
          deletions: sum('deletions'),
          insertions: sum('insertions'),
          wer: corpusWer(scores),
          wer_ci95: speakerBootstrapCi(scores, { seed: 0 }),
          cer: null,
          latency_ms: lat,
          attempted: inGroup.length,
          failed_requests: inGroup.length - scored.length,
          // 2.5 s per utterance; the fixture's second provider is priced at $0.0043 a minute.
          audio_seconds: scored.length * 2.5,
          cost_usd: provider === hosted ? Math.round(((scored.length * 2.5) / 60) * 0.0043 * 1e6) / 1e6 : null,
          rtfx: lat.p50 > 0 ? Math.round((2500 / lat.p50) * 1e4) / 1e4 : null,
        });
      }
    }
  }
  return rows;
}

function compare(utterances: EvaluationUtterance[], conditions: string[], hosted: string): EvaluationComparison[] {
  return conditions.flatMap((condition) =>
    ['all', 'espeak', 'flite'].map((group) => {
      // Paired rows: the utterances both providers transcribed.
      const pairs = utterances.filter((u) => u.condition === condition && u.provider === 'local-sphinx' && u.transcript !== null && (group === 'all' || u.group === group));
      const other = (u: EvaluationUtterance) => utterances.find((v) => v.provider === hosted && v.condition === condition && v.text_index === u.text_index && v.speaker_id === u.speaker_id)!;
      const both = pairs.filter((u) => other(u).transcript !== null);
      const a = both.map(score);
      const b = both.map((u) => score(other(u)));
      const r = pairedSpeakerBootstrap(a, b, { seed: 0 });
      const speakers = new Set(a.map((x) => x.speaker)).size;
      return { speakers, verdict: comparisonVerdict(r.ci95, speakers), condition, group, a: 'local-sphinx', b: hosted, wer_a: corpusWer(a), wer_b: corpusWer(b), difference: r.difference, ci95: r.ci95, p_a_better: r.pABetter, p_equal: r.pEqual };
    }),
  );
}
