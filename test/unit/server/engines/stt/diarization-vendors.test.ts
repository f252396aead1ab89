// Speaker labels per vendor (DESIGN §16.3), the details diarization.test.ts does not cover: how each
// adapter reads its vendor's labelled words (labels, times, what is not a word), the limits the vendors
// document, and the loopback fakes refusing a wrong diarization parameter as the vendors do.
import { describe, expect, test } from 'vitest';
import { encodeWav } from '../../../../../src/server/audio/wav.js';
import { AZURE_MAX_SPEAKERS, azureSpeakerWords } from '../../../../../src/server/engines/stt/azure.js';
import { scribeSpeakerWords } from '../../../../../src/server/engines/stt/elevenlabs.js';
import { gladiaSpeakerWords } from '../../../../../src/server/engines/stt/gladia.js';
import { googleSeconds, googleSpeakerWords } from '../../../../../src/server/engines/stt/google.js';
import { revSpeakerWords } from '../../../../../src/server/engines/stt/revai.js';
import { speechmaticsSpeakerWords } from '../../../../../src/server/engines/stt/speechmatics.js';
import type { SttAudio } from '../../../../../src/server/engines/stt/types.js';
import { type FakeSpeakerWord, type FakeVendor, type RecordedRequest, type Vendor } from '../../../../helpers/fake-stt-vendors.js';
import { boundVendors } from '../../../../helpers/bound-vendors.js';

const { bind, fake: startFake } = boundVendors();

