import { describe, expect, it } from 'vitest';
import { createEspeakEngine, espeakPitchParam, espeakWordsPerMinute } from '../../../../../src/server/engines/tts/espeak.js';
import { ESPEAK_LANGUAGES, ESPEAK_VARIANTS } from '../../../../../src/server/engines/tts/catalogue.js';
import type { VoiceBinding } from '../../../../../src/server/engines/tts/types.js';
import { audioDifference, meanPitch, rms } from '../../../../helpers/speech-audio.js';

const engine = createEspeakEngine();
const voice = (v: string, variant?: string, pitch = 0, rate = 1): VoiceBinding => ({ engine: 'espeak', voice: v, variant, pitch, rate });
const SENTENCE = 'Now is the winter of our discontent made glorious summer.';

describe('espeak engine', () => {
  it('speaks at 22050 Hz, non-silent', async () => {
    const { pcm, sampleRate } = await engine.synthesize(SENTENCE, voice('en-us'));
    expect(sampleRate).toBe(22050);
    expect(pcm.length / sampleRate).toBeGreaterThan(2);
    expect(pcm.length / sampleRate).toBeLessThan(8);
    expect(rms(pcm)).toBeGreaterThan(500);
  });

  it('dialects and variants change the audio; a female variant is higher than a male one', async () => {
    const us = await engine.synthesize(SENTENCE, voice('en-us'));
    const scot = await engine.synthesize(SENTENCE, voice('en-gb-scotland'));
    const f3 = await engine.synthesize(SENTENCE, voice('en-gb-scotland', 'f3'));
    const m3 = await engine.synthesize(SENTENCE, voice('en-gb-scotland', 'm3'));
    expect(audioDifference(us.pcm, scot.pcm)).toBeGreaterThan(300);
    expect(audioDifference(scot.pcm, f3.pcm)).toBeGreaterThan(300);
    expect(meanPitch(f3.pcm, 22050)).toBeGreaterThan(meanPitch(m3.pcm, 22050) * 1.3);
  });

  it('pitch +4 semitones is about 8 semitones above -4; rate changes duration', async () => {
    const up = await engine.synthesize(SENTENCE, voice('en-us', undefined, 4));
    const down = await engine.synthesize(SENTENCE, voice('en-us', undefined, -4));
    const ratio = meanPitch(up.pcm, 22050) / meanPitch(down.pcm, 22050);
    expect(ratio).toBeGreaterThan(1.4);
    expect(ratio).toBeLessThan(1.8);
    const fast = await engine.synthesize(SENTENCE, voice('en-us', undefined, 0, 1.25));
    const slow = await engine.synthesize(SENTENCE, voice('en-us', undefined, 0, 0.8));
    expect(slow.pcm.length / fast.pcm.length).toBeGreaterThan(1.3);
  });

  it('prosody does not leak from one call into the next', async () => {
    const a = await engine.synthesize(SENTENCE, voice('en-us'));
    const other = await engine.synthesize(SENTENCE, voice('en-us', 'f2', 4, 1.25));
    const b = await engine.synthesize(SENTENCE, voice('en-us'));
    expect(Buffer.from(b.pcm.buffer).equals(Buffer.from(a.pcm.buffer))).toBe(true);
    expect(other.pcm.length).toBeLessThan(a.pcm.length * 0.9);
  });

  // DESIGN §4.6: eSpeak seeds its noise from the clock and carries generator state between calls;
  // neither may reach the audio. Breathy variants (whisper, f3, croak) and klatt ones use the noise.
  it('is deterministic: the same call gives the same bytes, in this instance and in a fresh one', async () => {
    const cases: [string, string | undefined][] = [
      ['en-us', undefined], ['en-us', 'f3'], ['en-us', 'whisper'], ['en-us', 'croak'], ['en-gb-scotland', 'klatt'],
      ['en', 'klatt3'], ['en-us', 'm1'], ['en-us', 'Annie'], ['fr', 'grandma'],
    ];
    const other = createEspeakEngine();
    await new Promise((r) => setTimeout(r, 1100)); // a different second on the clock eSpeak seeds from
    for (const [v, variant] of cases) {
      const text = 'Press two for technical support.';
      const first = await engine.synthesize(text, voice(v, variant));
      await engine.synthesize('Something else in between.', voice('en-us', 'f5', 2, 1.1));
      const again = await engine.synthesize(text, voice(v, variant));
      const fresh = await other.synthesize(text, voice(v, variant));
      const bytes = (r: { pcm: Int16Array }) => Buffer.from(r.pcm.buffer, r.pcm.byteOffset, r.pcm.byteLength);
      expect(bytes(again).equals(bytes(first)), `${v}+${variant} again`).toBe(true);
      expect(bytes(fresh).equals(bytes(first)), `${v}+${variant} fresh instance`).toBe(true);
    }
  }, 60_000);

  it('speaks a text with markup and non-ASCII characters through its own string buffer', async () => {
    const a = await engine.synthesize('Zoë & <Chloé> ' + 'é'.repeat(1000), voice('fr'));
    const b = await engine.synthesize('Zoë & <Chloé> ' + 'é'.repeat(1000), voice('fr'));
    expect(rms(a.pcm)).toBeGreaterThan(200);
    expect(Buffer.from(b.pcm.buffer).equals(Buffer.from(a.pcm.buffer))).toBe(true);
  }, 60_000);

  // PocketSphinx's acoustic model does not understand eSpeak's formant voices at all (native espeak-ng
  // included: "the quick brown fox..." comes back as "we gotta stop so really"), so the intelligibility
  // round trip is done with Flite (flite.test.ts); here we only check eSpeak says the right amount.
  it('speaks every word: duration grows with the text', async () => {
    const one = await engine.synthesize('the quick brown fox', voice('en-us'));
    const two = await engine.synthesize('the quick brown fox jumps over the lazy dog', voice('en-us'));
    expect(two.pcm.length / one.pcm.length).toBeGreaterThan(1.6);
  });

  it('speaks markup characters instead of parsing them', async () => {
    const plain = await engine.synthesize('cats dogs', voice('en-us'));
    const withAmp = await engine.synthesize('cats & dogs', voice('en-us'));
    const withTag = await engine.synthesize('<b> cats dogs', voice('en-us'));
    expect(withAmp.pcm.length).toBeGreaterThan(plain.pcm.length * 1.1);
    expect(withTag.pcm.length).toBeGreaterThan(plain.pcm.length * 1.1);
  });

  it('rejects unknown voices and variants with a typed error', async () => {
    await expect(engine.synthesize('Hi.', voice('xx-nowhere'))).rejects.toMatchObject({ code: 'invalid_voice' });
    await expect(engine.synthesize('Hi.', voice('en-us', 'nosuchvariant'))).rejects.toMatchObject({ code: 'invalid_voice' });
    await expect(engine.synthesize('Hi.', voice('en-us', '../../lang/en'))).rejects.toMatchObject({ code: 'invalid_voice' });
    await expect(engine.synthesize('Hi.', voice('../en'))).rejects.toMatchObject({ code: 'invalid_voice' });
  });

  it('every catalogue language and variant loads and speaks', async () => {
    for (const lang of ESPEAK_LANGUAGES) {
      const { pcm } = await engine.synthesize('a b c 1 2', voice(lang.id));
      expect(rms(pcm), lang.id).toBeGreaterThan(200);
    }
    for (const v of ESPEAK_VARIANTS) {
      const { pcm } = await engine.synthesize('one', voice('en', v.name));
      expect(rms(pcm), v.name).toBeGreaterThan(200);
    }
  }, 120_000);

  it('maps semitones and rates to eSpeak parameters', () => {
    expect(espeakPitchParam(0)).toBe(50);
    expect(espeakPitchParam(-100)).toBe(0);
    expect(espeakPitchParam(100)).toBe(100);
    expect(espeakPitchParam(4)).toBeGreaterThan(70);
    expect(espeakPitchParam(4)).toBeLessThan(80);
    expect(espeakPitchParam(-4)).toBeGreaterThan(20);
    expect(espeakPitchParam(-4)).toBeLessThan(30);
    expect(espeakWordsPerMinute(1)).toBe(175);
    expect(espeakWordsPerMinute(1.25)).toBe(219);
    expect(espeakWordsPerMinute(0.1)).toBe(80);
    expect(espeakWordsPerMinute(Number.NaN)).toBe(175);
  });
});
