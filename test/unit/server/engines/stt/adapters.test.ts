// Contract tests of the nine vendor adapters against loopback fakes of each vendor's documented API,
// with the failure matrix: 401, 429, 500, malformed JSON, a hang past the timeout, and a failed job.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { decodeWavToPcm16, encodeWav } from '../../../../../src/server/audio/wav.js';
import type { AdapterSettings } from '../../../../../src/server/engines/stt/settings.js';
import { SttError, type SttAdapter, type SttAudio } from '../../../../../src/server/engines/stt/types.js';
import { createOpenAiAdapter } from '../../../../../src/server/engines/stt/openai.js';
import { createDeepgramAdapter } from '../../../../../src/server/engines/stt/deepgram.js';
import { VENDOR_FACTORIES } from '../../../../../src/server/engines/stt/registry.js';
import { FAKE_TRANSCRIPT, POLLING_VENDORS, startFakeVendor, VENDORS, type FakeVendor, type Vendor } from '../../../../helpers/fake-stt-vendors.js';

/** The confidence each fake's body implies, computed the way each adapter documents. */
const EXPECTED_CONFIDENCE: Record<Vendor, number | null> = {
  openai: (Math.exp(-0.2) + Math.exp(-0.4)) / 2, // verbose_json: mean exp(avg_logprob) of the segments
  deepgram: 0.98,
  assemblyai: 0.93,
  google: (0.9 + 0.8) / 2,
  azure: 0.95,
  revai: (5 * 1.0 + 4 * 0.8) / 9, // nine words alternating 1.0 / 0.8
  speechmatics: (5 * 1.0 + 4 * 0.9) / 9,
  elevenlabs: Math.exp(-0.05), // word logprobs only, spacing ignored
  gladia: (0.9 + 0.7) / 2,
};

const fixture = readFileSync(new URL('../../../../../fixtures/speech-slt.wav', import.meta.url));
const decoded = decodeWavToPcm16(fixture);
const AUDIO: SttAudio = { pcm: decoded.pcm, sampleRate: decoded.sampleRate, durationSeconds: decoded.pcm.length / decoded.sampleRate, wav: encodeWav(decoded.pcm, decoded.sampleRate) };

const fakes: FakeVendor[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function setup(vendor: Vendor, opts: Parameters<typeof startFakeVendor>[1] = {}, extra: Partial<AdapterSettings> = {}) {
  const fake = await startFakeVendor(vendor, opts);
  fakes.push(fake);
  const adapter = VENDOR_FACTORIES[vendor]({
    baseUrl: fake.url,
    model: null,
    language: 'en',
    pollIntervalMs: 10,
    apiKeyEnv: 'TEST_KEY_VAR',
    apiKey: () => fake.key,
    ...extra,
  });
  return { fake, adapter };
}

async function failureOf(p: Promise<unknown>): Promise<SttError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SttError);
  return err as SttError;
}

const run = (adapter: SttAdapter, ms = 5000) => adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(ms) });

