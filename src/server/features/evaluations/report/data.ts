/**
 * What the evaluation report shows, derived from the stored evaluation and its utterances: pure
 * functions, so each figure of the page can be tested without parsing HTML.
 */
import { calculateAccuracy, round4, type AlignmentStep } from '../../../../shared/accuracy.js';
import type { EvaluationDetail, EvaluationSummaryRow, EvaluationUtterance } from '../../../../shared/schemas/evaluations.js';
import { normalizerAt } from '../../../../shared/normalizers/index.js';
import { whitespaceTokens } from '../../../../shared/normalize.js';
import { corpusWer, latencyPercentiles } from '../../../../shared/stats.js';

/** How many failures the report lists (DESIGN §8.5). */
export const WORST_FAILURES = 20;
/** At most this many dots per provider in the latency strip: the page stays light at 20,000 utterances. */
export const MAX_LATENCY_DOTS = 400;

/**
 * Groups with fewer speakers than this are marked: a speaker bootstrap over 2-4 voices gives an interval
 * that is little more than their range (EVALUATION-NOTES.md).
 */
export const FEW_SPEAKERS = 5;

/** The facts of the setup section that come from the utterances. */
export interface SetupFacts {
  texts: number;
  speakers: number;
  /** Group value → distinct speakers in it, in order of first appearance. */
  groups: { group: string; speakers: number }[];
}

/** The bootstrap block of an utterance: its speaker, or — a corpus utterance without one — the utterance itself. */
export const speakerBlock = (u: Pick<EvaluationUtterance, 'speaker_id' | 'utterance_id' | 'text_index'>): string =>
  u.speaker_id ?? `utterance ${u.utterance_id ?? u.text_index}`;

/** Counts texts, speakers (blocks) and speakers per group among the utterances. */
export function setupFacts(utterances: readonly EvaluationUtterance[]): SetupFacts {
  const texts = new Set<number>();
  const speakers = new Set<string>();
  const byGroup = new Map<string, Set<string>>();
  for (const u of utterances) {
    texts.add(u.text_index);
    speakers.add(speakerBlock(u));
    let set = byGroup.get(u.group);
    if (!set) byGroup.set(u.group, (set = new Set()));
    set.add(speakerBlock(u));
  }
  const groups = [...byGroup].map(([group, set]) => ({ group, speakers: set.size })).sort((a, b) => a.group.localeCompare(b.group));
  return { texts: texts.size, speakers: speakers.size, groups };
}

/** The groups of the summary in display order: `all` first, then the others alphabetically. */
export function summaryGroups(summary: readonly { group: string }[]): string[] {
  const others = [...new Set(summary.map((r) => r.group))].filter((g) => g !== 'all').sort((a, b) => a.localeCompare(b));
  return summary.some((r) => r.group === 'all') ? ['all', ...others] : others;
}

/** Latencies of one provider: the percentiles of all of them and an evenly spaced sample to draw. */
export interface ProviderLatency {
  provider: string;
  count: number;
  p50: number;
  p95: number;
  sample: number[];
}

/** Latency per provider over the utterances that have one (failed requests included: they took time too). */
export function providerLatencies(providers: readonly string[], utterances: readonly EvaluationUtterance[]): ProviderLatency[] {
  return providers.flatMap((provider) => {
    const values = utterances.filter((u) => u.provider === provider && u.latency_ms !== null).map((u) => u.latency_ms!);
    if (values.length === 0) return [];
    const { p50, p95 } = latencyPercentiles(values);
    const stride = Math.max(1, values.length / MAX_LATENCY_DOTS);
    const sample: number[] = [];
    for (let i = 0; i < values.length && sample.length < MAX_LATENCY_DOTS; i += stride) sample.push(values[Math.floor(i)]!);
    return [{ provider, count: values.length, p50, p95, sample }];
  });
}

/** A failure shown in the report, with the word alignment of its transcript. */
export interface ReportedFailure {
  utterance: EvaluationUtterance;
  /** Absent when the pair cannot be aligned (e.g. a transcript beyond the accuracy limits). */
  alignment?: AlignmentStep[];
}

/**
 * The worst determinable failures (errors on audio another provider got exactly right), by WER then by
 * error count; ties keep a stable order (text, speaker, condition, provider) so a report is reproducible.
 */
