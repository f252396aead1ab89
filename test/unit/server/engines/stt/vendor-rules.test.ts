// What each vendor accepts, as its official SDK declares it (issue 14): every adapter against its strict
// loopback fake, which answers 400 in the vendor's own shape — and records a violation — on any drift.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { decodeWavToPcm16, encodeWav } from '../../../../../src/server/audio/wav.js';
import { VENDOR_FACTORIES } from '../../../../../src/server/engines/stt/registry.js';
import { speechmaticsTranscript } from '../../../../../src/server/engines/stt/speechmatics.js';
import { vendorMessage } from '../../../../../src/server/engines/stt/http.js';
import type { AdapterSettings } from '../../../../../src/server/engines/stt/settings.js';
import { SttError, type SttAudio } from '../../../../../src/server/engines/stt/types.js';
import { FAKE_TRANSCRIPT, startFakeVendor, VENDORS, type FakeVendor, type Vendor } from '../../../../helpers/fake-stt-vendors.js';

const fixture = decodeWavToPcm16(readFileSync(new URL('../../../../../fixtures/speech-slt.wav', import.meta.url)));
const audioOf = (pcm: Int16Array, rate = fixture.sampleRate): SttAudio => ({ pcm, sampleRate: rate, durationSeconds: pcm.length / rate, wav: encodeWav(pcm, rate) });
const AUDIO = audioOf(fixture.pcm);
/** The fixture followed by silence: `seconds` long in all. */
const padded = (seconds: number) => {
  const pcm = new Int16Array(Math.round(seconds * fixture.sampleRate));
  pcm.set(fixture.pcm);
  return audioOf(pcm);
};

const fakes: FakeVendor[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function bind(vendor: Vendor, extra: Partial<AdapterSettings> = {}, opts: Parameters<typeof startFakeVendor>[1] = {}) {
  const fake = await startFakeVendor(vendor, opts);
  fakes.push(fake);
  const adapter = VENDOR_FACTORIES[vendor]({ baseUrl: fake.url, model: null, pollIntervalMs: 10, apiKeyEnv: 'K', apiKey: () => fake.key, ...extra });
  return { fake, adapter };
}

const transcribe = (adapter: { transcribe: (a: SttAudio, o: { signal: AbortSignal; language?: string }) => Promise<unknown> }, opts: { audio?: SttAudio; language?: string; ms?: number } = {}) =>
  adapter.transcribe(opts.audio ?? AUDIO, { signal: AbortSignal.timeout(opts.ms ?? 10_000), ...(opts.language ? { language: opts.language } : {}) });

async function failure(p: Promise<unknown>): Promise<SttError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SttError);
  return err as SttError;
}

