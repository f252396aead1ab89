// Speaker labels (DESIGN §16.3): Deepgram `diarize=true`, AssemblyAI `speaker_labels`, OpenAI
// gpt-4o-transcribe-diarize with `diarized_json`, Speechmatics `diarization: "speaker"`, Rev.ai's monologues
// (`skip_diarization: false`), Gladia `diarization`, ElevenLabs `diarize`, Google `diarizationConfig`, Azure
// fast transcription `diarization`, checked against the strict loopback fakes; the words come back with
// speakers and times in seconds and score a call with DER and cpWER. An OpenAI model other than the diarize
// one says so (`supportsDiarization` false).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { decodeWavToPcm16, encodeWav } from '../../../../../src/server/audio/wav.js';
import type { SttAudio } from '../../../../../src/server/engines/stt/types.js';
import { scoreCall } from '../../../../../src/shared/conversations/index.js';
import { wordsOf } from '../../../../../src/shared/normalize.js';
import { VENDORS, type FakeSpeakerWord, type FakeVendor, type RecordedRequest, type Vendor } from '../../../../helpers/fake-stt-vendors.js';
import { boundVendors } from '../../../../helpers/bound-vendors.js';

const fixture = decodeWavToPcm16(readFileSync(new URL('../../../../../fixtures/speech-slt.wav', import.meta.url)));
const AUDIO: SttAudio = { pcm: fixture.pcm, sampleRate: fixture.sampleRate, durationSeconds: fixture.pcm.length / fixture.sampleRate, wav: encodeWav(fixture.pcm, fixture.sampleRate) };
const DIARIZING: Vendor[] = ['deepgram', 'assemblyai', 'openai', 'speechmatics', 'revai', 'gladia', 'elevenlabs', 'google', 'azure'];
const MODEL: Partial<Record<Vendor, string>> = { openai: 'gpt-4o-transcribe-diarize' };

const { bind } = boundVendors(MODEL);

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
  speechmatics: async (f) => JSON.parse(String((await formOf(f.requests.find((r) => r.method === 'POST' && r.path === '/v2/jobs')!)).get('config'))).transcription_config.diarization,
  revai: async (f) => JSON.parse(String((await formOf(f.requests.find((r) => r.method === 'POST' && r.path === '/speechtotext/v1/jobs')!)).get('options'))).skip_diarization,
  gladia: async (f) => JSON.parse(f.requests.find((r) => r.path === '/v2/pre-recorded' && r.method === 'POST')!.body.toString()).diarization,
  elevenlabs: async (f) => (await formOf(f.requests.find((r) => r.path === '/v1/speech-to-text')!)).get('diarize'),
  google: async (f) => JSON.parse(f.requests.find((r) => r.path === '/v1/speech:recognize')!.body.toString()).config.diarizationConfig,
  // Only fast transcription has speaker labels: without them the short-audio API is called, with no definition at all.
  azure: async (f) => {
    const fast = f.requests.find((r) => r.path === '/speechtotext/transcriptions:transcribe');
    return fast ? JSON.parse(String((await formOf(fast)).get('definition'))).diarization : undefined;
  },
};
const ASKED: Partial<Record<Vendor, unknown>> = {
  deepgram: 'true',
  assemblyai: true,
  openai: 'diarized_json',
  speechmatics: 'speaker',
  revai: false,
  gladia: true,
  elevenlabs: 'true',
  google: { enableSpeakerDiarization: true },
  azure: { enabled: true, maxSpeakers: 35 },
};

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

test('every hosted vendor asks for speaker labels; OpenAI only with gpt-4o-transcribe-diarize', async () => {
  expect(VENDORS.filter((v) => !DIARIZING.includes(v))).toEqual([]);
  // OpenAI models other than gpt-4o-transcribe-diarize have no speaker labels.
  const { fake, adapter } = await bind('openai', { model: 'whisper-1' });
  expect(adapter.supportsDiarization).toBe(false);
  const out = await adapter.transcribe(AUDIO, { signal: AbortSignal.timeout(5000), diarize: true });
  expect(fake.violations).toEqual([]);
  expect(out.words).toBeUndefined();
});
