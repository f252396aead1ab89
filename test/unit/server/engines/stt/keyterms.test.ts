// Keyterm boosting (DESIGN §12.4): every adapter sends the terms in its vendor's own parameter, checked by
// the strict loopback fakes (which refuse any other shape), never sends one when no terms were asked
// for, and refuses terms its vendor documents as too long before calling it.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { decodeWavToPcm16, encodeWav } from '../../../../../src/server/audio/wav.js';
import { VENDOR_FACTORIES } from '../../../../../src/server/engines/stt/registry.js';
import { azureFastBase } from '../../../../../src/server/engines/stt/azure.js';
import { deepgramBoost } from '../../../../../src/server/engines/stt/deepgram.js';
import type { AdapterSettings } from '../../../../../src/server/engines/stt/settings.js';
import { SttError, type SttAudio } from '../../../../../src/server/engines/stt/types.js';
import { createLocalSphinxAdapter } from '../../../../../src/server/engines/stt/local-sphinx.js';
import { FAKE_TRANSCRIPT, startFakeVendor, VENDORS, type FakeVendor, type KeytermScript, type RecordedRequest, type Vendor } from '../../../../helpers/fake-stt-vendors.js';

const fixture = decodeWavToPcm16(readFileSync(new URL('../../../../../fixtures/speech-slt.wav', import.meta.url)));
const AUDIO: SttAudio = { pcm: fixture.pcm, sampleRate: fixture.sampleRate, durationSeconds: fixture.pcm.length / fixture.sampleRate, wav: encodeWav(fixture.pcm, fixture.sampleRate) };
const TERMS = ['Kubernetes', 'voxctl command line'];

const fakes: FakeVendor[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function bind(vendor: Vendor, extra: Partial<AdapterSettings> = {}, opts: Parameters<typeof startFakeVendor>[1] = {}) {
  const fake = await startFakeVendor(vendor, opts);
  fakes.push(fake);
  const adapter = VENDOR_FACTORIES[vendor]({ baseUrl: fake.url, model: null, language: 'en', pollIntervalMs: 10, apiKeyEnv: 'K', apiKey: () => fake.key, ...extra });
  return { fake, adapter };
}

const formOf = (req: RecordedRequest) => new Request('http://x/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: req.body }).formData();
const jsonOf = (req: RecordedRequest) => JSON.parse(req.body.toString()) as Record<string, unknown>;
const find = (fake: FakeVendor, path: string) => fake.requests.find((r) => r.method === 'POST' && r.path === path)!;

/** Where each vendor's request carries the terms, read back from the recorded request (the vendor's documented shape). */
const WIRE: Record<Vendor, (fake: FakeVendor) => Promise<unknown>> = {
  openai: async (f) => (await formOf(find(f, '/v1/audio/transcriptions'))).getAll('prompt'),
  deepgram: async (f) => find(f, '/v1/listen').query.getAll('keyterm'),
  assemblyai: async (f) => jsonOf(find(f, '/v2/transcript')).keyterms_prompt,
  google: async (f) => (jsonOf(find(f, '/v1/speech:recognize')).config as Record<string, unknown>).speechContexts,
  azure: async (f) => JSON.parse(String((await formOf(find(f, '/speechtotext/transcriptions:transcribe'))).get('definition'))),
  revai: async (f) => JSON.parse(String((await formOf(find(f, '/speechtotext/v1/jobs'))).get('options'))).custom_vocabularies,
  speechmatics: async (f) => JSON.parse(String((await formOf(find(f, '/v2/jobs'))).get('config'))).transcription_config.additional_vocab,
  elevenlabs: async (f) => (await formOf(find(f, '/v1/speech-to-text'))).getAll('keyterms'),
  gladia: async (f) => {
    const body = jsonOf(find(f, '/v2/pre-recorded'));
    return { custom_vocabulary: body.custom_vocabulary, custom_vocabulary_config: body.custom_vocabulary_config };
  },
};

const EXPECTED_WIRE: Record<Vendor, unknown> = {
  openai: ['Kubernetes, voxctl command line'],
  deepgram: TERMS,
  assemblyai: TERMS,
  google: [{ phrases: TERMS }],
  azure: { locales: ['en-US'], phraseList: { phrases: TERMS } },
  revai: [{ phrases: TERMS }],
  speechmatics: [{ content: 'Kubernetes' }, { content: 'voxctl command line' }],
  elevenlabs: TERMS,
  gladia: { custom_vocabulary: true, custom_vocabulary_config: { vocabulary: TERMS } },
};

describe.each(VENDORS)('%s keyterms', (vendor) => {
  test('sends the terms in the vendor parameter, accepted by the strict fake', async () => {
    const { fake, adapter } = await bind(vendor);
    expect(adapter.supportsKeyterms).toBe(true);
    const out = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(10_000), keyterms: TERMS });
    expect(fake.violations).toEqual([]);
    expect(out.transcript).toBe(FAKE_TRANSCRIPT);
    expect(await WIRE[vendor](fake)).toEqual(EXPECTED_WIRE[vendor]);
    expect(fake.keyterms.at(-1)).toEqual(TERMS);
  });

  test('sends no boosting parameter without terms', async () => {
    const { fake, adapter } = await bind(vendor);
    await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(10_000) });
    expect(fake.violations).toEqual([]);
    expect(fake.keyterms).toEqual([[]]);
    if (vendor === 'azure') expect(fake.requests[0]!.path).toBe('/speech/recognition/conversation/cognitiveservices/v1');
  });

  test('a fake that honours boosting hears the term only when it was sent', async () => {
    const script: KeytermScript = { term: 'Kubernetes', without: 'Deploy it on cooper netties today.', with: 'Deploy it on Kubernetes today.' };
    const { fake, adapter } = await bind(vendor, {}, { script });
    const plain = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(10_000) });
    const boosted = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(10_000), keyterms: TERMS });
    expect(fake.violations).toEqual([]);
    expect(plain.transcript).toBe(script.without);
    expect(boosted.transcript).toBe(script.with);
  });
});

