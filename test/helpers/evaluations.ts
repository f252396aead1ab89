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
