/**
 * Where each planned turn lands in its call (DESIGN §16.1): turn k's speech extent starts `gap` after turn
 * k−1's speech extent ends, or `overlap` ms before it. All times are whole milliseconds, so the RTTM and
 * STM exports (3 decimals of a second) hold the truth exactly. Two rules §16.1 leaves implicit keep the
 * truth well formed: a turn never starts before the previous turn starts (turn order is start order), and
 * never before its own speaker's previous turn ends (one voice does not talk over itself; NIST scorers
 * refuse a speaker overlapping itself). A turn whose speech starts late in its audio may need to start
 * its audio before the call does: the call is shifted so no audio starts before 0.
 */
import type { PlannedCall } from './plan.js';

/** The speech extent inside one turn's own audio (§13.2, from `speechBounds`), in ms. */
export interface TurnAudioExtent {
  /** Onset of speech in the turn's audio. */
  startMs: number;
  /** End of speech in the turn's audio. */
  endMs: number;
  /** Length of the turn's audio. */
  durationMs: number;
}

/** A turn placed in its call. */
export interface PlacedTurn {
  index: number;
  textIndex: number;
  /** The speaker id of the selection. */
  speakerId: string;
  /** `S1`, `S2`… in the order speakers first speak. */
  speaker: string;
  /** Where the turn's audio starts in the call (ms, whole). */
  offsetMs: number;
  /** The turn's speech extent in the call (ms, whole). */
  startMs: number;
  endMs: number;
}

/** A call laid out: its turns in order of start and its length. */
export interface CallLayout {
  call: number;
  turns: PlacedTurn[];
  /** Length of the mixed track (ms): the end of the last turn's audio. */
  durationMs: number;
}

/** Lays out one planned call from the speech extents of its turns' audio (one per turn, in turn order). */
export function layoutCall(plan: PlannedCall, extents: readonly TurnAudioExtent[]): CallLayout {
  if (extents.length !== plan.turns.length) throw new RangeError(`layoutCall: ${extents.length} extents for ${plan.turns.length} turns`);
  const lastEndBySlot = new Map<number, number>();
  const starts: number[] = [];
  const ends: number[] = [];
  let prevStart = -Infinity;
  let prevEnd = 0;
  plan.turns.forEach((turn, k) => {
    const e = extents[k]!;
    const lead = Math.round(e.startMs);
    const length = Math.max(0, Math.round(e.endMs) - lead);
    let start = lead; // turn 0: its audio starts the call
    if (k > 0) {
      start = turn.overlapMs === null ? prevEnd + turn.gapMs : prevEnd - turn.overlapMs;
      start = Math.max(start, prevStart, lastEndBySlot.get(turn.slot) ?? -Infinity);
    }
    starts.push(start);
    ends.push(start + length);
    lastEndBySlot.set(turn.slot, start + length);
    prevStart = start;
    prevEnd = start + length;
  });
  // No turn's audio may start before the call: shift everything by the most negative audio offset.
  let shift = 0;
  plan.turns.forEach((_, k) => {
    shift = Math.max(shift, Math.round(extents[k]!.startMs) - starts[k]!);
  });
  const labels = new Map<number, string>();
  let durationMs = 0;
  const turns = plan.turns.map((turn, k): PlacedTurn => {
    if (!labels.has(turn.slot)) labels.set(turn.slot, `S${labels.size + 1}`);
    const startMs = starts[k]! + shift;
    const offsetMs = startMs - Math.round(extents[k]!.startMs);
    durationMs = Math.max(durationMs, offsetMs + Math.ceil(extents[k]!.durationMs));
    return { index: turn.index, textIndex: turn.textIndex, speakerId: plan.speakers[turn.slot]!, speaker: labels.get(turn.slot)!, offsetMs, startMs, endMs: ends[k]! + shift };
  });
  return { call: plan.call, turns, durationMs };
}
