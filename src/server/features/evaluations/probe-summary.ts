/**
 * The probe columns of an evaluation's summary rows (DESIGN §12), computed with the rest of the summary
 * from the stored utterances: loops and capped WER on every row, entity accuracy per type on every row of
 * an evaluation with the entity probe, and — on each provider's row for condition `clean`, group `all` —
 * the hallucination of the non-speech clips and the keyterm lift.
 */
import type { EvaluationSummaryRow } from '../../../shared/schemas/evaluations.js';
import { getNormalizer, type NormalizerName } from '../../../shared/normalizers/index.js';
import { whitespaceTokens } from '../../../shared/normalize.js';
import { cappedErrors, isLoop } from '../../../shared/loops.js';
import { entityFound, isEntityType } from '../../../shared/entities/index.js';
import { keytermCounts } from '../../../shared/keyterm-scores.js';
import { speakerBootstrapCi } from '../../../shared/stats.js';
import { round4 } from '../../../shared/accuracy.js';
import type { UtteranceView } from './repository.js';
import type { CheckedProbes } from './probes.js';

/** Words of a text after the evaluation's normaliser. */
export const normalizedWords = (text: string, normalizer: NormalizerName): string[] => whitespaceTokens(getNormalizer(normalizer).normalize(text));

/** Whether an utterance's transcript loops where its reference does not (DESIGN §12.2); false without a transcript. */
export function utteranceLoops(u: Pick<UtteranceView, 'reference' | 'transcript'>, normalizer: NormalizerName): boolean {
  return u.transcript !== null && isLoop(normalizedWords(u.reference, normalizer), normalizedWords(u.transcript, normalizer));
}

/** Whether an entity sentence's entity came back (null: no transcript, or not an entity sentence). */
export function utteranceEntityFound(u: Pick<UtteranceView, 'transcript' | 'entity_type' | 'entity_value'>): boolean | null {
  if (u.transcript === null || !u.entity_type || u.entity_value === null || u.entity_value === undefined || !isEntityType(u.entity_type)) return null;
  return entityFound({ type: u.entity_type, value: u.entity_value }, u.transcript);
}

/** A rate's 95% interval over independent blocks (each item its own block, or its speaker), from misses. */
function rateCi(items: readonly { block: string; hit: boolean }[], seed: number, hitsAreErrors: boolean): [number, number] | null {
  if (items.length === 0) return null;
  const [lo, hi] = speakerBootstrapCi(
    items.map((x) => ({ speaker: x.block, errors: x.hit === hitsAreErrors ? 1 : 0, referenceWords: 1 })),
    { seed },
  );
  return hitsAreErrors ? [lo, hi] : [round4(1 - hi), round4(1 - lo)];
}

/** `loops`, `wer_capped` and (with the entity probe) `entities` of one summary row over its speech rows. */
export function rowProbeColumns(
  rows: readonly UtteranceView[],
  opts: { normalizer: NormalizerName; seed: number; probes?: CheckedProbes },
): Pick<EvaluationSummaryRow, 'loops' | 'wer_capped' | 'entities'> {
  let loops = 0;
  let capped = 0;
  let words = 0;
  for (const u of rows) {
    if (u.transcript === null || u.reference_words === null) continue;
    if (utteranceLoops(u, opts.normalizer)) loops++;
    capped += cappedErrors((u.substitutions ?? 0) + (u.deletions ?? 0) + (u.insertions ?? 0), u.reference_words);
    words += u.reference_words;
  }
  const out: Pick<EvaluationSummaryRow, 'loops' | 'wer_capped' | 'entities'> = { loops, wer_capped: words > 0 ? round4(capped / words) : null };
  if (opts.probes?.entities) {
    const entities: NonNullable<EvaluationSummaryRow['entities']> = {};
    for (const type of opts.probes.entities.types) {
      const items = rows.flatMap((u) => {
        const found = u.entity_type === type ? utteranceEntityFound(u) : null;
        return found === null ? [] : [{ block: u.speaker_id, hit: found }];
      });
      const hits = items.filter((x) => x.hit).length;
      entities[type] = { total: items.length, found: hits, accuracy: items.length ? round4(hits / items.length) : null, ci95: rateCi(items, opts.seed, false) };
    }
    out.entities = entities;
  }
  return out;
}

