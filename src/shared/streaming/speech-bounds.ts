/**
 * Where speech starts and ends in a clip, from its energy alone (DESIGN §13.2): the audio is cut into
 * 10 ms windows from its first sample; a window is speech when its energy is within 35 dB of the loudest
 * window's. End of speech is the end of the last such window, onset the start of the first. voxctl knows
 * its audio exactly, so this replaces the voice-activity detector's guess other benchmarks rely on.
 */

/** Width of an energy window (ms). */
export const ENERGY_WINDOW_MS = 10;
/** A window within this many dB of the peak window counts as speech. */
export const SPEECH_RANGE_DB = 35;

/** Onset and end of speech in ms of audio; both null for silence (every sample zero). */
export interface SpeechBounds {
  startMs: number | null;
  endMs: number | null;
  durationMs: number;
}

/**
 * Mean square of each 10 ms window; the last, shorter window is measured over its own samples so a
 * clip's tail is judged like the rest.
 */
export function windowEnergies(pcm: Int16Array, sampleRate: number): number[] {
  // Window k spans samples [k·rate/100, (k+1)·rate/100), so window edges fall on exact 10 ms marks at any rate.
  const perWindow = (sampleRate * ENERGY_WINDOW_MS) / 1000;
  const out: number[] = [];
  for (let k = 0; Math.floor(k * perWindow) < pcm.length; k++) {
    const start = Math.floor(k * perWindow);
    const end = Math.min(pcm.length, Math.max(start + 1, Math.floor((k + 1) * perWindow)));
    let sum = 0;
    for (let i = start; i < end; i++) {
      const s = pcm[i] as number;
      sum += s * s;
    }
    out.push(sum / (end - start));
  }
  return out;
}

/** Onset and end of speech of mono PCM16 at `sampleRate` (§13.2's definition). */
export function speechBounds(pcm: Int16Array, sampleRate: number): SpeechBounds {
  const durationMs = (pcm.length / sampleRate) * 1000;
  const energies = windowEnergies(pcm, sampleRate);
  const peak = energies.reduce((m, e) => Math.max(m, e), 0);
  if (peak <= 0) return { startMs: null, endMs: null, durationMs };
  const floor = peak / 10 ** (SPEECH_RANGE_DB / 10);
  const first = energies.findIndex((e) => e >= floor);
  let last = energies.length - 1;
  while (last > 0 && (energies[last] as number) < floor) last--;
  return {
    startMs: first * ENERGY_WINDOW_MS,
    endMs: Math.min(durationMs, (last + 1) * ENERGY_WINDOW_MS),
    durationMs,
  };
}
