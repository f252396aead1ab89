// Measurements of real audio used by the engine tests: loudness, pitch, and PocketSphinx transcription.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeWav } from '../../src/server/audio/wav.js';
import { resamplePcm16 } from '../../src/server/audio/resample.js';

/** Root mean square of PCM16 samples (0 for silence; speech is typically > 1000). */
export function rms(pcm: Int16Array): number {
  if (pcm.length === 0) return 0;
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return Math.sqrt(sum / pcm.length);
}

/** Mean fundamental frequency (Hz) over clearly voiced 40 ms frames, by normalised autocorrelation. */
export function meanPitch(pcm: Int16Array, rate: number): number {
  const win = Math.round(rate * 0.04);
  const hop = Math.round(rate * 0.01);
  const minLag = Math.floor(rate / 500);
  const maxLag = Math.ceil(rate / 50);
  const found: number[] = [];
  for (let s = 0; s + win + maxLag < pcm.length; s += hop) {
    let e = 0;
    for (let i = 0; i < win; i++) e += (pcm[s + i] as number) ** 2;
    if (e / win < 500 ** 2) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let c = 0;
      let e2 = 0;
      for (let i = 0; i < win; i++) {
        const b = pcm[s + i + lag] as number;
        c += (pcm[s + i] as number) * b;
        e2 += b * b;
      }
      const r = c / Math.sqrt(e * e2);
      if (r > best) {
        best = r;
        bestLag = lag;
      }
    }
    if (best > 0.8) found.push(rate / bestLag);
  }
  return found.reduce((a, b) => a + b, 0) / found.length;
}

/** Relative difference of two signals (0 = identical), comparing the overlapping part plus length. */
export function audioDifference(a: Int16Array, b: Int16Array): number {
  const n = Math.min(a.length, b.length);
  let diff = Math.abs(a.length - b.length) * 1000;
  for (let i = 0; i < n; i++) diff += Math.abs((a[i] as number) - (b[i] as number));
  return diff / Math.max(a.length, b.length, 1);
}

const SPHINX = '/usr/share/pocketsphinx/model/en-us';

/** Transcribes speech with PocketSphinx (resampled to the 16 kHz its model expects). */
export async function transcribe(pcm: Int16Array, rate: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-sphinx-'));
  try {
    const file = join(dir, 'in.wav');
    writeFileSync(file, encodeWav(await resamplePcm16(pcm, rate, 16000), 16000));
    const { stdout } = await promisify(execFile)('pocketsphinx_continuous', [
      '-infile', file,
      '-hmm', SPHINX + '/en-us',
      '-lm', SPHINX + '/en-us.lm.bin',
      '-dict', SPHINX + '/cmudict-en-us.dict',
      '-logfn', '/dev/null',
    ]);
    return stdout.trim().toLowerCase();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