/** The non-speech figures of one provider over its clips (DESIGN §12.1): any word after normalisation counts. */
export function nonSpeechColumns(clips: readonly UtteranceView[], opts: { normalizer: NormalizerName; seed: number; seconds: number }): NonNullable<EvaluationSummaryRow['non_speech']> {
  const heard = clips.filter((u) => u.transcript !== null);
  const items = heard.map((u) => ({ kind: u.kind ?? '', words: normalizedWords(u.transcript!, opts.normalizer).length, block: `clip ${u.text_index}` }));
  const withWords = items.filter((x) => x.words > 0).length;
  const byKind: Record<string, number> = {};
  for (const kind of [...new Set(items.map((x) => x.kind))]) {
    const of = items.filter((x) => x.kind === kind);
    byKind[kind] = round4(of.filter((x) => x.words > 0).length / of.length);
  }
  const minutes = (items.length * opts.seconds) / 60;
  return {
    clips: items.length,
    clips_with_words: withWords,
    hallucination_rate: items.length ? round4(withWords / items.length) : null,
    ci95: rateCi(items.map((x) => ({ block: x.block, hit: x.words > 0 })), opts.seed, true),
    words_per_minute: minutes > 0 ? Math.round((items.reduce((n, x) => n + x.words, 0) / minutes) * 100) / 100 : null,
    by_kind: byKind,
  };
}

/** The keyterm figures of one provider (DESIGN §12.4) over its scored speech, or `unsupported` when no boosted pass ran. */
export function keytermColumns(rows: readonly UtteranceView[], opts: { normalizer: NormalizerName; terms: readonly string[] }): NonNullable<EvaluationSummaryRow['keyterms']> {
  const scored = rows.filter((u) => u.transcript !== null && u.reference_words !== null);
  if (!scored.some((u) => (u.boosted_transcript ?? null) !== null || (u.boosted_error ?? null) !== null)) return { unsupported: true };
  const terms = opts.terms.map((t) => normalizedWords(t, opts.normalizer)).filter((t) => t.length > 0);
  const sum = { occurrences: 0, recalledWithout: 0, recalledWith: 0, fpWithout: 0, fpWith: 0, otherWithout: 0, otherWith: 0, errWithout: 0, errWith: 0 };
  for (const u of scored) {
    if (u.boosted_transcript === null || u.boosted_transcript === undefined) continue;
    const ref = normalizedWords(u.reference, opts.normalizer);
    const without = keytermCounts(ref, normalizedWords(u.transcript!, opts.normalizer), terms);
    const withBoost = keytermCounts(ref, normalizedWords(u.boosted_transcript, opts.normalizer), terms);
    sum.occurrences += without.occurrences;
    sum.recalledWithout += without.recalled;
    sum.recalledWith += withBoost.recalled;
    sum.fpWithout += without.falsePositives;
    sum.fpWith += withBoost.falsePositives;
    sum.otherWithout += without.otherWords;
    sum.errWithout += without.otherErrors;
    sum.otherWith += withBoost.otherWords;
    sum.errWith += withBoost.otherErrors;
  }
  const rate = (n: number, d: number) => (d > 0 ? round4(n / d) : null);
  return {
    occurrences: sum.occurrences,
    recall_without: rate(sum.recalledWithout, sum.occurrences),
    recall_with: rate(sum.recalledWith, sum.occurrences),
    false_positives_without: sum.fpWithout,
    false_positives_with: sum.fpWith,
    wer_other_without: rate(sum.errWithout, sum.otherWithout),
    wer_other_with: rate(sum.errWith, sum.otherWith),
  };
}
