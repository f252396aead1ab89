import { describe, expect, it } from 'vitest';
import { createFliteEngine, toFliteText } from '../../../../../src/server/engines/tts/flite.js';
import { TtsError } from '../../../../../src/server/engines/tts/errors.js';
import type { VoiceBinding } from '../../../../../src/server/engines/tts/types.js';
import { calculateAccuracy } from '../../../../../src/shared/accuracy.js';
import { audioDifference, meanPitch, rms, transcribe } from '../../../../helpers/speech-audio.js';

const engine = createFliteEngine();
const voice = (v: string, pitch = 0, rate = 1): VoiceBinding => ({ engine: 'flite', voice: v, pitch, rate });
const SENTENCE = 'Now is the winter of our discontent made glorious summer.';

describe('flite engine', () => {
  it.each(['slt', 'rms', 'awb', 'kal16'])('%s speaks: 16 kHz, non-silent, plausible length', async (v) => {
    const { pcm, sampleRate } = await engine.synthesize(SENTENCE, voice(v));
    expect(sampleRate).toBe(16000);
    expect(pcm.length / sampleRate).toBeGreaterThan(2);
    expect(pcm.length / sampleRate).toBeLessThan(8);
    expect(rms(pcm)).toBeGreaterThan(500);
  });

  it('different voices produce different audio', async () => {
    const slt = await engine.synthesize(SENTENCE, voice('slt'));
    const rmsVoice = await engine.synthesize(SENTENCE, voice('rms'));
    expect(audioDifference(slt.pcm, rmsVoice.pcm)).toBeGreaterThan(500);
    // slt is a female voice, rms a male one
    expect(meanPitch(slt.pcm, 16000)).toBeGreaterThan(meanPitch(rmsVoice.pcm, 16000) + 40);
  });

  it('is deterministic for the same binding', async () => {
    const a = await engine.synthesize('Hello there.', voice('awb', 2, 1.1));
    const b = await engine.synthesize('Hello there.', voice('awb', 2, 1.1));
    expect(Array.from(a.pcm)).toEqual(Array.from(b.pcm));
  });

  it('one instance serves every call: after other voices, texts and prosody, a call is byte-identical to a fresh engine\'s first', async () => {
    const used = createFliteEngine();
    const target = voice('kal16', -3, 0.9);
    const first = await used.synthesize('Your order number is four five seven two.', target);
    // Longer texts grow the instance's memory; every voice and both pitch paths leave their state behind.
    for (const v of ['slt', 'rms', 'awb', 'kal16']) await used.synthesize(`${SENTENCE} ${SENTENCE} ${SENTENCE}`, voice(v, 5, 1.3));
    const again = await used.synthesize('Your order number is four five seven two.', target);
    const fresh = await createFliteEngine().synthesize('Your order number is four five seven two.', target);
    expect(Array.from(again.pcm)).toEqual(Array.from(fresh.pcm));
    expect(Array.from(first.pcm)).toEqual(Array.from(fresh.pcm));
  });

  it.each(['slt', 'awb', 'kal16', 'rms'])('%s: pitch +4 semitones sounds higher than -4', async (v) => {
    const up = await engine.synthesize(SENTENCE, voice(v, 4));
    const down = await engine.synthesize(SENTENCE, voice(v, -4));
    const ratio = meanPitch(up.pcm, 16000) / meanPitch(down.pcm, 16000);
    // 8 semitones = x1.59; allow for the estimator and the voices' own intonation models
    expect(ratio).toBeGreaterThan(1.3);
    expect(ratio).toBeLessThan(1.9);
    // pitch must not change the speaking rate much
    expect(up.pcm.length / down.pcm.length).toBeGreaterThan(0.85);
    expect(up.pcm.length / down.pcm.length).toBeLessThan(1.15);
  });

  it.each(['slt', 'rms'])('%s: rate 1.25 is shorter than rate 0.8', async (v) => {
    const fast = await engine.synthesize(SENTENCE, voice(v, 0, 1.25));
    const slow = await engine.synthesize(SENTENCE, voice(v, 0, 0.8));
    const ratio = slow.pcm.length / fast.pcm.length;
    expect(ratio).toBeGreaterThan(1.4);
    expect(ratio).toBeLessThan(1.75);
  });

  it('is understood by PocketSphinx (WER < 0.25)', async () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    const { pcm, sampleRate } = await engine.synthesize(text, voice('slt'));
    const heard = await transcribe(pcm, sampleRate);
    expect(calculateAccuracy(text, heard).wer).toBeLessThan(0.25);
  });

  it('rejects an unknown voice with a typed error', async () => {
    await expect(engine.synthesize('Hi.', voice('kal8'))).rejects.toMatchObject({ code: 'invalid_voice' });
    await expect(engine.synthesize('Hi.', voice('constructor'))).rejects.toBeInstanceOf(TtsError);
  });

  it('treats text as text: options, file names and non-ASCII are spoken, not interpreted', async () => {
    for (const text of ['-voice', 'out.wav', '--help', 'Café naïve — “quoted” … 日本']) {
      const { pcm } = await engine.synthesize(text, voice('kal16'));
      expect(pcm.length).toBeGreaterThan(1000);
    }
  });

  it('folds typography and accents to ASCII', () => {
    expect(toFliteText('Café — “naïve” it’s…')).toBe('Cafe ,  "naive" it\'s...');
    expect(toFliteText('日本')).toBe('  ');
  });
});
