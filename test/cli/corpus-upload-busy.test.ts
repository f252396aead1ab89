import { mkdtempSync, rmSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, createSandbox, type Sandbox } from '../helpers/cli.js';
import { call } from '../helpers/core-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buildCorpus, packCorpus, recordings } from '../helpers/corpus-fixtures.js';

// DESIGN §17.3: a user's third upload at once is 429 `Too many uploads in progress` (Retry-After: 5), and
// `voxctl corpus upload` waits it out and sends again, through the built CLI against a real service.
let s: TestServer;
let sb: Sandbox;
let root: string;

beforeAll(async () => {
  s = await startTestServer();
  sb = createSandbox();
  root = mkdtempSync(join(tmpdir(), 'voxctl-cli-busy-'));
});
afterAll(async () => {
  await s?.close();
  sb?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

/** An upload whose body is left half-sent: it holds one of the user's two slots until destroyed. */
function heldUpload(): ClientRequest {
  const req = request(`${s.url}/v1/corpora`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'multipart/form-data; boundary=XYZ', 'content-length': String(10 * 1024 * 1024) },
  });
  req.on('error', () => undefined);
  req.write('--XYZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nheld\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n');
  req.write(Buffer.alloc(64 * 1024));
  return req;
}

it('corpus upload waits while two uploads of the user run, then uploads', async () => {
  const archive = await packCorpus(buildCorpus(join(root, 'c'), 'audiofolder', recordings().slice(0, 1)), join(root, 'c.zip'));
  const held = [heldUpload(), heldUpload()];
  // Both slots are taken once the service answers a third upload 429.
  await expect.poll(async () => (await fetch(`${s.url}/v1/corpora`, { method: 'POST', headers: { authorization: `Bearer ${s.key}` }, body: new FormData() })).status).toBe(429);
  const upload = execa(process.execPath, [BIN, 'corpus', 'upload', archive, '--name', 'patient'], {
    env: { ...sb.env, VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key },
    extendEnv: false,
    reject: false,
    cwd: sb.root,
    timeout: 60_000,
    input: '',
  });
  // The slots are freed only once the CLI says it waits: its first try certainly met the 429.
  let stderr = '';
  await new Promise<void>((resolve) => {
    upload.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (stderr.includes('waiting 5 s')) resolve();
    });
    void upload.finally(() => resolve());
  });
  for (const req of held) req.destroy();
  const r = await upload;
  expect(r.exitCode, String(r.stderr)).toBe(0);
  expect(stderr).toContain('Rate limited by the service; waiting 5 s (Retry-After) before trying again');
  const list = await call(s, 'GET', '/v1/corpora', { key: s.key });
  expect(list.body.items.map((c: { name: string }) => c.name)).toEqual(['patient']);
}, 90_000);
