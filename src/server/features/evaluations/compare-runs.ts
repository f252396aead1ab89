/**
 * Two runs of an evaluation compared (DESIGN §11.3), as pure functions: utterances are matched on their
 * source item, speaker, condition and provider; each provider × condition × group row gets the paired
 * speaker-block bootstrap of WER(new) − WER(baseline) — the same speaker draws for both runs — and a
 * one-sided reading of its interval, so noise is `no_change` and an improvement never fails a gate; under
 * 5 speakers the verdict is `inconclusive` (DESIGN §15.1).
 */
import type { EvaluationCompareRow, EvaluationSetup } from '../../../shared/schemas/evaluations.js';
import { compareVerdict } from '../../../shared/comparison-verdict.js';
import { corpusWer, pairedSpeakerBootstrap, type UtteranceScore } from '../../../shared/stats.js';
import { round4 } from '../../../shared/accuracy.js';
import type { CompareUtteranceRow } from './compare-repository.js';
import { ALL_GROUPS } from './summary.js';

/** One run: its scored utterances and the names behind their indexes. */
export interface CompareRun {
  rows: readonly CompareUtteranceRow[];
  providers: readonly string[];
  conditions: readonly string[];
}

/**
 * What identifies an utterance's source item across runs (DESIGN §11.3): a recording by its corpus and
 * utterance id; synthesised speech by its text (not its index — a run may reorder or change its texts).
 */
export function sourceKey(u: CompareUtteranceRow): string {
  return u.corpus ? `corpus:${u.corpus.corpusId}\u0001${u.corpus.utteranceId}` : `text:${u.reference}`;
}

/** A matched utterance: the group it is shown under (the new run's) and its score in each run. */
interface Pair {
  group: string;
  current: UtteranceScore;
  baseline: UtteranceScore;
}

const SEP = '\u0001';

/**
 * Full match keys of a run's rows, in order; a source item that occurs twice under the same speaker,
 * condition and provider (a text given twice) is told apart by its occurrence number.
 */
