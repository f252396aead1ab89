/**
 * The conversation fields of a summary row (DESIGN §16.4): one provider × condition over its calls.
 * Rates are ratios of sums, never means of per-call rates: `wer` and `cpwer` Σ errors ÷ Σ reference words,
 * `der` md-eval's overall line (the four times summed over the calls, each call with its own mapping).
 * Intervals are percentile bootstraps whose blocks are calls (a call's turns are correlated), seeded.
 */
import { round4 } from '../accuracy.js';
import { speakerBootstrapCi } from '../stats.js';
import { derOf, sumDerTimes, type DerTimes } from './der.js';
import { UNSUPPORTED, type CallScore, type Unsupported } from './score.js';

/** A scored call of the row. */
export interface ScoredCall {
  /** The call's id (`call-{n}`, or a recorded call's name): the bootstrap block. */
  call: string;
  score: CallScore;
}

/** The conversation fields of one summary row. */
export interface ConversationSummary {
  calls: number;
  reference_words: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  wer: number | null;
  wer_ci95: [number, number];
  cpwer: number | Unsupported | null;
  cpwer_ci95: [number, number] | Unsupported;
  der: number | Unsupported | null;
  der_ci95: [number, number] | Unsupported;
  /** Share of calls whose hypothesis has as many speakers as the reference; unsupported without diarization. */
  speaker_count_accuracy: number | Unsupported | null;
  dropped_turns: number;
  loops: number;
}

const ratio = (a: number, b: number): number | null => (b > 0 ? round4(a / b) : null);

/** Summarises a row's calls (see the module comment); `seed` makes the intervals reproducible. */
export function conversationSummary(calls: readonly ScoredCall[], options: { seed: number; draws?: number }): ConversationSummary {
  const boot = { seed: options.seed, ...(options.draws !== undefined ? { draws: options.draws } : {}) };
  let words = 0;
  let s = 0;
  let d = 0;
  let i = 0;
  let dropped = 0;
  let loops = 0;
  for (const { score } of calls) {
    words += score.referenceWords;
    s += score.substitutions;
    d += score.deletions;
    i += score.insertions;
    dropped += score.droppedTurns;
    if (score.loop) loops++;
  }
  const base = {
    calls: calls.length,
    reference_words: words,
    substitutions: s,
    deletions: d,
    insertions: i,
    wer: ratio(s + d + i, words),
    wer_ci95: speakerBootstrapCi(
      calls.map((c) => ({ speaker: c.call, errors: c.score.substitutions + c.score.deletions + c.score.insertions, referenceWords: c.score.referenceWords })),
      boot,
    ),
    dropped_turns: dropped,
    loops,
  };
  // A provider without speaker labels answers no call with them: its diarization metrics are unsupported.
  const diarized = calls.length > 0 && calls.every((c) => !('unsupported' in c.score.cpwer) && !('unsupported' in c.score.der));
  if (!diarized) return { ...base, cpwer: UNSUPPORTED, cpwer_ci95: UNSUPPORTED, der: UNSUPPORTED, der_ci95: UNSUPPORTED, speaker_count_accuracy: UNSUPPORTED };
  const cp = calls.map((c) => ({ speaker: c.call, ...(c.score.cpwer as { errors: number; referenceWords: number }) }));
  const der = calls.map((c) => c.score.der as DerTimes);
  const derTimes = sumDerTimes(der);
  const derValue = derOf(derTimes);
  const matched = calls.filter((c) => c.score.speakersFound === c.score.speakers).length;
  return {
    ...base,
    cpwer: ratio(cp.reduce((a, c) => a + c.errors, 0), cp.reduce((a, c) => a + c.referenceWords, 0)),
    cpwer_ci95: speakerBootstrapCi(cp, boot),
    der: derValue === null ? null : round4(derValue),
    der_ci95: speakerBootstrapCi(
      calls.map((c, k) => ({ speaker: c.call, errors: der[k]!.missed + der[k]!.falseAlarm + der[k]!.speakerError, referenceWords: der[k]!.scoredSpeaker })),
      boot,
    ),
    speaker_count_accuracy: round4(matched / calls.length),
  };
}