export function worstFailures(evaluation: Pick<EvaluationDetail, 'normalizer'>, utterances: readonly EvaluationUtterance[], limit = WORST_FAILURES): ReportedFailure[] {
  const errors = (u: EvaluationUtterance) => (u.substitutions ?? 0) + (u.deletions ?? 0) + (u.insertions ?? 0);
  const chosen = utterances
    .filter((u) => u.determinable && u.transcript !== null && (u.wer ?? 0) > 0)
    .sort(
      (x, y) =>
        (y.wer ?? 0) - (x.wer ?? 0) ||
        errors(y) - errors(x) ||
        x.text_index - y.text_index ||
        speakerBlock(x).localeCompare(speakerBlock(y)) ||
        x.condition.localeCompare(y.condition) ||
        x.provider.localeCompare(y.provider),
    )
    .slice(0, limit);
  return chosen.map((utterance) => {
    try {
      const report = calculateAccuracy(utterance.reference, utterance.transcript ?? '', { alignment: true, normalizer: evaluation.normalizer.name });
      return { utterance, alignment: report.alignment };
    } catch {
      return { utterance };
    }
  });
}

/** Group values (never `all`) with fewer than FEW_SPEAKERS speakers. */
export function fewSpeakerGroups(facts: Pick<SetupFacts, 'groups'>): Set<string> {
  return new Set(facts.groups.filter((g) => g.speakers < FEW_SPEAKERS).map((g) => g.group));
}

/**
 * The one WER axis of the page (DESIGN §8.5): every chart runs from 0 to the largest WER or interval end
 * of any of them (at least 10%), so equal bars mean equal WER across charts.
 */
export function reportWerMax(summary: readonly Pick<EvaluationSummaryRow, 'wer' | 'wer_ci95'>[]): number {
  return Math.max(0.1, ...summary.flatMap((r) => (r.wer === null ? [] : [r.wer, r.wer_ci95?.[1] ?? r.wer])));
}

/** One speaker's corpus WER per provider under one condition; null where nothing was scored. */
export interface SpeakerRow {
  speaker: string;
  group: string;
  condition: string;
  wer: (number | null)[];
}

/**
 * The per-speaker table: for each speaker (by group, then id) and condition, the corpus WER of each
 * provider over that speaker's texts (Σ errors ÷ Σ reference words, words counted by the evaluation's
 * normaliser as the scores were).
 */
export function speakerRows(ev: Pick<EvaluationDetail, 'providers' | 'conditions' | 'normalizer'>, utterances: readonly EvaluationUtterance[]): SpeakerRow[] {
  // The recorded version: a basic v1 evaluation counted `ill-disposed` as one word (DESIGN §15.6).
  const normalizer = normalizerAt(ev.normalizer.name, ev.normalizer.version);
  const words = new Map<string, number>();
  const wordsOf = (reference: string) => {
    let n = words.get(reference);
    if (n === undefined) words.set(reference, (n = whitespaceTokens(normalizer.normalize(reference)).length));
    return n;
  };
  const cells = new Map<string, { errors: number; referenceWords: number }[]>();
  const speakers = new Map<string, string>();
  for (const u of utterances) {
    // A corpus utterance without a speaker is a block of its own (DESIGN §10.5).
    const block = speakerBlock(u);
    speakers.set(block, u.group);
    if (u.transcript === null) continue;
    const key = `${block}\u0000${u.condition}\u0000${u.provider}`;
    let list = cells.get(key);
    if (!list) cells.set(key, (list = []));
    list.push({ errors: (u.substitutions ?? 0) + (u.deletions ?? 0) + (u.insertions ?? 0), referenceWords: wordsOf(u.reference) });
  }
  const order = [...speakers].sort(([a, ga], [b, gb]) => ga.localeCompare(gb) || a.localeCompare(b));
  return order.flatMap(([speaker, group]) =>
    ev.conditions.map((condition) => ({
      speaker,
      group,
      condition,
      wer: ev.providers.map((p) => {
        const rows = cells.get(`${speaker}\u0000${condition}\u0000${p}`);
        return rows && rows.some((r) => r.referenceWords > 0) ? round4(corpusWer(rows)) : null;
      }),
    })),
  );
}
