import { describe, expect, it } from 'vitest';
import { EvaluationProgress, ETA_AFTER_PER_PROVIDER } from '../../../src/cli/eval/watch.js';
import { flacSeconds, wavSeconds } from '../../../src/cli/eval/audio-length.js';
import { Output } from '../../../src/cli/core/output.js';
import type { EvaluationDetail } from '../../../src/shared/schemas/evaluations.js';
import { Capture } from '../../helpers/cli-context.js';

const evaluation = (done: number, providers: string[]): EvaluationDetail =>
  ({
    evaluation_id: 'ev_x',
    status: 'processing',
    progress: Math.floor((100 * done) / 400),
    total_utterances: 400,
    completed_utterances: done,
    providers,
  }) as unknown as EvaluationDetail;

describe('the ETA of --watch (issue 30)', () => {
  it('is shown only once every provider could have done a few utterances since the watch began', () => {
    const stderr = new Capture(false);
    const out = new Output({ stdout: new Capture(false), stderr, json: true, quiet: false, verbose: false, noColor: true });
    const p = new EvaluationProgress(out);
    const providers = ['stt-b', 'stt-d'];
    // Already done before the watch: not measured. Then a burst of 8 in 1 s (the fast provider's first answers).
    p.update(evaluation(20, providers), 0);
    p.update({ ...evaluation(28, providers), progress: 10 }, 1_000);
    p.update({ ...evaluation(20 + 2 * ETA_AFTER_PER_PROVIDER, providers), progress: 20 }, 2_000);
    const events = stderr.text.trim().split('\n').map((l) => JSON.parse(l) as { eta_seconds: number | null; rate_per_second: number });
    expect(events.map((e) => e.eta_seconds)).toEqual([null, null, Math.round((400 - 30) / 5)]);
    expect(events[1]!.rate_per_second).toBe(8);
  });
});

/** A WAV of `seconds` of 16-bit mono PCM at `rate`, with a LIST chunk before `data` as many recorders write. */
function wav(seconds: number, rate: number, dataSize = seconds * rate * 2): Buffer {
  const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([5, 0, 0, 0]), Buffer.from('INFOx'), Buffer.alloc(1)]);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(1, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * 2, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(16, 22);
  const data = Buffer.alloc(8);
  data.write('data', 0, 'latin1');
  data.writeUInt32LE(dataSize, 4);
  const head = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE'), fmt, list, data]);
  return head;
}

describe('audio lengths from headers (eval run --corpus FOLDER --dry-run)', () => {
  it('reads a WAV data chunk after other chunks; a streamed WAV (unknown size) is unknown', () => {
    expect(wavSeconds(wav(3, 8000))).toBe(3);
    expect(wavSeconds(wav(2, 48000))).toBe(2);
    expect(wavSeconds(wav(1, 8000, 0xffffffff))).toBeUndefined();
    expect(wavSeconds(Buffer.from('ID3 not a wav'))).toBeUndefined();
  });

  it('reads total samples and rate from a FLAC STREAMINFO block', () => {
    const head = Buffer.alloc(42);
    head.write('fLaC', 0, 'latin1');
    head[4] = 0x80; // last metadata block, type 0 (STREAMINFO)
    head[7] = 34;
    // 16000 Hz (20 bits), mono, 16 bits, 40000 samples (36 bits): 2.5 s
    const rate = 16000;
    head[18] = rate >> 12;
    head[19] = (rate >> 4) & 0xff;
    head[20] = ((rate & 0x0f) << 4) | (0 << 1) | 0;
    head[21] = (15 << 4) | 0;
    head.writeUInt32BE(40000, 22);
    expect(flacSeconds(head)).toBe(2.5);
    head[4] = 0x84; // not STREAMINFO first
    expect(flacSeconds(head)).toBeUndefined();
  });
});