async function formOf(fake: FakeVendor, index = 0): Promise<FormData> {
  const req = fake.requests[index]!;
  return new Request('http://x/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: req.body }).formData();
}

const jsonBody = (fake: FakeVendor, path: string) => JSON.parse(fake.requests.find((r) => r.path === path)!.body.toString()) as Record<string, unknown>;

describe('AssemblyAI language codes (TranscriptLanguageCode)', () => {
  test.each([
    ['en-GB', 'en_uk'],
    ['en_GB', 'en_uk'],
    ['en-US', 'en_us'],
    ['en-AU', 'en_au'],
    ['de-CH', 'de_ch'],
    ['fr-FR', 'fr'],
    ['pt-BR', 'pt'],
    ['en-IN', 'en'],
    ['jv', 'jw'],
  ])('%s → %s, accepted by the strict fake', async (tag, code) => {
    const { fake, adapter } = await bind('assemblyai');
    await transcribe(adapter, { language: tag });
    expect(fake.violations).toEqual([]);
    expect(jsonBody(fake, '/v2/transcript').language_code).toBe(code);
  });

  test('a language AssemblyAI does not list is unsupported_audio, before any upload', async () => {
    const { fake, adapter } = await bind('assemblyai');
    const err = await failure(transcribe(adapter, { language: 'tlh' }));
    expect(err.code).toBe('unsupported_audio');
    expect(err.message).toMatch(/AssemblyAI does not support the language "tlh"/);
    expect(fake.requests).toHaveLength(0);
  });

  test('no language → language_detection, no language_code', async () => {
    const { fake, adapter } = await bind('assemblyai');
    await transcribe(adapter);
    expect(jsonBody(fake, '/v2/transcript')).toMatchObject({ language_detection: true });
    expect(jsonBody(fake, '/v2/transcript')).not.toHaveProperty('language_code');
  });
});

describe('OpenAI per-model requests', () => {
  test.each([
    ['whisper-1', 'verbose_json', false, false],
    ['Systran/faster-whisper-small', 'verbose_json', false, false],
    ['gpt-4o-transcribe', 'json', true, false],
    ['gpt-4o-mini-transcribe', 'json', true, false],
    ['gpt-4o-mini-transcribe-2025-12-15', 'json', true, false],
    ['gpt-4o-transcribe-diarize', 'json', false, true],
  ])('%s: response_format %s, logprobs %s, chunking_strategy %s', async (model, format, logprobs, chunking) => {
    const { fake, adapter } = await bind('openai', { model });
    // Over 30 s: the diarize model needs chunking_strategy for such input.
    const out = (await transcribe(adapter, { audio: padded(31) })) as { transcript: string };
    expect(fake.violations).toEqual([]);
    expect(out.transcript).toBe(FAKE_TRANSCRIPT);
    const form = await formOf(fake);
    expect(form.get('response_format')).toBe(format);
    expect(form.getAll('include[]')).toEqual(logprobs ? ['logprobs'] : []);
    expect(form.get('chunking_strategy')).toBe(chunking ? 'auto' : null);
  });

  test('the diarize model has no token logprobs: confidence is null', async () => {
    const { adapter } = await bind('openai', { model: 'gpt-4o-transcribe-diarize' });
    expect(await transcribe(adapter)).toEqual({ transcript: FAKE_TRANSCRIPT, confidence: null });
  });
});

describe('Gladia pre-recorded request', () => {
  test('has no top-level model, even when settings carry one', async () => {
    const { fake, adapter } = await bind('gladia', { model: 'solaria-1' });
    expect(adapter.model).toBeNull();
    await transcribe(adapter, { language: 'fr-FR' });
    expect(fake.violations).toEqual([]);
    const body = jsonBody(fake, '/v2/pre-recorded');
    expect(body).not.toHaveProperty('model');
    expect(body.language_config).toEqual({ languages: ['fr'], code_switching: false });
  });
});

describe('Speechmatics', () => {
  test('the model goes in transcription_config.model, not the deprecated operating_point', async () => {
    const { fake, adapter } = await bind('speechmatics', { model: 'enhanced' });
    await transcribe(adapter);
    expect(fake.violations).toEqual([]);
    const config = JSON.parse(String((await formOf(fake)).get('config'))) as { transcription_config: Record<string, unknown> };
    expect(config.transcription_config).toEqual({ language: 'en', model: 'enhanced' });
  });

  const item = (content: string, type = 'word', attaches_to?: string) => ({ type, ...(attaches_to ? { attaches_to } : {}), alternatives: [{ content, confidence: 1 }] });
  test.each([
    ['both', [item('a'), item('well'), item('-', 'punctuation', 'both'), item('known'), item('fact'), item('.', 'punctuation', 'previous')], 'a well-known fact.'],
    ['previous', [item('yes'), item(',', 'punctuation', 'previous'), item('sir')], 'yes, sir'],
    ['next', [item('say'), item('"', 'punctuation', 'next'), item('hi')], 'say "hi'],
    ['none', [item('this'), item('&', 'punctuation', 'none'), item('that')], 'this & that'],
  ])('attaches_to %s', (_, results, text) => {
    expect(speechmaticsTranscript({ results })?.transcript).toBe(text);
  });
});

describe('Deepgram language detection', () => {
  test('no language → detect_language=true (otherwise Deepgram assumes English)', async () => {
    const { fake, adapter } = await bind('deepgram');
    await transcribe(adapter);
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.query.get('detect_language')).toBe('true');
    expect(fake.requests[0]!.query.has('language')).toBe(false);
  });

  test('a language → language, no detection', async () => {
    const { fake, adapter } = await bind('deepgram');
    await transcribe(adapter, { language: 'en-GB' });
    expect(fake.requests[0]!.query.get('language')).toBe('en-GB');
    expect(fake.requests[0]!.query.has('detect_language')).toBe(false);
  });
});