describe.each(VENDORS)('%s adapter', (vendor) => {
  test('maps the transcript and confidence of a successful call', async () => {
    const { fake, adapter } = await setup(vendor);
    const out = await run(adapter);
    expect(fake.violations).toEqual([]);
    expect(out.transcript).toBe(FAKE_TRANSCRIPT);
    const expected = EXPECTED_CONFIDENCE[vendor];
    if (expected === null) expect(out.confidence).toBeNull();
    else expect(out.confidence).toBeCloseTo(expected, 6);
    if (POLLING_VENDORS.includes(vendor)) {
      // One "still processing" answer was given before the job was done: the adapter polled again.
      expect(fake.requests.length).toBeGreaterThanOrEqual(3);
    }
  });

  test('401 → upstream_error quoting the vendor message, without the key', async () => {
    const { fake, adapter } = await setup(vendor, { mode: '401' });
    const err = await failureOf(run(adapter));
    expect(err.code).toBe('upstream_error');
    expect(err.message).toMatch(/401/);
    expect(err.message).toMatch(/key|credential|denied|authori|token|permission/i);
    expect(err.message).not.toContain(fake.key);
  });

  test.each([
    ['429', 'rate_limited'],
    ['413', 'unsupported_audio'],
  ] as const)('%s → %s', async (mode, code) => {
    const { adapter } = await setup(vendor, { mode });
    expect((await failureOf(run(adapter))).code).toBe(code);
  });

  test('500 → upstream_error', async () => {
    const { adapter } = await setup(vendor, { mode: '500' });
    const err = await failureOf(run(adapter));
    expect(err.code).toBe('upstream_error');
    expect(err.message).toMatch(/500/);
  });

  test('malformed JSON → upstream_error', async () => {
    const { adapter } = await setup(vendor, { mode: 'malformed' });
    const err = await failureOf(run(adapter));
    expect(err.code).toBe('upstream_error');
    expect(err.message).toMatch(/malformed/i);
  });

  test('a hang past the timeout → timeout, promptly', async () => {
    const { adapter } = await setup(vendor, { mode: 'hang' });
    const started = Date.now();
    const err = await failureOf(run(adapter, 300));
    expect(err.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('a missing credential → provider_not_configured naming the variable', async () => {
    const { adapter } = await setup(vendor, {}, { apiKey: () => undefined });
    const err = await failureOf(run(adapter));
    expect(err.code).toBe('provider_not_configured');
    expect(err.message).toContain('TEST_KEY_VAR');
    expect(adapter.check()).toEqual({ ok: false, detail: 'TEST_KEY_VAR is not set' });
  });
});

describe.each(POLLING_VENDORS)('%s polling', (vendor) => {
  test('a job that ends in the error status → an error code with the vendor reason', async () => {
    const { fake, adapter } = await setup(vendor, { mode: 'job-error', pendingPolls: 2 });
    const err = await failureOf(run(adapter));
    expect(['upstream_error', 'unsupported_audio']).toContain(err.code);
    expect(err.message.length).toBeGreaterThan(5);
    expect(fake.violations).toEqual([]);
  });

  test('keeps polling while the job is pending, then succeeds', async () => {
    const { fake, adapter } = await setup(vendor, { pendingPolls: 4 });
    expect((await run(adapter)).transcript).toBe(FAKE_TRANSCRIPT);
    expect(fake.requests.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(5);
  });

  test('a job that never finishes → timeout', async () => {
    const { adapter } = await setup(vendor, { pendingPolls: 1_000_000 });
    expect((await failureOf(run(adapter, 300))).code).toBe('timeout');
  });
});

describe('vendor specifics', () => {
  test('openai: model, language and verbose_json for whisper-1; gpt-4o models ask for logprobs', async () => {
    const { fake, adapter } = await setup('openai', {}, { model: 'whisper-1', language: 'en-US' });
    await run(adapter);
    const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': String(fake.requests[0]!.headers['content-type']) }, body: fake.requests[0]!.body }).formData();
    expect(form.get('model')).toBe('whisper-1');
    expect(form.get('language')).toBe('en');
    expect(form.get('response_format')).toBe('verbose_json');

    const gpt = await setup('openai', {}, { model: 'gpt-4o-transcribe' });
    const out = await run(gpt.adapter);
    expect(out.confidence).toBeCloseTo(Math.exp(-0.1), 6); // exp(mean token logprob)
  });

  test('openai: a self-hosted whisper.cpp server on /inference needs no key', async () => {
    const fake = await startFakeVendor('openai', { key: '' });
    fakes.push(fake);
    const adapter = createOpenAiAdapter({ baseUrl: fake.url, model: 'ggml-base.en', path: '/inference', pollIntervalMs: 10, apiKey: () => undefined });
    expect(adapter.check()).toEqual({ ok: true });
    expect((await run(adapter)).transcript).toBe(FAKE_TRANSCRIPT);
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.path).toBe('/inference');
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  test('deepgram: sends model, language and smart_format as query parameters', async () => {
    const { fake, adapter } = await setup('deepgram', {}, { model: 'nova-2' });
    await run(adapter);
    const q = fake.requests[0]!.query;
    expect(q.get('model')).toBe('nova-2');
    expect(q.get('language')).toBe('en');
    expect(q.get('smart_format')).toBe('true');
  });

  test('google: refuses audio over one minute as unsupported_audio without calling', async () => {
    const { fake, adapter } = await setup('google');
    const long: SttAudio = { ...AUDIO, durationSeconds: 61 };
    expect((await failureOf(adapter.transcribe(long, { signal: AbortSignal.timeout(1000) }))).code).toBe('unsupported_audio');
    expect(fake.requests).toHaveLength(0);
  });

  test('google: an empty results list is an empty transcript (no speech)', async () => {
    const { googleTranscript } = await import('../../../../../src/server/engines/stt/google.js');
    expect(googleTranscript({})).toEqual({ transcript: '', confidence: null });
    expect(googleTranscript({ results: [{ alternatives: [{ transcript: 'hi', confidence: 0 }] }] })).toEqual({ transcript: 'hi', confidence: null });
  });

  test('azure: resamples to 16 kHz and maps a failed recognition', async () => {
    const { fake, adapter } = await setup('azure');
    const at8k: SttAudio = { ...AUDIO, pcm: AUDIO.pcm.filter((_, i) => i % 2 === 0), sampleRate: 8000 };
    at8k.wav = encodeWav(at8k.pcm, 8000);
    expect((await adapter.transcribe(at8k, { signal: AbortSignal.timeout(5000) })).transcript).toBe(FAKE_TRANSCRIPT);
    expect(fake.violations).toEqual([]);
    const failing = await setup('azure', { mode: 'job-error' });
    expect((await failureOf(run(failing.adapter))).code).toBe('upstream_error');
  });

  test('assemblyai: sends the language as language_code and the model in speech_models', async () => {
    const { fake, adapter } = await setup('assemblyai', {}, { model: 'universal-2', language: 'en-US' });
    await run(adapter);
    const create = JSON.parse(fake.requests[1]!.body.toString());
    expect(create).toMatchObject({ speech_models: ['universal-2'], language_code: 'en_us' });
  });

  test('gladia: polls its configured base, never the returned result_url', async () => {
    const { fake, adapter } = await setup('gladia');
    await run(adapter);
    expect(fake.requests.filter((r) => r.method === 'GET').every((r) => r.path === '/v2/pre-recorded/gl-1')).toBe(true);
  });

  test('an unreachable vendor → upstream_error', async () => {
    const adapter = createDeepgramAdapter({ baseUrl: 'http://127.0.0.1:1', model: null, pollIntervalMs: 10, apiKey: () => 'k' });
    const err = await failureOf(run(adapter));
    expect(err.code).toBe('upstream_error');
    expect(err.message).toMatch(/Could not reach Deepgram/);
  });
});
