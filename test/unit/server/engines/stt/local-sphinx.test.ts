// The offline recognizer on the committed Flite fixture: accuracy, the same words from WAV/MP3/M4A,
// confidence from PocketSphinx's word posteriors, and a clear `provider_unavailable` when it is missing.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { decodeAudio } from '../../../../../src/server/audio/decode.js';
import { encodeWav } from '../../../../../src/server/audio/wav.js';
import { createLocalSphinxAdapter, parseSphinxOutput, resolveSphinx } from '../../../../../src/server/engines/stt/local-sphinx.js';
import { SttError, type SttAudio } from '../../../../../src/server/engines/stt/types.js';
import { calculateAccuracy } from '../../../../../src/shared/accuracy.js';

const SENTENCE = 'Please call me back after the meeting tomorrow morning.';
const fixture = (ext: string) => readFileSync(new URL(`../../../../../fixtures/speech-slt.${ext}`, import.meta.url));

async function audioOf(ext: string): Promise<SttAudio> {
  const d = await decodeAudio(fixture(ext));
  return { pcm: d.pcm, sampleRate: d.sampleRate, durationSeconds: d.durationSeconds, wav: encodeWav(d.pcm, d.sampleRate) };
}

const signal = () => AbortSignal.timeout(60_000);

describe('local-sphinx on the fixture', () => {
  test('PocketSphinx and its model are installed (npm test installs them)', () => {
    expect(typeof resolveSphinx()).toBe('object');
    expect(createLocalSphinxAdapter().check()).toEqual({ ok: true });
  });

  test('WAV, MP3 and M4A give the same transcript, with WER < 0.25 against the sentence', async () => {
    const adapter = createLocalSphinxAdapter();
    const [wav, mp3, m4a] = await Promise.all(['wav', 'mp3', 'm4a'].map(async (ext) => adapter.transcribe(await audioOf(ext), { signal: signal() })));
    expect(calculateAccuracy(SENTENCE, wav!.transcript).wer).toBeLessThan(0.25);
    expect(mp3!.transcript).toBe(wav!.transcript);
    expect(m4a!.transcript).toBe(wav!.transcript);
    expect(wav!.confidence).toBeGreaterThan(0.3);
    expect(wav!.confidence).toBeLessThanOrEqual(1);
  });

  // (8 kHz telephone audio upsampled still lacks the upper band the 16 kHz model was trained on.)
  test('resamples other rates to 16 kHz first (22.05 kHz and 44.1 kHz input)', async () => {
    const { resamplePcm16 } = await import('../../../../../src/server/audio/resample.js');
    const base = await audioOf('wav');
    const adapter = createLocalSphinxAdapter();
    for (const rate of [22050, 44100]) {
      const pcm = await resamplePcm16(base.pcm, base.sampleRate, rate);
      const out = await adapter.transcribe({ pcm, sampleRate: rate, durationSeconds: pcm.length / rate, wav: encodeWav(pcm, rate) }, { signal: signal() });
      expect(calculateAccuracy(SENTENCE, out.transcript).wer, `${rate} Hz: ${out.transcript}`).toBeLessThan(0.4);
    }
  });

  test('silence gives an empty transcript and null confidence', async () => {
    const pcm = new Int16Array(16000);
    const out = await createLocalSphinxAdapter().transcribe({ pcm, sampleRate: 16000, durationSeconds: 1, wav: encodeWav(pcm, 16000) }, { signal: signal() });
    expect(out).toEqual({ transcript: '', confidence: null });
  });

  test('an abort stops the recognition with `timeout`', async () => {
    const adapter = createLocalSphinxAdapter();
    const err = await adapter.transcribe(await audioOf('wav'), { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SttError);
    expect((err as SttError).code).toBe('timeout');
  });

  test('queued recognitions (limit 1) all complete with the same words', async () => {
    const audio = await audioOf('wav');
    const one = createLocalSphinxAdapter({ maxConcurrent: 1 });
    const outs = await Promise.all([1, 2].map(() => one.transcribe(audio, { signal: signal() })));
    expect(outs[0]!.transcript).not.toBe('');
    expect(outs[1]!.transcript).toBe(outs[0]!.transcript);
  });
});

describe('missing engine', () => {
  test('an absent binary → provider_unavailable with the install hint', async () => {
    const adapter = createLocalSphinxAdapter({ binary: 'pocketsphinx_continuous', path: '/nonexistent' });
    const check = adapter.check();
    expect(check.ok).toBe(false);
    const err = (await adapter.transcribe(await audioOf('wav'), { signal: signal() }).catch((e: unknown) => e)) as SttError;
    expect(err.code).toBe('provider_unavailable');
    expect(err.message).toMatch(/apt-get install pocketsphinx pocketsphinx-en-us/);
  });

  test('an absent model → provider_unavailable naming the model', () => {
    const check = createLocalSphinxAdapter({ modelDir: '/nonexistent/model' }).check();
    expect(check).toMatchObject({ ok: false });
    expect((check as { detail: string }).detail).toMatch(/model not found in \/nonexistent\/model/);
  });
});

describe('parseSphinxOutput', () => {
  test('joins hypothesis lines and averages word posteriors, skipping markers and fillers', () => {
    const out = parseSphinxOutput(
      ['hello world', '<s> 0.000 0.140 0.999800', 'hello 0.150 0.270 0.5', '[NOISE] 0.3 0.4 0.1', 'world(2) 0.280 0.550 0.7', '</s> 2.8 2.9 1.000000', 'again', 'again 3.0 3.2 0.9', '<sil> 3.2 3.3 1.0', ''].join('\n'),
    );
    expect(out.transcript).toBe('hello world again');
    expect(out.confidence).toBeCloseTo((0.5 + 0.7 + 0.9) / 3, 10);
  });

  test('no words → empty transcript, null confidence', () => {
    expect(parseSphinxOutput('')).toEqual({ transcript: '', confidence: null });
  });
});
