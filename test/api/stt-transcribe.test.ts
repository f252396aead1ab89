// POST /v1/stt/transcribe and GET /v1/stt/providers over real loopback HTTP (DESIGN §4.11): provider
// validation, storage reads of our own URLs, the SSRF table, fan-out concurrency and failure isolation.
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { calculateAccuracy } from '../../src/shared/accuracy.js';
import { SPEC_PROVIDERS } from '../../src/shared/schemas/stt.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FAKE_TRANSCRIPT, startFakeVendor, VENDORS, type FakeVendor } from '../helpers/fake-stt-vendors.js';

const SENTENCE = 'Please call me back after the meeting tomorrow morning.';
const WAV = readFileSync(new URL('../../fixtures/speech-slt.wav', import.meta.url));
const PUBLIC_IP = '93.184.216.34';

/** A tiny "internet" server: serves the fixture, redirects, and counts hits. */
async function startOrigin(): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/not-audio.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('hello, not audio at all');
    if (req.url === '/speech.wav') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(WAV);
    if (req.url?.startsWith('/redirect-to-loopback')) return res.writeHead(302, { location: `http://127.0.0.1:${port}/speech.wav` }).end();
    if (req.url?.startsWith('/redirect-chain/')) {
      const n = Number(req.url.split('/')[2]);
      return res.writeHead(302, { location: n > 0 ? `/redirect-chain/${n - 1}` : '/speech.wav' }).end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { server, port, hits };
}

let s: TestServer;
let origin: Awaited<ReturnType<typeof startOrigin>>;
const fakes: FakeVendor[] = [];
/** The spec token bound to `vendor` (tokens are bound to VENDORS in order). */
const tokenOf = (vendor: (typeof VENDORS)[number]) => SPEC_PROVIDERS[VENDORS.indexOf(vendor)]!;
const auth = () => ({ authorization: `Bearer ${s.key}`, 'content-type': 'application/json' });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
async function transcribe(body: unknown): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}/v1/stt/transcribe`, { method: 'POST', headers: auth(), body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), ms: performance.now() - t0 };
}

async function upload(bytes: Buffer, name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${s.url}/v1/audio`, { method: 'POST', headers: { authorization: `Bearer ${s.key}` }, body: form });
  expect(res.status).toBe(201);
  return ((await res.json()) as { audio_url: string }).audio_url;
}