describe('vendor specifics', () => {
  test('deepgram: Nova-3 models get keyterm, older models keywords (single words), both accepted', async () => {
    expect(deepgramBoost('nova-3-medical', TERMS)).toEqual([['keyterm', 'Kubernetes'], ['keyterm', 'voxctl command line']]);
    const { fake, adapter } = await bind('deepgram', { model: 'nova-2' });
    await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000), keyterms: TERMS });
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.query.getAll('keyterm')).toEqual([]);
    expect(fake.requests[0]!.query.getAll('keywords')).toEqual(['Kubernetes', 'voxctl', 'command', 'line']);
  });

  test('deepgram: an older model refuses more than 100 keyword words before calling', async () => {
    const { fake, adapter } = await bind('deepgram', { model: 'nova-2' });
    const terms = Array.from({ length: 51 }, (_, i) => `alpha${i} beta${i}`);
    const err = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000), keyterms: terms }).catch((e: unknown) => e);
    expect((err as SttError).code).toBe('upstream_error');
    expect((err as SttError).message).toMatch(/at most 100 keywords/);
    expect(fake.requests).toHaveLength(0);
  });

  test('openai: gpt-4o-transcribe-diarize takes no prompt, so it reports no keyterm support and sends none', async () => {
    const { fake, adapter } = await bind('openai', { model: 'gpt-4o-transcribe-diarize' });
    expect(adapter.supportsKeyterms).toBe(false);
    await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000), keyterms: TERMS });
    expect(fake.violations).toEqual([]);
    expect((await formOf(fake.requests[0]!)).has('prompt')).toBe(false);
  });

  test('local-sphinx has no boosting', () => {
    expect(createLocalSphinxAdapter().supportsKeyterms).toBe(false);
  });

  test('azure: fast transcription lives on the region api.cognitive host', () => {
    expect(azureFastBase('https://westeurope.stt.speech.microsoft.com')).toBe('https://westeurope.api.cognitive.microsoft.com');
    expect(azureFastBase('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000');
  });

  test.each([
    ['elevenlabs', 'x'.repeat(50), /at most 49 characters/],
    ['elevenlabs', 'one two three four five six', /at most 5 words/],
    ['elevenlabs', 'a {b}', /no any of/],
    ['assemblyai', 'one two three four five six seven', /at most 6 words/],
    ['revai', 'Wellbutrin 150mg', /no digits/],
    ['revai', 'x'.repeat(35), /words of at most 34 characters/],
    ['revai', '...', /at least one letter/],
  ] as const)('%s refuses "%s" before calling the vendor', async (vendor, term, message) => {
    const { fake, adapter } = await bind(vendor);
    const err = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000), keyterms: ['fine', term] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SttError);
    expect((err as SttError).code).toBe('upstream_error');
    expect((err as SttError).message).toMatch(message);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the fakes refuse a boosting parameter in the wrong shape', () => {
  const post = (url: string, init: RequestInit) => fetch(url, { method: 'POST', ...init });
  test('deepgram: keyterm on a pre-Nova-3 model, keywords on Nova-3, comma-joined keyterms', async () => {
    const fake = await startFakeVendor('deepgram');
    fakes.push(fake);
    const send = (q: string) => post(`${fake.url}/v1/listen?${q}`, { headers: { authorization: `Token ${fake.key}`, 'content-type': 'audio/wav' }, body: AUDIO.wav });
    expect((await send('model=nova-2&keyterm=Kubernetes')).status).toBe(400);
    expect((await send('model=nova-3&keywords=Kubernetes')).status).toBe(400);
    expect((await send('model=nova-3&keyterm=a,b')).status).toBe(400);
    expect((await send('model=nova-3&keyterm=Kubernetes&keyterm=voxctl%20cli')).status).toBe(200);
    expect(fake.violations).toHaveLength(3);
  });

  test('gladia: custom_vocabulary_config without custom_vocabulary: true', async () => {
    const fake = await startFakeVendor('gladia');
    fakes.push(fake);
    const res = await post(`${fake.url}/v2/pre-recorded`, {
      headers: { 'x-gladia-key': fake.key, 'content-type': 'application/json' },
      body: JSON.stringify({ audio_url: 'https://api.gladia.io/file/gl-file-1', custom_vocabulary_config: { vocabulary: ['x'] } }),
    });
    expect(res.status).toBe(400);
    expect(fake.violations[0]).toMatch(/custom_vocabulary: true/);
  });

  test('speechmatics: additional_vocab as bare strings', async () => {
    const fake = await startFakeVendor('speechmatics');
    fakes.push(fake);
    const form = new FormData();
    form.append('data_file', new Blob([AUDIO.wav]), 'a.wav');
    form.append('config', JSON.stringify({ type: 'transcription', transcription_config: { language: 'en', additional_vocab: ['Kubernetes'] } }));
    const res = await post(`${fake.url}/v2/jobs`, { headers: { authorization: `Bearer ${fake.key}` }, body: form });
    expect(res.status).toBe(400);
    expect(fake.violations[0]).toMatch(/additional_vocab entries must be objects/);
  });
});