describe.each(['google', 'azure'] as const)('%s full locales', (vendor) => {
  const sent = (fake: FakeVendor) => (vendor === 'azure' ? fake.requests[0]!.query.get('language') : (JSON.parse(fake.requests[0]!.body.toString()) as { config: { languageCode: string } }).config.languageCode);

  test.each([
    ['en', 'en-US'],
    ['fr', 'fr-FR'],
    ['pt', 'pt-BR'],
    ['en-gb', 'en-GB'],
    ['en_AU', 'en-AU'],
    ['zh-hant-tw', 'zh-Hant-TW'],
  ])('%s → %s', async (tag, locale) => {
    const { fake, adapter } = await bind(vendor);
    await transcribe(adapter, { language: tag });
    expect(fake.violations).toEqual([]);
    expect(sent(fake)).toBe(locale);
  });

  test('no language → en-US', async () => {
    const { fake, adapter } = await bind(vendor);
    await transcribe(adapter);
    expect(sent(fake)).toBe('en-US');
  });

  test('a bare language without a default locale is refused without a call', async () => {
    const { fake, adapter } = await bind(vendor);
    const err = await failure(transcribe(adapter, { language: 'haw' }));
    expect(err.code).toBe('unsupported_audio');
    expect(err.message).toMatch(/full locale/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('ElevenLabs', () => {
  test('defaults to scribe_v2', async () => {
    const { fake, adapter } = await bind('elevenlabs');
    expect(adapter.model).toBe('scribe_v2');
    await transcribe(adapter);
    expect((await formOf(fake)).get('model_id')).toBe('scribe_v2');
  });
});

describe('per-vendor audio limits', () => {
  test('ElevenLabs refuses audio under 100 ms without a call; Deepgram takes it', async () => {
    const short = audioOf(fixture.pcm.subarray(0, Math.round(0.05 * fixture.sampleRate)));
    const eleven = await bind('elevenlabs');
    const err = await failure(transcribe(eleven.adapter, { audio: short }));
    expect(err.code).toBe('unsupported_audio');
    expect(err.message).toMatch(/at least 0.1 s/);
    expect(eleven.fake.requests).toHaveLength(0);
    const deepgram = await bind('deepgram');
    await transcribe(deepgram.adapter, { audio: short });
    expect(deepgram.fake.violations).toEqual([]);
  });

  test('over 25 MB: OpenAI refuses without a call; AssemblyAI and Gladia take it', async () => {
    // 27 MB of 16 kHz 16-bit mono is about 14 minutes.
    const big = audioOf(new Int16Array(Math.round(14 * 60 * 16000)).fill(0).map((_, i) => (i % 64) * 100), 16000);
    expect(big.wav.length).toBeGreaterThan(25 * 1024 * 1024);
    const openai = await bind('openai', { model: 'whisper-1' });
    const err = await failure(transcribe(openai.adapter, { audio: big }));
    expect(err.code).toBe('unsupported_audio');
    expect(err.message).toMatch(/up to 25.0 MB/);
    expect(openai.fake.requests).toHaveLength(0);
    for (const vendor of ['assemblyai', 'gladia'] as const) {
      const { fake, adapter } = await bind(vendor);
      await transcribe(adapter, { audio: big, ms: 30_000 });
      expect(fake.violations, vendor).toEqual([]);
    }
  });

  test('Google and Azure take one minute', async () => {
    for (const vendor of ['google', 'azure'] as const) {
      const { fake, adapter } = await bind(vendor);
      expect((await failure(transcribe(adapter, { audio: padded(61) }))).code).toBe('unsupported_audio');
      expect(fake.requests).toHaveLength(0);
    }
  });
});

describe('job budgets scale with the audio', () => {
  test.each(['assemblyai', 'revai', 'speechmatics', 'gladia'] as const)('%s: a job that never finishes ends at base + per-second × duration', async (vendor) => {
    const { adapter } = await bind(vendor, { timeoutMs: 100, timeoutPerAudioSecondMs: 20 }, { pendingPolls: 1_000_000 });
    const err = await failure(transcribe(adapter, { audio: padded(10) }));
    expect(err.code).toBe('timeout');
    // 100 ms + 20 ms × 10 s of audio.
    expect(err.message).toMatch(/did not finish within 0\.3 s \(the budget for 10\.0 s of audio\)/);
  });

  test('the budget holds a slow job that a fixed short timeout would cut', async () => {
    const { fake, adapter } = await bind('speechmatics', { timeoutMs: 50, timeoutPerAudioSecondMs: 1000 }, { pendingPolls: 3 });
    const out = (await transcribe(adapter)) as { transcript: string };
    expect(out.transcript).toBe(FAKE_TRANSCRIPT);
    expect(fake.requests.filter((r) => r.method === 'GET' && r.path === '/v2/jobs/sm-1')).toHaveLength(4);
  });
});

describe('the fakes refuse drift in the vendor error shape, and the adapters quote it', () => {
  // Drifts that the SDK types rule out and that an adapter can be configured into.
  test.each([
    ['openai', { model: 'gpt-4o-transcribe', language: 'eng' }, /language 'eng' is not ISO-639-1/],
    ['revai', { model: 'robot' }, /transcriber 'robot' is not one of machine, low_cost, fusion, human/],
    ['speechmatics', { model: 'ultra' }, /transcription_config.model 'ultra' is not one of standard, enhanced, melia-1/],
    ['elevenlabs', { model: 'scribe_v9' }, /model_id 'scribe_v9' is not one of scribe_v1, scribe_v2/],
  ] as const)('%s', async (vendor, settings, message) => {
    const { fake, adapter } = await bind(vendor, settings);
    const err = await failure(transcribe(adapter));
    expect(err.code).toBe('upstream_error');
    expect(err.message).toMatch(/HTTP 400/);
    expect(err.message).toMatch(message);
    expect(fake.violations).toHaveLength(1);
  });

  test('every 400 body has the vendor shape the adapters read the message from', async () => {
    for (const vendor of VENDORS) {
      const fake = await startFakeVendor(vendor);
      fakes.push(fake);
      // An empty JSON body at the flow's first path: no vendor accepts that.
      const path = { openai: '/v1/audio/transcriptions', deepgram: '/v1/listen', assemblyai: '/v2/upload', google: '/v1/speech:recognize', azure: '/speech/recognition/conversation/cognitiveservices/v1', revai: '/speechtotext/v1/jobs', speechmatics: '/v2/jobs', elevenlabs: '/v1/speech-to-text', gladia: '/v2/upload' }[vendor];
      const res = await fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status, vendor).toBe(400);
      const text = await res.text();
      expect(vendorMessage(text), vendor).toMatch(/^fake /);
    }
  });
});
