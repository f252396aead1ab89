// Speaker labels (DESIGN §16.3): Deepgram `diarize=true`, AssemblyAI `speaker_labels`, OpenAI
// gpt-4o-transcribe-diarize with `diarized_json`, checked against the strict loopback fakes; the words
// come back with speakers and times in seconds and score a call with DER and cpWER. Vendors whose adapter
// does not ask yet say so (`supportsDiarization` false) and answer without words.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { decodeWavToPcm16, encodeWav } from '../../../../../src/server/audio/wav.js';
import { VENDOR_FACTORIES } from '../../../../../src/server/engines/stt/registry.js';
import type { AdapterSettings } from '../../../../../src/server/engines/stt/settings.js';
import type { SttAudio } from '../../../../../src/server/engines/stt/types.js';
import { scoreCall } from '../../../../../src/shared/conversations/index.js';
import { wordsOf } from '../../../../../src/shared/normalize.js';
import { startFakeVendor, VENDORS, type FakeSpeakerWord, type FakeVendor, type RecordedRequest, type Vendor } from '../../../../helpers/fake-stt-vendors.js';

const fixture = decodeWavToPcm16(readFileSync(new URL('../../../../../fixtures/speech-slt.wav', import.meta.url)));
const AUDIO: SttAudio = { pcm: fixture.pcm, sampleRate: fixture.sampleRate, durationSeconds: fixture.pcm.length / fixture.sampleRate, wav: encodeWav(fixture.pcm, fixture.sampleRate) };
const DIARIZING: Vendor[] = ['deepgram', 'assemblyai', 'openai'];
const MODEL: Partial<Record<Vendor, string>> = { openai: 'gpt-4o-transcribe-diarize' };

const fakes: FakeVendor[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function bind(vendor: Vendor, extra: Partial<AdapterSettings> = {}) {
  const fake = await startFakeVendor(vendor);
  fakes.push(fake);
  const adapter = VENDOR_FACTORIES[vendor]({ baseUrl: fake.url, model: MODEL[vendor] ?? null, language: 'en', pollIntervalMs: 10, apiKeyEnv: 'K', apiKey: () => fake.key, ...extra });
  return { fake, adapter };
}

/** Two speakers taking turns: what the fakes hear. */
const CALL: FakeSpeakerWord[] = [
  { text: 'Thank', speaker: 0, start: 0.2, end: 0.5 },
  { text: 'you', speaker: 0, start: 0.55, end: 0.8 },
  { text: 'for', speaker: 0, start: 0.85, end: 1.0 },
  { text: 'calling.', speaker: 0, start: 1.05, end: 1.6 },
  { text: 'My', speaker: 1, start: 2.1, end: 2.3 },
  { text: 'card', speaker: 1, start: 2.35, end: 2.7 },
  { text: 'is', speaker: 1, start: 2.75, end: 2.9 },
  { text: 'lost.', speaker: 1, start: 2.95, end: 3.4 },
];
const REFERENCE = [
  { speaker: 'S1', start: 0.2, end: 1.6, text: 'Thank you for calling.' },
  { speaker: 'S2', start: 2.1, end: 3.4, text: 'My card is lost.' },
];
const formOf = (req: RecordedRequest) => new Request('http://x/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: req.body }).formData();
/** The vendor's diarization parameter as the recorded request carried it. */
const WIRE: Partial<Record<Vendor, (fake: FakeVendor) => Promise<unknown>>> = {
  deepgram: async (f) => f.requests.find((r) => r.path === '/v1/listen')!.query.get('diarize'),
  assemblyai: async (f) => JSON.parse(f.requests.find((r) => r.method === 'POST' && r.path === '/v2/transcript')!.body.toString()).speaker_labels,
  openai: async (f) => (await formOf(f.requests.find((r) => r.path === '/v1/audio/transcriptions')!)).get('response_format'),
};
const ASKED: Partial<Record<Vendor, unknown>> = { deepgram: 'true', assemblyai: true, openai: 'diarized_json' };

describe.each(DIARIZING)('%s asks for speaker labels as documented', (vendor) => {
  test('diarize: the parameter is sent, words come back with speakers and times in seconds, and score the call', async () => {
    const { fake, adapter } = await bind(vendor);
    fake.speakerWords = CALL;
    expect(adapter.supportsDiarization).toBe(true);
    const out = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000), diarize: true });
    expect(fake.violations).toEqual([]);
    expect(await WIRE[vendor]!(fake)).toEqual(ASKED[vendor]);
    const words = out.words!;
    expect(new Set(words.map((w) => w.speaker)).size).toBe(2);
    expect(words[0]!.start).toBeCloseTo(0.2, 3);
    expect(words.at(-1)!.end).toBeCloseTo(3.4, 3);
    const score = scoreCall(REFERENCE, { transcript: out.transcript, words, diarized: true }, (t) => wordsOf(t, true));
    expect(score).toMatchObject({ wer: 0, speakersFound: 2, cpwer: { errors: 0 }, der: { value: 0 } });
  });

  test('without diarize: no parameter, no words', async () => {
    const { fake, adapter } = await bind(vendor);
    const out = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000) });
    expect(fake.violations).toEqual([]);
    expect(await WIRE[vendor]!(fake)).not.toEqual(ASKED[vendor]);
    expect(out.words).toBeUndefined();
  });
});

test('the other adapters do not claim diarization and answer without words', async () => {
  for (const vendor of VENDORS.filter((v) => !DIARIZING.includes(v))) {
    const { fake, adapter } = await bind(vendor);
    expect(adapter.supportsDiarization, vendor).toBe(false);
    const out = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000), diarize: true });
    expect(fake.violations, vendor).toEqual([]);
    expect(out.words, vendor).toBeUndefined();
  }
  // OpenAI models other than gpt-4o-transcribe-diarize have no speaker labels.
  const { adapter } = await bind('openai', { model: 'whisper-1' });
  expect(adapter.supportsDiarization).toBe(false);
});
