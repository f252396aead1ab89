import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiRequestError, createClient } from '../../../src/client/index.js';
import { openEarlyListener, type EarlyListener } from '../../../src/server/listener.js';

/** A real starting listener that hands over to `ready` after `startingAnswers` requests. */
async function startingService(startingAnswers: number) {
  const seen: { method: string; path: string; body: string }[] = [];
  const early = await openEarlyListener({ host: '127.0.0.1', port: 0 });
  const port = (early.server.address() as { port: number }).port;
  let requests = 0;
  // Runs before the listener's own handler: the request that reaches the count is the ready service's.
  early.server.prependListener('request', (req: IncomingMessage) => {
    if (++requests >= startingAnswers) early.handOver(ready);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => seen.push({ method: req.method!, path: req.url!, body: Buffer.concat(chunks).toString() }));
  });
  return { early, seen, url: `http://127.0.0.1:${port}` };
}

function ready(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: 'key_1', key: 'vox_new', status: 'ok', version: '9.9.9' }));
  });
}

const listeners: EarlyListener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

describe('a starting service', () => {
  it('marks its 503 as starting: nothing ran, so any method may be sent again', async () => {
    const { early, url } = await startingService(Infinity);
    listeners.push(early);
    const res = await fetch(`${url}/v1/keys`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-voxctl-starting')).toBe('1');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ detail: 'Service temporarily unavailable', code: 'service_unavailable' });
    // Liveness is no error and carries no mark.
    expect((await fetch(`${url}/health/live`)).headers.get('x-voxctl-starting')).toBeNull();
  });

  it('is waited out by the client: a POST is sent again, body and all, once a second until the service answers', async () => {
    const { early, seen, url } = await startingService(3);
    listeners.push(early);
    const waits: number[] = [];
    const lines: string[] = [];
    const client = createClient({ baseUrl: url, apiKey: 'vox_k', sleep: async (ms) => void waits.push(ms), onLog: (l) => lines.push(l) });
    expect(await client.createKey({ name: 'ci' })).toMatchObject({ id: 'key_1' });
    expect(waits).toEqual([1000, 1000]);
    expect(seen.map((s) => `${s.method} ${s.path} ${s.body}`)).toEqual(Array(3).fill('POST /v1/keys {"name":"ci"}'));
    expect(lines.filter((l) => l.startsWith('… the service is starting'))).toHaveLength(2);
  });

  it('is waited out through fetch too (a form body is sent again)', async () => {
    const { early, seen, url } = await startingService(2);
    listeners.push(early);
    const client = createClient({ baseUrl: url, apiKey: 'vox_k', sleep: async () => undefined });
    await client.uploadAudio({ data: Buffer.from('RIFF-bytes'), filename: 'a.wav', contentType: 'audio/wav' });
    expect(seen).toHaveLength(2);
    expect(seen.every((s) => s.body.includes('RIFF-bytes'))).toBe(true);
  });

  it('passes the 503 on after 30 s of tries, or at once with startingWaitMs 0', async () => {
    const { early, seen, url } = await startingService(Infinity);
    listeners.push(early);
    let slept = 0;
    const err = await createClient({ baseUrl: url, sleep: async (ms) => void (slept += ms) }).health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
    expect(err).toMatchObject({ status: 503, detail: 'Service temporarily unavailable', retryAfter: 5 });
    expect(slept).toBe(30_000);
    expect(seen).toHaveLength(31);
    await expect(createClient({ baseUrl: url, startingWaitMs: 0 }).health()).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(32);
  });

  it('does not send a streamed body again (it was spent on the first try)', async () => {
    const { early, seen, url } = await startingService(Infinity);
    listeners.push(early);
    async function* archive() {
      yield new Uint8Array(1024);
    }
    const err = await createClient({ baseUrl: url, apiKey: 'vox_k', sleep: async () => undefined })
      .uploadCorpus({ name: 'c', file: archive(), filename: 'c.tar' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it('does not retry a 503 without the mark (a running service whose database is away may have done part of the work)', async () => {
    const { createServer } = await import('node:http');
    let requests = 0;
    const http = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
      res.end(JSON.stringify({ detail: 'Service temporarily unavailable', status_code: 503, code: 'service_unavailable' }));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const port = (http.address() as { port: number }).port;
    await expect(createClient({ baseUrl: `http://127.0.0.1:${port}`, sleep: async () => undefined }).createKey({})).rejects.toMatchObject({ status: 503 });
    expect(requests).toBe(1);
    await new Promise((r) => http.close(r));
  });
});