beforeAll(async () => {
  origin = await startOrigin();
  // Nine fakes, one per vendor, each taking 300 ms; bound to the nine spec tokens in order.
  for (const v of VENDORS) fakes.push(await startFakeVendor(v, { delayMs: 300, pendingPolls: 0 }));
  const providers: Record<string, unknown> = {};
  SPEC_PROVIDERS.forEach((token, i) => {
    const fake = fakes[i]!;
    process.env[`VOXCTL_TEST_${fake.vendor.toUpperCase()}_KEY`] = fake.key;
    providers[token] = { adapter: fake.vendor, base_url: fake.url, api_key_env: `VOXCTL_TEST_${fake.vendor.toUpperCase()}_KEY`, poll_interval_ms: 10, timeout_ms: 5000 };
  });
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-sttcfg-'));
  const configPath = join(dir, 'voxctl.config.json');
  writeFileSync(configPath, JSON.stringify({ stt: { providers } }));
  s = await startTestServer({ options: { configPath } });
  s.runtime.audioFetch = {
    resolve: async (host) => {
      const table: Record<string, string[]> = {
        'public.example.test': [PUBLIC_IP],
        'loopback.example.test': ['127.0.0.1'],
        'rebind.example.test': [PUBLIC_IP, '10.0.0.1'],
        'metadata.example.test': ['169.254.169.254'],
        localhost: ['127.0.0.1', '::1'],
      };
      const hit = table[host];
      if (!hit) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      return hit.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    // Only the public test address is "routed" — to the local origin server.
    connectTarget: (address, port) => (address === PUBLIC_IP ? { host: '127.0.0.1', port: origin.port } : { host: address, port }),
  };
});

afterAll(async () => {
  await s?.close();
  await Promise.all(fakes.map((f) => f.close()));
  await new Promise<void>((r) => origin.server.close(() => r()));
});

describe('request validation', () => {
  test('needs a Bearer key', async () => {
    const res = await fetch(`${s.url}/v1/stt/transcribe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toBe('Invalid or expired API key');
  });

  test('unknown provider → 400 Unknown provider: {name}', async () => {
    const r = await transcribe({ audio_url: 'http://public.example.test/speech.wav', providers: ['local-sphinx', 'whisper-9000'] });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Unknown provider: whisper-9000');
  });

  test('duplicate provider → 400', async () => {
    const r = await transcribe({ audio_url: 'http://public.example.test/speech.wav', providers: ['stt-b', 'stt-b'] });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Duplicate provider: stt-b');
  });

  test('no providers, more than nine, wrong types → 400', async () => {
    for (const providers of [[], [...SPEC_PROVIDERS, 'local-sphinx'], 'stt-b', [1]]) {
      const r = await transcribe({ audio_url: 'http://public.example.test/speech.wav', providers });
      expect(r.status).toBe(400);
    }
    expect((await transcribe({ providers: ['stt-b'] })).status).toBe(400);
  });

  test('audio that is not WAV/MP3/M4A → 400', async () => {
    const r = await transcribe({ audio_url: 'http://public.example.test/not-audio.txt', providers: ['stt-b'] });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Unsupported audio format: expected WAV, MP3 or M4A');
    expect((await transcribe({ audio_url: 'not a url', providers: ['stt-b'] })).status).toBe(400);
  });
});

describe('SSRF: URLs that resolve to non-public addresses are refused with 400', () => {
  const refused = [
    'http://127.0.0.1/a.wav',
    'http://localhost/a.wav',
    'http://[::1]/a.wav',
    'http://10.0.0.5/a.wav',
    'http://172.16.3.4/a.wav',
    'http://172.31.255.254/a.wav',
    'http://192.168.1.10/a.wav',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/a.wav',
    'http://100.100.100.200/latest/meta-data/',
    'http://0.0.0.0/a.wav',
    'http://[::ffff:127.0.0.1]/a.wav',
    'http://[::ffff:a9fe:a9fe]/a.wav',
    'http://2130706433/a.wav',
    'http://0x7f000001/a.wav',
    'http://0177.0.0.1/a.wav',
    'http://127.1/a.wav',
    'http://[fe80::1]/a.wav',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://[64:ff9b::7f00:1]/a.wav',
    'http://224.0.0.1/a.wav',
    'http://255.255.255.255/a.wav',
    'http://[::]/a.wav',
    'https://loopback.example.test/a.wav',
    'http://metadata.example.test/computeMetadata/v1/',
    'http://rebind.example.test/a.wav',
    'http://public.example.test/redirect-to-loopback',
    'ftp://public.example.test/speech.wav',
    'file:///etc/passwd',
  ];
  test.each(refused)('%s', async (url) => {
    const hitsBefore = origin.hits.length;
    const r = await transcribe({ audio_url: url, providers: ['stt-b'] });
    expect(r.status).toBe(400);
    expect(r.body.status_code).toBe(400);
    expect(typeof r.body.detail).toBe('string');
    // Nothing reached past the check (the redirect case reached the public hop only).
    expect(origin.hits.length - hitsBefore).toBeLessThanOrEqual(url.includes('redirect') ? 1 : 0);
  });

  test('the refusal says why', async () => {
    const r = await transcribe({ audio_url: 'http://169.254.169.254/latest/meta-data/', providers: ['stt-b'] });
    expect(r.body.detail).toMatch(/link-local|metadata/);
    expect(r.body.detail).toMatch(/--allow-private-audio-urls/);
  });

  test('a public URL (served by the test hook) is fetched, through at most 3 redirects', async () => {
    const r = await transcribe({ audio_url: 'http://public.example.test/speech.wav', providers: ['stt-b'] });
    expect(r.status).toBe(200);
    expect(r.body.results['stt-b'].transcript).toBe(FAKE_TRANSCRIPT);
    expect((await transcribe({ audio_url: 'http://public.example.test/redirect-chain/2', providers: ['stt-b'] })).status).toBe(200);
    const tooMany = await transcribe({ audio_url: 'http://public.example.test/redirect-chain/3', providers: ['stt-b'] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.detail).toMatch(/redirected more than 3 times/);
  });

  test('an origin 404 → 400 naming the status', async () => {
    const r = await transcribe({ audio_url: 'http://public.example.test/missing.wav', providers: ['stt-b'] });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Could not fetch audio_url: HTTP 404');
  });
});

describe('own audio URLs', () => {
  test('are read from storage (any host), and local-sphinx transcribes the fixture with WER < 0.25', async () => {
    const url = await upload(WAV, 'speech.wav');
    // A host nobody can reach: only a storage read can succeed.
    const elsewhere = url.replace(/^http:\/\/[^/]+/, 'https://voxctl.invalid');
    const r = await transcribe({ audio_url: elsewhere, providers: ['local-sphinx'] });
    expect(r.status).toBe(200);
    const res = r.body.results['local-sphinx'];
    expect(res.error).toBeUndefined();
    expect(calculateAccuracy(SENTENCE, res.transcript).wer).toBeLessThan(0.25);
    expect(res.confidence).toBeGreaterThan(0);
    expect(res.confidence).toBeLessThanOrEqual(1);
    expect(res.latency_ms).toBeGreaterThan(0);
  });

  test('a tampered signature is not ours: it is treated as a loopback URL and refused', async () => {
    const url = await upload(WAV, 'speech.wav');
    // Change the signature's first character to another one (replacing it with a fixed 'A' left it intact 1 time in 64).
    const r = await transcribe({ audio_url: url.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`), providers: ['stt-b'] });
    expect(r.status).toBe(400);
  });
});

