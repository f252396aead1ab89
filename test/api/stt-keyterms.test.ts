// POST /v1/stt/transcribe with `keyterms` (DESIGN §12.4, §12.5): the shared validation messages, the
// terms reaching each vendor's boosting parameter (loopback fakes, one honouring the boost), and a
// provider without boosting answering normally with `keyterms: "unsupported"`.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeVendor, type FakeVendor, type KeytermScript } from '../helpers/fake-stt-vendors.js';

const WAV = readFileSync(new URL('../../fixtures/speech-slt.wav', import.meta.url));
const SCRIPT: KeytermScript = { term: 'Kubernetes', without: 'Deploy it on cooper netties today.', with: 'Deploy it on Kubernetes today.' };

let s: TestServer;
let deepgram: FakeVendor;
let diarize: FakeVendor;
let gladia: FakeVendor;
let audioUrl: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
async function transcribe(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/v1/stt/transcribe`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ audio_url: audioUrl, ...body }),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  deepgram = await startFakeVendor('deepgram', { script: SCRIPT });
  diarize = await startFakeVendor('openai');
  gladia = await startFakeVendor('gladia', { pendingPolls: 0 });
  process.env.VOXCTL_KT_DG = deepgram.key;
  process.env.VOXCTL_KT_OA = diarize.key;
  process.env.VOXCTL_KT_GL = gladia.key;
  const providers = {
    'stt-b': { adapter: 'deepgram', base_url: deepgram.url, api_key_env: 'VOXCTL_KT_DG' },
    // OpenAI's diarizing model refuses `prompt`: a binding without boosting.
    'stt-c': { adapter: 'openai', model: 'gpt-4o-transcribe-diarize', base_url: diarize.url, api_key_env: 'VOXCTL_KT_OA' },
    'stt-d': { adapter: 'gladia', base_url: gladia.url, api_key_env: 'VOXCTL_KT_GL', poll_interval_ms: 10 },
  };
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-ktcfg-'));
  const configPath = join(dir, 'voxctl.config.json');
  writeFileSync(configPath, JSON.stringify({ stt: { providers } }));
  s = await startTestServer({ options: { configPath } });
  const form = new FormData();
  form.append('file', new Blob([WAV]), 'speech.wav');
  const up = await fetch(`${s.url}/v1/audio`, { method: 'POST', headers: { authorization: `Bearer ${s.key}` }, body: form });
  expect(up.status).toBe(201);
  audioUrl = ((await up.json()) as { audio_url: string }).audio_url;
});

afterAll(async () => {
  await s?.close();
  await Promise.all([deepgram, diarize, gladia].filter(Boolean).map((f) => f.close()));
});

describe('validation (the shared keyterm rule)', () => {
  test.each([
    [[], 'Keyterms must hold 1..100 terms'],
    [Array.from({ length: 101 }, (_, i) => `term ${i}`), 'Keyterms must hold 1..100 terms'],
    [['fine', '   '], 'Keyterm 1 must be 1..50 characters'],
    [['x'.repeat(51)], 'Keyterm 0 must be 1..50 characters'],
    [['ok', 'ok', '€'.repeat(51)], 'Keyterm 2 must be 1..50 characters'],
  ])('%j → 400 %s, no vendor called', async (keyterms, message) => {
    const before = deepgram.requests.length;
    const r = await transcribe({ providers: ['stt-b'], keyterms });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe(message);
    expect(deepgram.requests.length).toBe(before);
  });

  test('a term that is not a string → 400', async () => {
    const r = await transcribe({ providers: ['stt-b'], keyterms: [42] });
    expect(r.status).toBe(400);
  });

  test('50 characters after trimming are fine (code points, not UTF-16 units)', async () => {
    const r = await transcribe({ providers: ['stt-b'], keyterms: [`  ${'😀'.repeat(50)}  `] });
    expect(r.status).toBe(200);
    expect(deepgram.keyterms.at(-1)).toEqual(['😀'.repeat(50)]);
  });
});

describe('pass-through', () => {
  test('each provider gets the trimmed terms in its own parameter; one without boosting says unsupported', async () => {
    const r = await transcribe({ providers: ['stt-b', 'stt-c', 'stt-d'], keyterms: ['  Kubernetes ', 'Grafana'] });
    expect(r.status).toBe(200);
    expect(r.body.results['stt-b']).toMatchObject({ transcript: SCRIPT.with, keyterms: 'applied' });
    expect(deepgram.keyterms.at(-1)).toEqual(['Kubernetes', 'Grafana']);
    expect(r.body.results['stt-c']).toMatchObject({ keyterms: 'unsupported' });
    expect(r.body.results['stt-c'].transcript).toEqual(expect.any(String));
    expect(diarize.keyterms.at(-1)).toEqual([]);
    expect(r.body.results['stt-d']).toMatchObject({ keyterms: 'applied' });
    expect(gladia.keyterms.at(-1)).toEqual(['Kubernetes', 'Grafana']);
    for (const f of [deepgram, diarize, gladia]) expect(f.violations).toEqual([]);
  });

  test('without keyterms the results carry no keyterms field and nothing is boosted', async () => {
    const r = await transcribe({ providers: ['stt-b', 'stt-c'] });
    expect(r.status).toBe(200);
    expect(r.body.results['stt-b'].transcript).toBe(SCRIPT.without);
    expect(r.body.results['stt-b']).not.toHaveProperty('keyterms');
    expect(r.body.results['stt-c']).not.toHaveProperty('keyterms');
    expect(deepgram.keyterms.at(-1)).toEqual([]);
  });

  test('the OpenAPI document describes keyterms on the request and the result', async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, { post?: { requestBody?: unknown; responses?: unknown } }> };
    const op = JSON.stringify(doc.paths['/v1/stt/transcribe']?.post);
    expect(op).toContain('keyterms');
    expect(op).toContain('unsupported');
  });
});
