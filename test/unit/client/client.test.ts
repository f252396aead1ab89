import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { ApiRequestError, NetworkError, createClient, paginate } from '../../../src/client/index.js';
import { VERSION } from '../../../src/shared/version.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
const dispatcher = new Agent();

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await dispatcher.close();
  await server?.close();
});

describe('client against the real service', () => {
  it('reads typed objects and the server version', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: server.key, dispatcher });
    expect(await client.serverVersion()).toBe(VERSION);
    expect((await client.me()).email).toBe('admin@localhost');
    const page = await client.listSpeakers({ gender: 'Female', limit: 3 });
    expect(page.items).toHaveLength(3);
    expect(page.items.every((s) => s.gender === 'Female')).toBe(true);
  });

  it('turns error answers into ApiRequestError with detail, request id and rate-limit reset', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: 'vox_' + 'q'.repeat(40), dispatcher });
    const err = await client.me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
    const e = err as ApiRequestError;
    expect(e.status).toBe(401);
    expect(e.detail).toBe('Invalid or expired API key');
    expect(e.requestId).toMatch(/\S/);
    expect(e.rateLimitReset).toBeGreaterThan(Date.now() / 1000 - 1);
    const notFound = await createClient({ baseUrl: server.url, apiKey: server.key, dispatcher }).getJob('job_nope').catch((x: unknown) => x);
    expect(notFound).toMatchObject({ status: 404, detail: 'Job not found' });
  });

  it('follows every page with paginate', async () => {
    const client = createClient({ baseUrl: server.url, dispatcher });
    const facets = await client.speakerFacets();
    const nb = facets.gender.find((g) => g.value === 'Non-binary')!.count;
    let n = 0;
    for await (const s of paginate((p) => client.listSpeakers({ gender: 'Non-binary', ...p }))) {
      expect(s.gender).toBe('Non-binary');
      n++;
    }
    expect(n).toBe(nb);
  });

  it('logs request lines without the key', async () => {
    const lines: string[] = [];
    await createClient({ baseUrl: server.url, apiKey: server.key, dispatcher, onLog: (l) => lines.push(l) }).me();
    expect(lines[0]).toBe(`→ GET ${server.url}/v1/users/me`);
    expect(lines[1]).toMatch(/^← 200 GET \/v1\/users\/me \d+ ms request-id=/);
    expect(lines.join('\n')).not.toContain(server.key);
  });
});

describe('transport', () => {
  it('sends User-Agent voxctl/{version} and the Bearer key', async () => {
    let seen: IncomingHttpHeaders = {};
    const http = createServer((req, res) => {
      seen = req.headers;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'ok', version: '9.9.9', uptime_seconds: 1, checks: { database: 'ok', tts: 'ok', stt: {} } }));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const port = (http.address() as { port: number }).port;
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'vox_k', dispatcher });
    expect(await client.serverVersion()).toBe('9.9.9');
    expect(seen['user-agent']).toBe(`voxctl/${VERSION}`);
    // /health is public: the key is not sent there.
    expect(seen.authorization).toBeUndefined();
    await client.usage().catch(() => undefined);
    expect(seen.authorization).toBe('Bearer vox_k');
    await new Promise((r) => http.close(r));
  });

  it('calls beforeFetch before a request that goes through fetch, never before a plain JSON one', async () => {
    const paths: string[] = [];
    const http = createServer((req, res) => {
      paths.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: 'aud_1', status: 'ok', version: '9.9.9' }));
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const port = (http.address() as { port: number }).port;
    let calls = 0;
    // The CLI passes the switch to V8's baseline WebAssembly tier here: only fetch (undici) compiles any.
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'vox_k', beforeFetch: () => calls++ });
    await client.serverVersion();
    expect(calls).toBe(0);
    await client.uploadAudio({ data: Buffer.from('RIFF'), filename: 'a.wav', contentType: 'audio/wav' });
    expect(calls).toBe(1);
    expect(paths).toEqual(['GET /health', 'POST /v1/audio']);
    await new Promise((r) => http.close(r));
  });

  it('raises NetworkError naming the target when nothing listens', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    for (const d of [dispatcher, undefined]) {
      const err = await createClient({ baseUrl: `http://127.0.0.1:${port}`, dispatcher: d }).health().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).target).toBe(`http://127.0.0.1:${port}`);
      expect((err as NetworkError).message).toContain('ECONNREFUSED');
    }
    const err = await createClient({ baseUrl: `http://127.0.0.1:${port}` }).health().catch((e: unknown) => e);
    expect((err as NetworkError).message).toContain('ECONNREFUSED');
  });
});