describe('fan-out', () => {
  test('nine providers whose fakes each take 300 ms answer concurrently, keyed in request order', async () => {
    const url = await upload(WAV, 'speech.wav');
    const order = [...SPEC_PROVIDERS].reverse();
    await transcribe({ audio_url: url, providers: order }); // warm up connections
    // Best of three: run sequentially these would take >= 9 × 300 ms; the machine may be busy with others.
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await transcribe({ audio_url: url, providers: order }));
    const r = runs.reduce((a, b) => (a.ms <= b.ms ? a : b));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.results)).toEqual(order);
    for (const token of order) {
      const res = r.body.results[token];
      expect(res, token).toMatchObject({ transcript: FAKE_TRANSCRIPT });
      expect(res.error, token).toBeUndefined();
      expect(res.latency_ms, token).toBeGreaterThanOrEqual(290);
      expect(res.confidence, token).toBeGreaterThan(0);
    }
    // One after the other, the request would take at least the sum of the providers' latencies; at once,
    // about the largest. A third of the sum (~900 ms here) leaves a loaded machine room on both sides.
    const sum = order.reduce((n, token) => n + (r.body.results[token].latency_ms as number), 0);
    expect(r.ms, `${r.ms.toFixed(0)} ms for providers whose latencies sum to ${sum} ms`).toBeLessThan(sum / 3);
  });

  test.each(['en-GB', 'fr', undefined])('language %s: all nine strict fakes accept what the adapters send', async (language) => {
    const url = await upload(WAV, 'speech.wav');
    for (const f of fakes) f.violations.length = 0;
    const r = await transcribe({ audio_url: url, providers: [...SPEC_PROVIDERS], ...(language ? { language } : {}) });
    expect(r.status).toBe(200);
    for (const token of SPEC_PROVIDERS) expect(r.body.results[token], token).toMatchObject({ transcript: FAKE_TRANSCRIPT });
    expect(fakes.flatMap((f) => f.violations.map((v) => `${f.vendor}: ${v}`))).toEqual([]);
  });

  test('one provider failing never fails the request', async () => {
    const url = await upload(WAV, 'speech.wav');
    const deepgram = fakes[VENDORS.indexOf('deepgram')]!;
    const gladia = fakes[VENDORS.indexOf('gladia')]!;
    deepgram.mode = '429';
    deepgram.requests.length = 0;
    gladia.mode = 'hang';
    gladia.requests.length = 0;
    try {
      const [dg, oa, gl] = [tokenOf('deepgram'), tokenOf('openai'), tokenOf('gladia')];
      const r = await transcribe({ audio_url: url, providers: [dg, oa, gl] });
      expect(r.status).toBe(200);
      expect(r.body.results[dg]).toMatchObject({ transcript: null, confidence: null, error: { code: 'rate_limited' } });
      expect(r.body.results[oa]).toMatchObject({ transcript: FAKE_TRANSCRIPT });
      // Gladia hangs: its own 5 s timeout from the config ends it.
      expect(r.body.results[gl]).toMatchObject({ transcript: null, error: { code: 'timeout' } });
      expect(r.body.results[gl].latency_ms).toBeGreaterThanOrEqual(4900);
    } finally {
      deepgram.mode = 'ok';
      gladia.mode = 'ok';
    }
  });
});

