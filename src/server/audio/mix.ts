/**
 * Mixing turns into one mono track (DESIGN §16.1): each turn's PCM16 is added at its offset, overlapping
 * speech summed and the sum clipped once to 16 bits (clipping after each addition would depend on the
 * order of three overlapping voices). The sum is kept in 32 bits only over the span that overlaps;
 * elsewhere a turn is copied, so a call costs one pass over its samples.
 */
import type { Pcm16Audio } from './wav.js';

/** A turn to mix: mono PCM16 at the track's rate, placed `offset` samples from the track's start. */
export interface MixPart {
  pcm: Int16Array;
  offset: number;
}

/** Mixes `parts` into a track of `length` samples (at least the end of the last part) at `sampleRate`. */
export function mixTracks(parts: readonly MixPart[], sampleRate: number, length = 0): Pcm16Audio {
  let total = length;
  for (const p of parts) {
    if (!Number.isInteger(p.offset) || p.offset < 0) throw new RangeError(`mixTracks: offset must be a whole number of samples >= 0, got ${p.offset}`);
    total = Math.max(total, p.offset + p.pcm.length);
  }
  const out = new Int16Array(total);
  // Samples already written by an earlier part: up to `covered` (parts are taken in offset order).
  const order = [...parts].sort((a, b) => a.offset - b.offset);
  let covered = 0;
  for (const p of order) {
    const end = p.offset + p.pcm.length;
    const shared = Math.min(covered, end) - p.offset;
    if (shared > 0) addClipped(out, p.pcm.subarray(0, shared), p.offset, order, p);
    const from = Math.max(0, shared);
    if (from < p.pcm.length) out.set(p.pcm.subarray(from), p.offset + from);
    covered = Math.max(covered, end);
  }
  return { pcm: out, sampleRate };
}

/**
 * Adds `pcm` at `offset` where earlier parts already wrote: the true sum of every part covering each
 * sample is recomputed in 32 bits and clipped once, so the result does not depend on the parts' order.
 */
function addClipped(out: Int16Array, pcm: Int16Array, offset: number, order: readonly MixPart[], self: MixPart): void {
  const sum = new Int32Array(pcm.length);
  for (const q of order) {
    if (q === self) break;
    const from = Math.max(offset, q.offset);
    const to = Math.min(offset + pcm.length, q.offset + q.pcm.length);
    for (let i = from; i < to; i++) sum[i - offset]! += q.pcm[i - q.offset]!;
  }
  for (let i = 0; i < pcm.length; i++) {
    const v = sum[i]! + pcm[i]!;
    out[offset + i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
}