/** `seconds` of quiet 16 kHz audio (what the fakes hear does not depend on it). */
function audioOf(seconds: number): SttAudio {
  const pcm = new Int16Array(Math.round(seconds * 16000)).map((_, i) => Math.round(800 * Math.sin(i / 7)));
  return { pcm, sampleRate: 16000, durationSeconds: seconds, wav: encodeWav(pcm, 16000) };
}
const formOf = (req: RecordedRequest) => new Request('http://x/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: req.body }).formData();
const THREE: FakeSpeakerWord[] = [
  { text: 'Hello', speaker: 0, start: 0.1, end: 0.4 },
  { text: 'there.', speaker: 0, start: 0.45, end: 0.8 },
  { text: 'Hi.', speaker: 1, start: 1.3, end: 1.5 },
  { text: 'Welcome.', speaker: 2, start: 2.2, end: 2.6 },
];

describe('each vendor answer is read into speaker words', () => {
  test('Speechmatics: the alternative speaker, result times; UU is no speaker; punctuation is not a word', () => {
    const words = speechmaticsSpeakerWords({
      results: [
        { type: 'word', start_time: 0.1, end_time: 0.4, alternatives: [{ content: 'Hello', speaker: 'S1' }] },
        { type: 'punctuation', start_time: 0.4, end_time: 0.4, attaches_to: 'previous', alternatives: [{ content: ',', speaker: 'S1' }] },
        { type: 'word', start_time: 0.9, end_time: 1.2, alternatives: [{ content: 'hum', speaker: 'UU' }] },
        { type: 'word', start_time: 1.3, end_time: 1.5, alternatives: [{ content: 'Hi', speaker: 'S2' }] },
      ],
    });
    expect(words).toEqual([
      { text: 'Hello', start: 0.1, end: 0.4, speaker: 'S1' },
      { text: 'hum', start: 0.9, end: 1.2, speaker: null },
      { text: 'Hi', start: 1.3, end: 1.5, speaker: 'S2' },
    ]);
  });

  test('Rev.ai: the monologue speaker on each text element, ts/end_ts; punct elements are not words', () => {
    const words = revSpeakerWords({
      monologues: [
        { speaker: 0, elements: [{ type: 'text', value: 'Hello', ts: 0.1, end_ts: 0.4 }, { type: 'punct', value: ' ' }, { type: 'text', value: 'there', ts: 0.45, end_ts: 0.8 }, { type: 'punct', value: '.' }] },
        { speaker: 1, elements: [{ type: 'text', value: 'Hi', ts: 1.3, end_ts: 1.5 }] },
      ],
    });
    expect(words).toEqual([
      { text: 'Hello', start: 0.1, end: 0.4, speaker: '0' },
      { text: 'there', start: 0.45, end: 0.8, speaker: '0' },
      { text: 'Hi', start: 1.3, end: 1.5, speaker: '1' },
    ]);
  });

  test('Gladia: the utterance speaker on its words (leading spaces trimmed); an utterance without words is one segment', () => {
    const words = gladiaSpeakerWords([
      { speaker: 0, start: 0.1, end: 0.8, text: 'Hello there', words: [{ word: ' Hello', start: 0.1, end: 0.4 }, { word: ' there', start: 0.45, end: 0.8 }] },
      { speaker: 1, start: 1.3, end: 1.5, text: 'Hi.', words: [] },
    ]);
    expect(words).toEqual([
      { text: 'Hello', start: 0.1, end: 0.4, speaker: '0' },
      { text: 'there', start: 0.45, end: 0.8, speaker: '0' },
      { text: 'Hi.', start: 1.3, end: 1.5, speaker: '1' },
    ]);
  });

  test('ElevenLabs: the word entries with speaker_id; spacing and audio events are not words', () => {
    const words = scribeSpeakerWords({
      text: 'Hello (laughter) Hi',
      words: [
        { text: 'Hello', type: 'word', start: 0.1, end: 0.4, speaker_id: 'speaker_0' },
        { text: ' ', type: 'spacing', start: 0.4, end: 0.5, speaker_id: 'speaker_0' },
        { text: '(laughter)', type: 'audio_event', start: 0.5, end: 1.2, speaker_id: 'speaker_1' },
        { text: 'Hi', type: 'word', start: 1.3, end: 1.5, speaker_id: 'speaker_1' },
      ],
    });
    expect(words).toEqual([
      { text: 'Hello', start: 0.1, end: 0.4, speaker: 'speaker_0' },
      { text: 'Hi', start: 1.3, end: 1.5, speaker: 'speaker_1' },
    ]);
  });

  test('Google: durations as strings, the last result holds every word, speakerLabel before speakerTag, tag 0 is none', () => {
    expect([googleSeconds('1.500s'), googleSeconds('0s'), googleSeconds('12s'), googleSeconds(1.5), googleSeconds('1.5')]).toEqual([1.5, 0, 12, null, null]);
    const words = googleSpeakerWords({
      results: [
        { alternatives: [{ transcript: 'Hello there', words: [{ word: 'Hello', startTime: '0.100s', endTime: '0.400s' }] }] },
        { alternatives: [{ transcript: ' Hi', words: [{ word: 'Hi', startTime: '1.300s', endTime: '1.500s' }] }] },
        {
          alternatives: [
            {
              words: [
                { word: 'Hello', startTime: '0.100s', endTime: '0.400s', speakerTag: 1, speakerLabel: '1' },
                { word: 'there', startTime: '0.450s', endTime: '0.800s', speakerTag: 1 },
                { word: 'Hi', startTime: '1.300s', endTime: '1.500s', speakerTag: 0 },
              ],
            },
          ],
        },
      ],
    });
    expect(words).toEqual([
      { text: 'Hello', start: 0.1, end: 0.4, speaker: '1' },
      { text: 'there', start: 0.45, end: 0.8, speaker: '1' },
      { text: 'Hi', start: 1.3, end: 1.5, speaker: null },
    ]);
  });

  test('Azure: the phrase speaker on its words, offset/duration in ms; a phrase without words is one segment', () => {
    const words = azureSpeakerWords({
      phrases: [
        { speaker: 1, offsetMilliseconds: 100, durationMilliseconds: 700, text: 'Hello there', words: [{ text: 'Hello', offsetMilliseconds: 100, durationMilliseconds: 300 }, { text: 'there', offsetMilliseconds: 450, durationMilliseconds: 350 }] },
        { speaker: 2, offsetMilliseconds: 1300, durationMilliseconds: 200, text: 'Hi.' },
      ],
    });
    expect(words).toEqual([
      { text: 'Hello', start: 0.1, end: 0.4, speaker: '1' },
      { text: 'there', start: 0.45, end: 0.8, speaker: '1' },
      { text: 'Hi.', start: 1.3, end: 1.5, speaker: '2' },
    ]);
  });
});

describe('documented limits', () => {
  test('Azure: a diarized request goes to fast transcription with maxSpeakers within 2..35, keyterms in the same definition', async () => {
    expect(AZURE_MAX_SPEAKERS).toBeGreaterThan(1);
    expect(AZURE_MAX_SPEAKERS).toBeLessThan(36);
    const { fake, adapter } = await bind('azure');
    fake.speakerWords = THREE;
    const out = await adapter.transcribe(audioOf(3), { signal: AbortSignal.timeout(5000), diarize: true, keyterms: ['Contoso'] });
    expect(fake.violations).toEqual([]);
    expect(fake.requests.map((r) => r.path)).toEqual(['/speechtotext/transcriptions:transcribe']);
    const definition = JSON.parse(String((await formOf(fake.requests[0]!)).get('definition')));
    expect(definition).toEqual({ locales: ['en-US'], phraseList: { phrases: ['Contoso'] }, diarization: { enabled: true, maxSpeakers: AZURE_MAX_SPEAKERS } });
    expect(new Set(out.words!.map((w) => w.speaker))).toEqual(new Set(['1', '2', '3']));
  });

  test('Azure: a call longer than the short-audio minute is taken when diarized (fast transcription: < 2 h), refused otherwise', async () => {
    const { fake, adapter } = await bind('azure');
    const long = audioOf(75);
    const out = await adapter.transcribe(long, { signal: AbortSignal.timeout(10000), diarize: true });
    expect(fake.violations).toEqual([]);
    expect(out.words?.length).toBeGreaterThan(0);
    await expect(adapter.transcribe(long, { signal: AbortSignal.timeout(10000) })).rejects.toMatchObject({ code: 'unsupported_audio' });
  });

  test('Google: synchronous recognition stays within its minute even when diarized (no request leaves)', async () => {
    const { fake, adapter } = await bind('google');
    await expect(adapter.transcribe(audioOf(75), { signal: AbortSignal.timeout(10000), diarize: true })).rejects.toMatchObject({ code: 'unsupported_audio' });
    expect(fake.requests).toEqual([]);
    // Within it, the words come with times because the adapter asks for word time offsets too.
    fake.speakerWords = THREE;
    const out = await adapter.transcribe(audioOf(3), { signal: AbortSignal.timeout(5000), diarize: true });
    expect(fake.violations).toEqual([]);
    expect(JSON.parse(fake.requests[0]!.body.toString()).config).toMatchObject({ diarizationConfig: { enableSpeakerDiarization: true }, enableWordTimeOffsets: true });
    expect(out.words!.map((w) => [w.speaker, w.start, w.end])).toEqual(THREE.map((w) => [String(w.speaker + 1), w.start, w.end]));
  });
});

/** A request to each fake carrying a diarization parameter the vendor refuses. */
const WRONG: Record<Exclude<Vendor, 'openai' | 'deepgram' | 'assemblyai'>, (fake: FakeVendor) => Promise<Response>> = {
  speechmatics: async (f) => {
    const form = new FormData();
    form.append('data_file', new Blob([audioOf(1).wav]), 'a.wav');
    form.append('config', JSON.stringify({ type: 'transcription', transcription_config: { language: 'en', diarization: 'speakers' } }));
    return fetch(`${f.url}/v2/jobs`, { method: 'POST', headers: { authorization: `Bearer ${f.key}` }, body: form });
  },
  revai: async (f) => {
    const form = new FormData();
    form.append('media', new Blob([audioOf(1).wav]), 'a.wav');
    form.append('options', JSON.stringify({ skip_diarization: 'no' }));
    return fetch(`${f.url}/speechtotext/v1/jobs`, { method: 'POST', headers: { authorization: `Bearer ${f.key}` }, body: form });
  },
  gladia: async (f) =>
    fetch(`${f.url}/v2/pre-recorded`, {
      method: 'POST',
      headers: { 'x-gladia-key': f.key, 'content-type': 'application/json' },
      body: JSON.stringify({ audio_url: 'https://api.gladia.io/file/gl-file-1', diarization_config: { max_speakers: 4 } }),
    }),
  elevenlabs: async (f) => {
    const form = new FormData();
    form.append('file', new Blob([audioOf(1).wav]), 'a.wav');
    form.append('model_id', 'scribe_v2');
    form.append('diarize', 'yes');
    return fetch(`${f.url}/v1/speech-to-text`, { method: 'POST', headers: { 'xi-api-key': f.key }, body: form });
  },
  google: async (f) =>
    fetch(`${f.url}/v1/speech:recognize?key=${f.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ config: { encoding: 'LINEAR16', sampleRateHertz: 16000, languageCode: 'en-US', diarizationConfig: { enableSpeakerDiarization: true, speakerCount: 2 } }, audio: { content: audioOf(1).wav.toString('base64') } }),
    }),
  azure: async (f) => {
    const form = new FormData();
    form.append('audio', new Blob([audioOf(1).wav]), 'a.wav');
    form.append('definition', JSON.stringify({ locales: ['en-US'], diarization: { enabled: true, maxSpeakers: 36 } }));
    return fetch(`${f.url}/speechtotext/transcriptions:transcribe?api-version=2024-11-15`, { method: 'POST', headers: { 'ocp-apim-subscription-key': f.key }, body: form });
  },
};

test.each(Object.keys(WRONG) as (keyof typeof WRONG)[])('the %s fake refuses a diarization parameter its vendor refuses', async (vendor) => {
  const fake = await startFake(vendor);
  const res = await WRONG[vendor](fake);
  expect(res.status).toBe(400);
  expect(fake.violations.join(' ')).toMatch(/diariz|speaker/i);
});