describe('GET /v1/stt/providers', () => {
  test('lists every provider with adapter, model and state, and no secret', async () => {
    const res = await fetch(`${s.url}/v1/stt/providers`, { headers: { authorization: `Bearer ${s.key}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as { items: { id: string; adapter: string; model: string | null; state: string }[] };
    expect(body.items.map((i) => i.id)).toEqual([...SPEC_PROVIDERS, 'local-sphinx']);
    expect(body.items.find((i) => i.id === 'stt-a-model-1')).toMatchObject({ adapter: 'openai', model: 'whisper-1', state: 'ready' });
    expect(body.items.find((i) => i.id === 'local-sphinx')).toMatchObject({ adapter: 'local-sphinx', state: 'ready' });
    for (const f of fakes) expect(text).not.toContain(f.key);
  });

  test('labels each provider with its adapter and model, and explains PocketSphinx on telephone audio', async () => {
    const body = (await (await fetch(`${s.url}/v1/stt/providers`, { headers: { authorization: `Bearer ${s.key}` } })).json()) as {
      items: { id: string; adapter: string | null; model: string | null; label: string; note?: string }[];
    };
    for (const i of body.items) {
      const parts = [i.adapter === i.id ? null : i.adapter, i.model].filter(Boolean);
      expect(i.label).toBe(i.adapter ? `${i.id} · ${parts.join(' ')}` : i.id);
    }
    expect(body.items.find((i) => i.id === 'stt-a-model-1')!.label).toBe('stt-a-model-1 · openai whisper-1');
    const sphinx = body.items.find((i) => i.id === 'local-sphinx')!;
    expect(sphinx.label).toBe('local-sphinx · en-us');
    expect(sphinx.note).toMatch(/8 kHz telephone audio .* resampled to 16 kHz/);
    expect(body.items.find((i) => i.id === 'stt-a-model-1')!.note).toBeUndefined();
  });

  test('a binding whose key variable is unset is not_configured, and so is its transcription', async () => {
    const name = 'VOXCTL_TEST_DEEPGRAM_KEY';
    const saved = process.env[name];
    delete process.env[name];
    try {
      const res = await fetch(`${s.url}/v1/stt/providers`, { headers: { authorization: `Bearer ${s.key}` } });
      const token = tokenOf('deepgram');
      const item = ((await res.json()) as { items: { id: string; state: string; detail?: string }[] }).items.find((i) => i.id === token);
      expect(item).toMatchObject({ state: 'not_configured', detail: `${name} is not set` });
      const health = (await (await fetch(`${s.url}/health`)).json()) as { checks: { stt: Record<string, string> } };
      expect(health.checks.stt[token]).toBe('not_configured');
      expect(health.checks.stt[tokenOf('openai')]).toBe('ok');
      const url = await upload(WAV, 'speech.wav');
      const r = await transcribe({ audio_url: url, providers: [token] });
      expect(r.body.results[token].error.code).toBe('provider_not_configured');
    } finally {
      process.env[name] = saved;
    }
  });
});

describe('a server without a config file', () => {
  test('answers provider_not_configured for the spec tokens; --allow-private-audio-urls lets loopback through', async () => {
    const bare = await startTestServer({ options: { allowPrivateAudioUrls: true } });
    try {
      const res = await fetch(`${bare.url}/v1/stt/transcribe`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bare.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ audio_url: `http://127.0.0.1:${origin.port}/speech.wav`, providers: ['stt-c', 'stt-g'] }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: Record<string, { transcript: unknown; latency_ms: number; confidence: unknown; error: { code: string } }> };
      expect(Object.keys(body.results)).toEqual(['stt-c', 'stt-g']);
      for (const r of Object.values(body.results)) {
        expect(r).toMatchObject({ transcript: null, confidence: null, error: { code: 'provider_not_configured' } });
        expect(Number.isInteger(r.latency_ms)).toBe(true);
      }
    } finally {
      await bare.close();
    }
  });
});
