import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { fetchAudio, fliteSpeaker, postMultipart, rms, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { decodeWavToPcm16, parseWav } from '../../src/server/audio/wav.js';
import { createUrlSigner } from '../../src/server/features/audio/audio-urls.js';
import { noiseAfter } from '../helpers/noise.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));

describe('/v1/audio', () => {
  let server: TestServer;
  let audioUrl: string;
  let audioId: string;
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
    const res = await call(server, 'POST', '/v1/tts/synthesize', {
      key: server.key,
      json: { speaker_id: await fliteSpeaker(server.runtime.db), text: 'Signed audio.' },
    });
    audioUrl = res.body.audio_url;
    audioId = /\/v1\/audio\/(aud_[^.]+)\.wav/.exec(audioUrl)![1]!;
  });
  afterAll(async () => server.close());

  const sign = (id: string, now = new Date()) => createUrlSigner(server.runtime.secret).audio({ base: server.url, audioId: id, now });

  it('serves a signed URL without a key, and refuses tampered (403), expired (410) and unknown (404) ones', async () => {
    const ok = await fetchAudio(audioUrl);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('audio/wav');

    const tamperedSig = audioUrl.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
    const tamperedExpiry = audioUrl.replace(/expires=(\d+)/, (_, e: string) => `expires=${Number(e) + 1}`);
    for (const url of [tamperedSig, tamperedExpiry, audioUrl.split('?')[0]!]) {
      const res = await call(server, 'GET', url.slice(server.url.length));
      expect(res.status).toBe(403);
      expect(res.body.detail).toBe('Invalid audio URL signature');
    }
    const expired = sign(audioId, new Date(Date.now() - 25 * 3600 * 1000));
    const exp = await call(server, 'GET', expired.slice(server.url.length));
    expect(exp.status).toBe(410);
    expect(exp.body.detail).toBe('Audio URL has expired');

    // Unknown ids are 404 whether signed or not; only known ones need their signature checked.
    for (const url of [sign('aud_doesnotexist000'), `${server.url}/v1/audio/aud_doesnotexist000.wav`, tamperedSig.replace(audioId, 'aud_doesnotexist000')]) {
      const unknown = await call(server, 'GET', url.slice(server.url.length));
      expect(unknown.status).toBe(404);
      expect(unknown.body.detail).toBe('Audio not found');
    }
  });

  it('cannot be used to reach files outside the audio folder', async () => {
    for (const path of ['/v1/audio/..%2Fvoxctl.db.wav', '/v1/audio/..%2F..%2Fsecret.wav', '/v1/audio/aud_%2e%2e%2fsecret.wav', '/v1/audio/voxctl.db']) {
      const res = await call(server, 'GET', path);
      expect([403, 404]).toContain(res.status);
      expect(res.headers.get('content-type')).toMatch(/json/);
    }
  });

  it('synthesises a speaker sample on first request, once, and caches it', async () => {
    const speaker = await fliteSpeaker(server.runtime.db, 'rms');
    const url = sign(`smp_${speaker}`);
    const real = server.runtime.tts!;
    let calls = 0;
    server.runtime.tts = { ...real, synthesize: (text, voice) => (calls++, real.synthesize(text, voice)), status: () => real.status(), close: () => real.close() };
    let a, b, c;
    try {
      [a, b, c] = await Promise.all([fetchAudio(url), fetchAudio(url), fetchAudio(url)]);
      await fetchAudio(url);
    } finally {
      server.runtime.tts = real;
    }
    expect(calls).toBe(1);
    for (const r of [a, b, c]) expect(r!.status).toBe(200);
    expect(a!.bytes.equals(b!.bytes) && a!.bytes.equals(c!.bytes)).toBe(true);
    expect(rms(decodeWavToPcm16(a!.bytes).pcm)).toBeGreaterThan(100);
    const rows = await server.runtime.db.all(`SELECT kind FROM audio WHERE id = ?`, [`smp_${speaker}`]);
    expect(rows).toEqual([{ kind: 'sample' }]);
    const again = await fetchAudio(url);
    expect(again.bytes.equals(a!.bytes)).toBe(true);
    const missing = await call(server, 'GET', sign('smp_spk_nobody_here').slice(server.url.length));
    expect(missing.status).toBe(404);
    // A sample is never synthesised behind a bad signature.
    const other = await fliteSpeaker(server.runtime.db, 'kal16');
    const bad = await call(server, 'GET', `/v1/audio/smp_${other}.wav?expires=9999999999&sig=forged`);
    expect(bad.status).toBe(403);
    expect(await server.runtime.db.value('SELECT COUNT(*) FROM audio WHERE id = ?', [`smp_${other}`])).toBe(0);
  });

  it('serves the signed sample_audio_url of a speaker', async () => {
    const speaker = await fliteSpeaker(server.runtime.db, 'awb');
    const res = await call(server, 'GET', `/v1/speakers/${speaker}`, { key: server.key });
    expect(res.status).toBe(200);
    const audio = await fetchAudio(res.body.sample_audio_url);
    expect(audio.status).toBe(200);
    expect(parseWav(audio.bytes).frames).toBeGreaterThan(1000);
  });

  it('stores uploads sniffed from their bytes: WAV, MP3, M4A', async () => {
    const cases: [string, string, string][] = [
      ['speech-slt.wav', 'audio/wav', 'upload.mp3'],
      ['speech-slt.mp3', 'audio/mpeg', 'upload.wav'],
      ['speech-slt.m4a', 'audio/mp4', 'upload.txt'],
    ];
    for (const [file, type, name] of cases) {
      const bytes = fixture(file);
      const res = await postMultipart(server, '/v1/audio', { file: { bytes, name } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.audio_id).toMatch(/^aud_/);
      expect(res.body.duration_seconds).toBeGreaterThan(1);
      const back = await fetchAudio(res.body.audio_url);
      expect(back.status).toBe(200);
      expect(back.headers.get('content-type')).toBe(type);
      expect(back.bytes.equals(bytes)).toBe(true);
    }
    const wav = parseWav(fixture('speech-slt.wav'));
    const res = await postMultipart(server, '/v1/audio', { file: { bytes: fixture('speech-slt.wav') } });
    expect(res.body.duration_seconds).toBe(Math.round(wav.durationSeconds * 1000) / 1000);
  });

  it('refuses other content (400), oversized files (413), a missing file part (400) and no key (401)', async () => {
    const text = await postMultipart(server, '/v1/audio', { file: { bytes: 'just some text, not audio', name: 'fake.wav', type: 'audio/wav' } });
    expect(text.status).toBe(400);
    expect(text.body.detail).toBe('Unsupported audio format');
    const truncated = await postMultipart(server, '/v1/audio', { file: { bytes: fixture('speech-slt.wav').subarray(0, 30) } });
    expect(truncated.status).toBe(400);
    const big = Buffer.alloc(25 * 1024 * 1024 + 10, 0);
    fixture('speech-slt.wav').copy(big);
    const tooBig = await postMultipart(server, '/v1/audio', { file: { bytes: big } });
    expect(tooBig.status).toBe(413);
    const none = await postMultipart(server, '/v1/audio', { fields: { other: 'x' } });
    expect(none.status).toBe(400);
    const json = await call(server, 'POST', '/v1/audio', { key: server.key, json: {} });
    expect(json.status).toBe(415);
    // Noise behind an MPEG sync word is refused because it does not decode (not merely sniffed), and stored nothing.
    const stored = async () => (await server.runtime.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM audio WHERE kind = 'upload'"))!;
    const before = (await stored()).n;
    for (let seed = 0; seed < 8; seed++) {
      const noise = await postMultipart(server, '/v1/audio', { file: { bytes: noiseAfter([0xff, 0xfe], 4096, seed), name: 'noise.mp3' } });
      expect([seed, noise.status, noise.body.detail]).toEqual([seed, 400, 'Unsupported audio format']);
    }
    expect((await stored()).n).toBe(before);
    expect((await postMultipart(server, '/v1/audio', { file: { bytes: fixture('speech-slt.wav') } }, 'vox_bad')).status).toBe(401);
    const health = await call(server, 'GET', '/health');
    expect(health.status).toBe(200);
  });
});

// Audio retention (`--audio-retention-days`, issue 31 item 6): generated and single uploaded audio older
// than the retention is deleted from the store, and every way to it answers 410 with why.
describe('/v1/audio under an audio retention of one day', () => {
  let server: TestServer;
  let offset = 0;
  const clock = { now: () => new Date(Date.now() + offset) };
  beforeAll(async () => {
    server = await startTestServer({ options: { audioRetentionDays: 1 }, clock });
    await promoteToEnterprise(server);
  });
  afterAll(async () => server.close());

  it('keeps audio a day, then deletes its file and answers 410 for it — by URL, and as a transcription source', async () => {
    const synthesized = await call(server, 'POST', '/v1/tts/synthesize', { key: server.key, json: { speaker_id: await fliteSpeaker(server.runtime.db), text: 'Kept for a day.' } });
    const uploaded = await postMultipart(server, '/v1/audio', { file: { bytes: fixture('speech-slt.wav') } });
    expect(uploaded.status).toBe(201);
    const ids = [/\/v1\/audio\/(aud_[^.]+)\.wav/.exec(synthesized.body.audio_url as string)![1]!, uploaded.body.audio_id as string];
    const sign = (id: string) => createUrlSigner(server.runtime.secret).audio({ base: server.url, audioId: id, now: clock.now() });
    const files = async () => Promise.all(ids.map(async (id) => server.runtime.blobs.size(`${id}.wav`)));

    // Within the day the sweep keeps everything.
    expect(await server.runtime.audioRetention!.sweep()).toBe(0);
    for (const id of ids) expect((await fetchAudio(sign(id))).status).toBe(200);

    offset = 25 * 3600 * 1000;
    expect(await server.runtime.audioRetention!.sweep()).toBe(2);
    expect(await files()).toEqual([undefined, undefined]);
    for (const id of ids) {
      const gone = await call(server, 'GET', sign(id).slice(server.url.length));
      expect(gone.status).toBe(410);
      expect(gone.body.detail).toBe('Audio expired: this service keeps audio for 1 day');
    }
    const transcribed = await call(server, 'POST', '/v1/stt/transcribe', { key: server.key, json: { audio_url: sign(ids[1]!), providers: ['local-sphinx'] } });
    expect(transcribed.status).toBe(410);
    expect(transcribed.body.detail).toBe('Audio expired: this service keeps audio for 1 day');
    // The rows stay (usage and history keep their durations), marked.
    expect(await server.runtime.db.value(`SELECT COUNT(*) FROM audio WHERE expired_at IS NOT NULL AND id IN (?, ?)`, ids)).toBe(2);
  });
});
