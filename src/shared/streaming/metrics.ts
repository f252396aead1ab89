/**
 * The latency a voice agent feels, computed from what one stream did (DESIGN §13.2): when each audio
 * frame went out and when each result came back, both on the same monotonic clock. Pure, so that the
 * evaluation runner, `stt stream` and the tests compute the figures the same way.
 */
import type { SpeechBounds } from './speech-bounds.js';

/** A recognised word with its place in the audio (ms from the stream's first sample), when the vendor gives it. */
export interface TimedWord {
  word: string;
  startMs: number;
  endMs: number;
}

/**
 * One result as received. `partial`: the current, still open segment's text (it replaces the previous
 * partial); `final`: the segment's settled text (it closes the segment; the next partial starts a new one).
 */
export interface ReceivedResult {
  kind: 'partial' | 'final';
  text: string;
  words?: TimedWord[];
  /** Monotonic receipt time (ms), taken when the message arrived, before it was parsed. */
  at: number;
}

/** Everything the figures are computed from. */
export interface StreamTimeline {
  /** Audio per frame (ms), whatever the pace. */
  frameMs: number;
  /** Monotonic send time of each frame, in order. */
  sentAt: readonly number[];
  /** Audio length (ms). */
  audioMs: number;
  speech: SpeechBounds;
  results: readonly ReceivedResult[];
}

/** Per-utterance streaming figures (field names as the API shows them; times in whole ms). */
export interface StreamMetrics {
  /** The final transcript: the final segments joined. */
  transcript: string;
  /** From the first frame sent to the first non-empty result (partial or final). */
  first_partial_ms: number | null;
  /** From the send of the frame holding the end of speech to the last non-empty final result. */
  final_latency_ms: number | null;
  /** Partial results that changed or withdrew a word of the running hypothesis. */
  revisions: number;
  /** Distinct words received before the audio holding them was sent. */
  early_words: number;
  /** End of speech in the audio (ms), null for silence. */
  end_of_speech_ms: number | null;
}

/** Word form compared for revisions: lower case, letters, digits and apostrophes only. */
export function wordKey(w: string): string {
  return w.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, '');
}

function words(text: string): string[] {
  return text.split(/\s+/).map(wordKey).filter(Boolean);
}

/** Index of the frame whose audio holds the instant `ms` (frame k holds (k·frameMs, (k+1)·frameMs]). */
export function frameHolding(ms: number, frameMs: number, frames: number): number {
  return Math.min(frames - 1, Math.max(0, Math.ceil(ms / frameMs) - 1));
}

/** Audio (ms) fully sent by monotonic time `t`: the frames sent at or before it. */
export function audioSentBy(t: number, timeline: Pick<StreamTimeline, 'sentAt' | 'frameMs' | 'audioMs'>): number {
  const { sentAt } = timeline;
  let lo = 0;
  let hi = sentAt.length; // first index with sentAt > t
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sentAt[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return Math.min(timeline.audioMs, lo * timeline.frameMs);
}

/** True when `next` changes or drops a word of `prev` (appending words is not a revision). */
export function isRevision(prev: readonly string[], next: readonly string[]): boolean {
  if (next.length < prev.length) return true;
  for (let i = 0; i < prev.length; i++) if (prev[i] !== next[i]) return true;
  return false;
}

/**
 * One pass over the results: the running hypothesis after each (settled finals' words, then the open
 * partial's), of which only its length is kept, and the partials that revised the one before. Only two
 * hypotheses are held at a time: a stream of many long partials costs the words of one transcript, not of
 * every result (DESIGN §17.1).
 */
function hypotheses(results: readonly ReceivedResult[]): { settled: string[]; lengths: number[]; revisions: number } {
  const settled: string[] = [];
  const settledWords: string[] = [];
  const lengths: number[] = [];
  let prev: string[] = [];
  let revisions = 0;
  for (const r of results) {
    let cur: string[];
    if (r.kind === 'final') {
      const text = r.text.trim();
      if (text) {
        settled.push(text);
        for (const w of words(text)) settledWords.push(w);
      }
      cur = settledWords.slice();
    } else {
      cur = settledWords.concat(words(r.text));
      if (isRevision(prev, cur)) revisions++;
    }
    lengths.push(cur.length);
    prev = cur;
  }
  return { settled, lengths, revisions };
}

/**
 * Early words. With word timestamps: a word is early when more than half of it had not been sent when
 * it arrived (its midpoint lies beyond the audio sent). Without: the final transcript's words are spread
 * evenly over the speech, and a word is early when it arrived more than one mean word length before
 * its estimated midpoint was sent — lenient, since speech is not spread evenly.
 */
function earlyWords(t: StreamTimeline, lengths: readonly number[], finalWords: number): number {
  const early = new Set<string>();
  const { startMs, endMs } = t.speech;
  t.results.forEach((r, i) => {
    const sent = audioSentBy(r.at, t);
    if (r.words && r.words.length) {
      for (const w of r.words) if ((w.startMs + w.endMs) / 2 > sent) early.add(`${wordKey(w.word)}@${Math.round(w.startMs)}`);
      return;
    }
    if (r.words || startMs === null || endMs === null || finalWords === 0) return;
    const per = (endMs - startMs) / finalWords;
    const count = Math.min(finalWords, lengths[i] as number);
    for (let k = 0; k < count; k++) {
      if (startMs + (k + 0.5) * per > sent + per) early.add(`#${k}`);
    }
  });
  return early.size;
}

/** Computes the per-utterance figures of one stream. */
export function streamMetrics(t: StreamTimeline): StreamMetrics {
  const first = t.sentAt[0];
  const { settled, lengths, revisions } = hypotheses(t.results);
  const transcript = settled.join(' ');
  const firstResult = t.results.find((r) => r.text.trim());
  const lastFinal = [...t.results].reverse().find((r) => r.kind === 'final' && r.text.trim());
  const eos = t.speech.endMs;
  let finalLatency: number | null = null;
  if (lastFinal && eos !== null && t.sentAt.length) {
    finalLatency = lastFinal.at - (t.sentAt[frameHolding(eos, t.frameMs, t.sentAt.length)] as number);
  }
  return {
    transcript,
    first_partial_ms: firstResult && first !== undefined ? Math.round(firstResult.at - first) : null,
    final_latency_ms: finalLatency === null ? null : Math.round(finalLatency),
    revisions,
    early_words: earlyWords(t, lengths, words(transcript).length),
    end_of_speech_ms: eos,
  };
}

