// The audio_url fetcher without HTTP API around it: pinning, limits, redirects and our own URLs.
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../../src/server/storage/db.js';
import { loadAudio, type AudioSourceDeps } from '../../../../../src/server/features/audio/audio-fetch.js';
import { DomainError } from '../../../../../src/shared/errors.js';
import { statusOf } from '../../../../../src/server/plugins/errors.js';
import { createUrlSigner } from '../../../../../src/server/features/audio/audio-urls.js';
import { storeAudio } from '../../../../../src/server/features/audio/audio-store.js';
import { dataDirBlobs } from '../../../../helpers/work.js';

let server: Server;
let port: number;
let db: Db;
const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-fetch-'));
const urls = createUrlSigner(Buffer.alloc(32, 7));
const now = new Date('2030-01-01T00:00:00Z');
const resolved: string[] = [];

beforeAll(async () => {
  db = await openSqliteDatabase(join(dataDir, 'voxctl.db'));
  server = createServer((req, res) => {
    if (req.url === '/small') return res.end(Buffer.alloc(1000, 1));
    if (req.url === '/big') return res.writeHead(200, { 'content-length': String(5000) }).end(Buffer.alloc(5000));
    if (req.url === '/chunked-big') {
      // No Content-Length: the cap must be enforced while streaming.
      res.writeHead(200);
      let n = 0;
      const t = setInterval(() => {
        if (n++ > 20 || res.destroyed) {
          clearInterval(t);
          return res.end();
        }
        res.write(Buffer.alloc(500));
      }, 1);
      return;
    }
    if (req.url === '/slow') return setTimeout(() => res.end('late'), 2000);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await db.close();
});

const deps = (over: Partial<AudioSourceDeps> = {}): AudioSourceDeps => ({
  db,
  blobs: dataDirBlobs(dataDir),
  urls,
  clock: { now: () => now },
  allowPrivate: false,
  hooks: {
    resolve: async (host) => {
      resolved.push(host);
      return [{ address: '93.184.216.34', family: 4 }];
    },
    connectTarget: () => ({ host: '127.0.0.1', port }),
  },
  maxBytes: 2000,
  timeoutMs: 500,
  ...over,
});

async function status(p: Promise<unknown>): Promise<[number, string]> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  return [statusOf((err as DomainError).code), (err as DomainError).message];
}

describe('loadAudio', () => {
  test('fetches a public URL through the pinned, checked address', async () => {
    const bytes = await loadAudio(deps(), 'http://audio.example.test/small');
    expect(bytes.length).toBe(1000);
    expect(resolved).toContain('audio.example.test');
  });

  test('refuses a declared size over the cap, and an undeclared one while streaming', async () => {
    expect(await status(loadAudio(deps(), 'http://audio.example.test/big'))).toEqual([400, 'Audio exceeds 0 MB']);
    expect((await status(loadAudio(deps(), 'http://audio.example.test/chunked-big')))[0]).toBe(400);
  });

  test('gives up after the deadline', async () => {
    expect(await status(loadAudio(deps(), 'http://audio.example.test/slow'))).toEqual([400, 'Timed out fetching audio_url after 1 s']);
  });

  test('the socket is pinned to the checked address: a name only our resolver knows is still reached', async () => {
    // The system resolver cannot resolve this name, so success proves the connection used our answer.
    const d = deps({ allowPrivate: true, hooks: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] } });
    const bytes = await loadAudio(d, `http://pinned.example.invalid:${port}/small`);
    expect(bytes.length).toBe(1000);
  });

  test('with allowPrivate, loopback is fetched', async () => {
    const bytes = await loadAudio(deps({ allowPrivate: true, hooks: {} }), `http://127.0.0.1:${port}/small`);
    expect(bytes.length).toBe(1000);
  });

  test('reads our own signed URL from storage, 410 when expired, 404 when the row is gone', async () => {
    const row = await storeAudio(db, dataDirBlobs(dataDir), { userId: null, kind: 'upload', format: 'wav', bytes: Buffer.from('RIFF....WAVE'), durationSeconds: 0, sampleRate: 16000, now });
    const url = urls.audio({ base: 'https://somewhere.invalid', audioId: row.id, now });
    expect((await loadAudio(deps(), url)).toString()).toBe('RIFF....WAVE');
    const later = { now: () => new Date(now.getTime() + 25 * 3600 * 1000) };
    expect(await status(loadAudio(deps({ clock: later }), url))).toEqual([410, 'Audio URL has expired']);
    const ghost = urls.audio({ base: 'https://somewhere.invalid', audioId: 'aud_ghostghostghost', now });
    expect(await status(loadAudio(deps(), ghost))).toEqual([404, 'Audio not found']);
  });

  test('an unresolvable host → 400', async () => {
    const d = deps({ hooks: { resolve: async () => [] } });
    expect(await status(loadAudio(d, 'http://nowhere.example.test/a.wav'))).toEqual([400, 'Could not resolve the host of audio_url: nowhere.example.test']);
  });
});
