/**
 * The metrics of one call × provider × condition (DESIGN §16.4): whole-call WER, dropped turns and loops
 * from one alignment of every reference word against the whole transcript; with diarization, cpWER and
 * DER (md-eval's) and the speakers found. Pure: the caller hands the evaluation's normaliser as `words`.
 */
import { alignIds, DELETE, INSERT, SUBSTITUTE } from '../accuracy/align.js';
import { internTokens } from '../accuracy/tokens.js';
import { isLoop } from '../loops.js';
import { cpWer } from './cpwer.js';
import { diarizationError, type DerTimes } from './der.js';
import { duration3, nistField, seconds3, type SpeakerSegment } from './nist.js';

/** A reference turn: who spoke which text when (seconds from the call's start). */
export interface ReferenceTurn {
  speaker: string;
  start: number;
  end: number;
  text: string;
}

/** A word of a vendor's answer with its speaker label (null when the vendor gave none) and times in seconds. */
export interface HypothesisWord {
  text: string;
  start: number | null;
  end: number | null;
  speaker: string | null;
}

/** What a provider returned for the call. */
export interface CallHypothesis {
  transcript: string;
  words: readonly HypothesisWord[];
  /** Whether the adapter asked for and reads speaker labels (§16.3); false: WER only. */
  diarized: boolean;
}

/** `{"unsupported": true}`: the metric needs diarization the provider does not offer. */
export const UNSUPPORTED = Object.freeze({ unsupported: true as const });
export type Unsupported = typeof UNSUPPORTED;

/** The scores of one call × provider × condition. */
export interface CallScore {
  referenceWords: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Whole-call WER: Σ edits ÷ reference words. */
  wer: number;
  /** Reference turns whose every word is a deletion in the whole-call alignment. */
  droppedTurns: number;
  loop: boolean;
  speakers: number;
  /** Distinct hypothesis speakers; null without diarization. */
  speakersFound: number | null;
  cpwer: { errors: number; referenceWords: number; value: number } | Unsupported;
  der: (DerTimes & { value: number | null }) | Unsupported;
  /** The hypothesis speaker segments (the `hypothesis.rttm`); empty without diarization. */
  segments: SpeakerSegment[];
}

/** Gap (s) below which consecutive words of one speaker stay in one segment (§16.4). */
export const SEGMENT_GAP = 0.5;

/**
 * Hypothesis speaker segments (§16.4): words consecutive in the transcript's order with the same speaker
 * and a gap (next start − previous end) < 0.5 s form one segment from the first word's start to the last
 * word's end. Words without a speaker or times are left out. Segments of one speaker that overlap (a
 * vendor's times need not be monotonic) are joined: NIST scorers refuse a speaker overlapping itself and
 * the union scores the same.
 */
export function hypothesisSegments(words: readonly HypothesisWord[]): SpeakerSegment[] {
  const runs: SpeakerSegment[] = [];
  let cur: SpeakerSegment | null = null;
  for (const w of words) {
    if (w.speaker === null || w.start === null || w.end === null) continue;
    if (cur && cur.speaker === w.speaker && w.start - cur.end < SEGMENT_GAP) cur.end = Math.max(cur.end, w.end);
    else runs.push((cur = { speaker: w.speaker, start: w.start, end: Math.max(w.start, w.end) }));
  }
  const bySpeaker = new Map<string, SpeakerSegment[]>();
  for (const r of runs) {
    const list = bySpeaker.get(r.speaker);
    if (list) list.push(r);
    else bySpeaker.set(r.speaker, [r]);
  }
  const out: SpeakerSegment[] = [];
  for (const segs of bySpeaker.values()) {
    segs.sort((a, b) => a.start - b.start);
    let open: SpeakerSegment | null = null;
    for (const s of segs) {
      if (open && s.start < open.end) open.end = Math.max(open.end, s.end);
      else out.push((open = { ...s }));
    }
  }
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** A segment as its RTTM line states it (3 decimals), so DER is the one md-eval computes from the export. */
export function asExported(s: SpeakerSegment): SpeakerSegment {
  const start = Number(seconds3(s.start));
  return { speaker: nistField(s.speaker), start, end: start + Number(duration3(s)) };
}

/** Scores one call (see the module comment); `words` is the evaluation's normaliser as text → words. */
export function scoreCall(reference: readonly ReferenceTurn[], hypothesis: CallHypothesis, words: (text: string) => string[]): CallScore {
  const turns = [...reference].sort((a, b) => a.start - b.start || a.end - b.end);
  const turnWords = turns.map((t) => words(t.text));
  const refAll = turnWords.flat();
  const hypAll = words(hypothesis.transcript);
  const [r, h, alphabet] = internTokens(refAll, hypAll);
  const ops = alignIds(r, h, alphabet);
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  // Which reference words were deleted, to find the turns dropped whole.
  const deleted = new Uint8Array(refAll.length);
  let i = 0;
  for (const op of ops) {
    if (op === INSERT) insertions++;
    else {
      if (op === SUBSTITUTE) substitutions++;
      else if (op === DELETE) {
        deletions++;
        deleted[i] = 1;
      }
      i++;
    }
  }
  let droppedTurns = 0;
  let at = 0;
  for (const tw of turnWords) {
    if (tw.length > 0 && deleted.subarray(at, at + tw.length).every((d) => d === 1)) droppedTurns++;
    at += tw.length;
  }
  const speakers = new Set(turns.map((t) => t.speaker)).size;
  const base = {
    referenceWords: refAll.length,
    substitutions,
    deletions,
    insertions,
    wer: refAll.length > 0 ? (substitutions + deletions + insertions) / refAll.length : 0,
    droppedTurns,
    loop: isLoop(refAll, hypAll),
    speakers,
  };
  if (!hypothesis.diarized) return { ...base, speakersFound: null, cpwer: UNSUPPORTED, der: UNSUPPORTED, segments: [] };

  const refBySpeaker = new Map<string, string[]>();
  turns.forEach((t, k) => {
    const list = refBySpeaker.get(t.speaker);
    if (list) list.push(...turnWords[k]!);
    else refBySpeaker.set(t.speaker, [...turnWords[k]!]);
  });
  // A hypothesis speaker's words are normalised as one text, as the whole transcript is.
  const hypText = new Map<string, string[]>();
  for (const w of hypothesis.words) {
    if (w.speaker === null) continue;
    const list = hypText.get(w.speaker);
    if (list) list.push(w.text);
    else hypText.set(w.speaker, [w.text]);
  }
  const hypBySpeaker = new Map([...hypText].map(([s, ws]) => [s, words(ws.join(' '))] as const));
  const cp = cpWer(refBySpeaker, hypBySpeaker);
  const segments = hypothesisSegments(hypothesis.words);
  const der = diarizationError(turns.map(asExported), segments.map(asExported));
  return {
    ...base,
    speakersFound: hypText.size,
    cpwer: { errors: cp.errors, referenceWords: cp.referenceWords, value: cp.cpwer ?? 0 },
    der: { scoredSpeaker: der.scoredSpeaker, missed: der.missed, falseAlarm: der.falseAlarm, speakerError: der.speakerError, value: der.der },
    segments,
  };
}
