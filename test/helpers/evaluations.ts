import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeVendor } from './fake-stt-vendors.js';
import { call, type Reply } from './core-http.js';
import type { TestServer } from './server.js';

/** Polls GET /v1/evaluations/{id} until it ends (completed, partial, failed, cancelled) and returns it. */
export async function pollEvaluation(
  server: Pick<TestServer, 'url' | 'key'>,
  id: string,
  opts: { key?: string; timeoutMs?: number; intervalMs?: number; until?: (body: Reply['body']) => boolean } = {},
): Promise<Reply['body']> {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  const until = opts.until ?? ((b: Reply['body']) => !['pending', 'processing'].includes(b.status));
  for (;;) {
    const res = await call(server, 'GET', `/v1/evaluations/${id}`, { key: opts.key ?? server.key });
    if (res.status !== 200) throw new Error(`GET evaluation ${id}: ${res.status} ${res.text}`);
    if (until(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`evaluation ${id} still ${res.body.status} (${res.body.completed_utterances}/${res.body.total_utterances})`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/**
 * A server config that binds `stt-b` to a fake Deepgram answering 500 to everything: a configured
 * provider whose every request fails at once (evaluations refuse unbound ones, DESIGN §8.1), so tests
 * exercise the API without spending the machine's CPU on recognition.
 */
export async function failingVendorConfig(): Promise<{ configPath: string; provider: 'stt-b'; close(): Promise<void> }> {
  const vendor = await startFakeVendor('deepgram', { mode: '500' });
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-failing-vendor-'));
  const env = 'VOXCTL_TEST_FAILING_VENDOR_KEY';
  process.env[env] = vendor.key;
  const configPath = join(dir, 'voxctl.config.json');
  const binding = { adapter: 'deepgram', base_url: vendor.url, api_key_env: env, model: 'nova-3', timeout_ms: 10_000 };
  writeFileSync(configPath, JSON.stringify({ stt: { providers: { 'stt-b': binding } } }));
  return {
    configPath,
    provider: 'stt-b',
    async close() {
      await vendor.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A provider binding of a test config: its adapter and model, bound to a loopback fake (its URL and key). */
export interface FakeBinding {
  adapter: string;
  model?: string;
  streaming_model?: string;
  price_per_minute_usd?: number;
  fake: { url: string; key: string };
}

/**
 * Writes a server config binding provider tokens to loopback fakes into `dir` and returns its path. Each
 * key travels as the config documents it, through an environment variable (named after the token) that
 * this sets in the test process — the test server runs in it.
 */
export function fakeProvidersConfig(dir: string, bindings: Record<string, FakeBinding>): string {
  const providers: Record<string, unknown> = {};
  for (const [token, { fake, ...binding }] of Object.entries(bindings)) {
    const env = `VOXCTL_TEST_KEY_${token.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}_${process.pid}`;
    process.env[env] = fake.key;
    providers[token] = { ...binding, base_url: fake.url, api_key_env: env };
  }
  const path = join(dir, 'voxctl.config.json');
  writeFileSync(path, JSON.stringify({ stt: { providers } }));
  return path;
}