function keysOf(run: CompareRun): string[] {
  const seen = new Map<string, number>();
  return run.rows.map((u) => {
    const base = [sourceKey(u), u.speaker_id, run.conditions[u.condition_index], run.providers[u.provider_index]].join(SEP);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}${SEP}${n}`;
  });
}

const scoreOf = (u: CompareUtteranceRow): UtteranceScore => ({ speaker: u.speaker_id, errors: Number(u.errors), referenceWords: Number(u.reference_words) });

/** What the new run sent to the provider in a row, and how much of it failed (DESIGN §15.2). */
export interface RowRequests {
  attempted: number;
  failed_requests: number;
}

/** Where a row's requests come from: the new run's summary row of the same provider × condition × group. */
export type RequestsOf = (key: { provider: string; condition: string; group: string }) => RowRequests;

/** One row over the pairs of a provider × condition × group. */
function compareRow(key: { provider: string; condition: string; group: string }, pairs: readonly Pair[], seed: number, requests: RequestsOf): EvaluationCompareRow {
  const current = pairs.map((p) => p.current);
  const baseline = pairs.map((p) => p.baseline);
  const paired = pairedSpeakerBootstrap(current, baseline, { seed });
  const speakers = new Set(current.map((u) => u.speaker)).size;
  return {
    ...key,
    utterances: pairs.length,
    wer_baseline: round4(corpusWer(baseline)),
    wer: round4(corpusWer(current)),
    difference: paired.difference,
    ci95: paired.ci95,
    p_worse: paired.pAWorse,
    speakers,
    verdict: compareVerdict(paired.ci95, speakers),
    ...requests(key),
  };
}

/**
 * The rows of a comparison: per provider × condition of the new run (request order) that has matched
 * utterances, the group `all` then each group value (sorted). `matched` counts the matched utterances.
 */
export function compareRuns(input: { current: CompareRun; baseline: CompareRun; seed: number; requests: RequestsOf }): { matched: number; rows: EvaluationCompareRow[] } {
  const { current, baseline } = input;
  const baselineKeys = keysOf(baseline);
  const byKey = new Map<string, CompareUtteranceRow>();
  baseline.rows.forEach((u, i) => byKey.set(baselineKeys[i]!, u));
  const cells = new Map<string, Pair[]>();
  let matched = 0;
  keysOf(current).forEach((key, i) => {
    const other = byKey.get(key);
    if (!other) return;
    const u = current.rows[i]!;
    const cell = `${u.provider_index}:${u.condition_index}`;
    let list = cells.get(cell);
    if (!list) cells.set(cell, (list = []));
    list.push({ group: u.grp, current: scoreOf(u), baseline: scoreOf(other) });
    matched++;
  });
  const rows: EvaluationCompareRow[] = [];
  current.providers.forEach((provider, p) => {
    current.conditions.forEach((condition, c) => {
      const pairs = cells.get(`${p}:${c}`);
      if (!pairs) return;
      rows.push(compareRow({ provider, condition, group: ALL_GROUPS }, pairs, input.seed, input.requests));
      const byGroup = new Map<string, Pair[]>();
      for (const pair of pairs) {
        let list = byGroup.get(pair.group);
        if (!list) byGroup.set(pair.group, (list = []));
        list.push(pair);
      }
      for (const group of [...byGroup.keys()].sort()) rows.push(compareRow({ provider, condition, group }, byGroup.get(group)!, input.seed, input.requests));
    });
  });
  return { matched, rows };
}

/** `basic vs whisper-en`, or `basic v1 vs basic v2` when only the version differs; undefined when equal. */
export function normalizerMismatch(baseline: EvaluationSetup['normalizer'], current: EvaluationSetup['normalizer']): string | undefined {
  if (baseline.name !== current.name) return `${baseline.name} vs ${current.name}`;
  if (baseline.version !== current.version) return `${baseline.name} v${baseline.version} vs ${current.name} v${current.version}`;
  return undefined;
}

/**
 * Each difference between two recorded setups, baseline → new: `voxctl 0.1.0 → 0.2.0`, `stt-b model
 * nova-2 → nova-3`, a provider or condition added or removed, a changed seed. A value that was not
 * recorded (an evaluation older than the setup) reads `unknown`; one that does not exist reads `none`.
 */
export function changedSetup(baseline: EvaluationSetup, current: EvaluationSetup): string[] {
  const label = (setup: EvaluationSetup) => (v: string | number | null) => (v === null ? (setup.voxctl_version === null ? 'unknown' : 'none') : String(v));
  const a = label(baseline);
  const b = label(current);
  const out: string[] = [];
  if (baseline.voxctl_version !== current.voxctl_version) out.push(`voxctl ${a(baseline.voxctl_version)} → ${b(current.voxctl_version)}`);
  const n = normalizerMismatch(baseline.normalizer, current.normalizer);
  if (n) out.push(`normalizer ${n.replace(' vs ', ' → ')}`);
  const tokens = [...new Set([...Object.keys(current.providers), ...Object.keys(baseline.providers)])];
  for (const token of tokens) {
    const was = baseline.providers[token];
    const now = current.providers[token];
    if (!was) out.push(`${token} added`);
    else if (!now) out.push(`${token} removed`);
    else {
      for (const field of ['adapter', 'model', 'language'] as const) {
        if (was[field] !== now[field]) out.push(`${token} ${field} ${a(was[field])} → ${b(now[field])}`);
      }
    }
  }
  for (const c of current.conditions) if (!baseline.conditions.includes(c)) out.push(`condition ${c} added`);
  for (const c of baseline.conditions) if (!current.conditions.includes(c)) out.push(`condition ${c} removed`);
  if (baseline.seed !== current.seed) out.push(`seed ${baseline.seed} → ${current.seed}`);
  return out;
}
