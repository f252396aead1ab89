/**
 * Crash safety of evaluations (DESIGN §8.2): a real `voxctl serve` (the built CLI) is SIGKILLed in the
 * middle of an evaluation and started again on the same data dir. The evaluation must finish with one
 * row per utterance, one file per conditioned audio, one charge, and the same results as a run that was
 * never interrupted.
 *
 * The batch evaluation is heard by PocketSphinx on SQLite and by a Deepgram fake on loopback (answering
 * after 300 ms, so the kill still finds work in flight) on PostgreSQL: the subject is what a kill leaves in
 * storage and how the restart recovers it, which the recogniser does not change; PocketSphinx's share of it
 * is heard once, on SQLite. The streaming evaluation keeps PocketSphinx on both.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, serveDetached, type ServedCli } from '../helpers/cli.js';
import { call } from '../helpers/core-http.js';
import { pollEvaluation } from '../helpers/evaluations.js';
import { audioBlobNames, audioDebris, withBackendDb } from '../helpers/backend-db.js';
import { backendFor, testBackend } from '../helpers/postgres.js';
import { FAKE_TRANSCRIPT, startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Short leases: on PostgreSQL the restarted instance takes over the killed one's claimed syntheses only
// once their leases expire (DESIGN §9.3), 60 s by default; on SQLite the restart requeues them at once.
const sandbox = createSandbox({ VOXCTL_LEASE_SECONDS: '10' });
let server: ServedCli | undefined;
let fake: FakeVendor | undefined;
const ON_POSTGRES = testBackend() === 'postgres';
const STT = ON_POSTGRES ? 'stt-b' : 'local-sphinx';

const serverPid = (): number => (JSON.parse(readFileSync(join(sandbox.dataDir, 'server.json'), 'utf8')) as { pid: number }).pid;
const used = async (srv: ServedCli): Promise<number> =>
  (await call(srv, 'GET', '/v1/users/usage', { key: srv.key })).body.characters_used as number;

/** Every utterance of an evaluation without the timing, which no two runs share. */
async function results(srv: ServedCli, id: string): Promise<Row[]> {
  const page = (await call(srv, 'GET', `/v1/evaluations/${id}/utterances?limit=100`, { key: srv.key })).body;
  return page.items.map(({ latency_ms: _l, audio_url: _a, ...rest }: Row) => rest);
}
// Timings differ between runs: latency and the real-time factor (audio seconds ÷ processing seconds).
const withoutLatency = (summary: Row[]) => summary.map(({ latency_ms: _l, rtfx: _r, ...rest }) => rest);

beforeAll(async () => {
  // On the postgres project the served CLI runs on the data dir's own database (nothing on SQLite).
  const { databaseUrl } = await backendFor(sandbox.dataDir);
  if (databaseUrl) sandbox.env.VOXCTL_DATABASE_URL = databaseUrl;
  if (ON_POSTGRES) {
    fake = await startFakeVendor('deepgram', { delayMs: 300 });
    const config = join(sandbox.root, 'voxctl.config.json');
    writeFileSync(config, JSON.stringify({ stt: { providers: { [STT]: { adapter: 'deepgram', model: 'nova-3', base_url: fake.url, api_key_env: 'VOXCTL_EVAL_FAKE_KEY' } } } }));
    Object.assign(sandbox.env, { VOXCTL_CONFIG: config, VOXCTL_EVAL_FAKE_KEY: fake.key });
  }
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
  sandbox.cleanup();
});

describe('an evaluation survives SIGKILL of its server', () => {
  it('resumes after a restart: no duplicate row or file, one charge, the summary of an uninterrupted run', async () => {
    server = await serveDetached(sandbox);
    const ids = await withBackendDb(sandbox.dataDir, async (db) => {
      // Enterprise (1,000 requests a minute): polling stays clear of the rate limit.
      await db.run(`UPDATE users SET subscription_tier = 'enterprise'`);
      return db.column<string>(`SELECT id FROM speakers WHERE engine = 'flite' AND voice IN ('slt', 'rms') AND abs(pitch) < 2 ORDER BY id LIMIT 2`);
    });
    const texts = ['The quick brown fox jumps over the lazy dog.', 'Please call me back after the meeting tomorrow morning.', 'It is raining in the city today.'];
    const request = { texts, speakers: { ids, group_by: 'engine', seed: 3 }, providers: [STT], conditions: ['clean', 'noise:5'] };
    const total = texts.length * ids.length * 2;
    const chars = texts.reduce((n, t) => n + [...t].length, 0) * ids.length;
    const before = await used(server);

    const created = await call(server, 'POST', '/v1/evaluations', { key: server.key, json: request });
    expect(created.status, created.text).toBe(201);
    const id = created.body.evaluation_id as string;
    // Kill once some results are stored and most are not.
    const mid = await pollEvaluation(server, id, { intervalMs: 100, until: (b) => b.completed_utterances >= 2 || !['pending', 'processing'].includes(b.status) });
    process.kill(serverPid(), 'SIGKILL');
    expect(mid.status).toBe('processing');
    expect(mid.completed_utterances).toBeLessThan(total);

    // The kill left work in flight: the restart has something to recover.
    const [left, storedAtKill] = await withBackendDb(sandbox.dataDir, async (dead) => [
      await dead.all<{ status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM evaluation_syntheses WHERE evaluation_id = ? GROUP BY status`, [id]),
      (await dead.value<number>('SELECT COUNT(*) FROM evaluation_utterances WHERE evaluation_id = ?', [id]))!,
    ] as const);
    expect(left.find((r) => r.status === 'processing')?.n ?? 0).toBeGreaterThan(0);
    expect(storedAtKill).toBeGreaterThanOrEqual(2);
    expect(storedAtKill).toBeLessThan(total);

    // A killed server leaves its server.json behind (and may linger as a zombie no one reaps here).
    rmSync(join(sandbox.dataDir, 'server.json'));
    server = await serveDetached(sandbox);
    const resumed = await pollEvaluation(server, id, { timeoutMs: 420_000, intervalMs: 250 });
    expect(resumed).toMatchObject({ status: 'completed', progress: 100, completed_utterances: total });

    const rows = await withBackendDb(sandbox.dataDir, (after) =>
      after.get<{ n: number; d: number }>(
        `SELECT COUNT(*) AS n, COUNT(DISTINCT text_index || ':' || speaker_index || ':' || condition_index || ':' || provider_index) AS d
         FROM evaluation_utterances WHERE evaluation_id = ?`,
        [id],
      ),
    );
    expect(rows).toEqual({ n: total, d: total });
    // Audio files on SQLite, `audio_blobs` rows on PostgreSQL: one per conditioned audio, no debris.
    expect(await audioDebris(sandbox.dataDir)).toEqual([]);
    expect((await audioBlobNames(sandbox.dataDir)).filter((f) => f.startsWith(`aud_${id.replace(/^ev_/, 'ev')}_`))).toHaveLength(texts.length * ids.length * 2);
    expect((await used(server)) - before).toBe(chars);

    // The same request, never interrupted: the same transcripts, scores and summary (timings aside).
    const control = await call(server, 'POST', '/v1/evaluations', { key: server.key, json: request });
    const uninterrupted = await pollEvaluation(server, control.body.evaluation_id, { timeoutMs: 420_000, intervalMs: 250 });
    expect(uninterrupted.status).toBe('completed');
    expect(withoutLatency(resumed.summary)).toEqual(withoutLatency(uninterrupted.summary));
    const resumedRows = await results(server, id);
    expect(resumedRows).toEqual(await results(server, control.body.evaluation_id));
    // Heard by the recogniser this pass chose (the fake answers one fixed sentence).
    expect(resumedRows.every((u) => u.provider === STT && (ON_POSTGRES ? u.transcript === FAKE_TRANSCRIPT : u.error === null))).toBe(true);
  }, 960_000);
});

describe('a streaming evaluation survives SIGKILL of its server (DESIGN §13.2)', () => {
  it('resumes after a restart: every utterance streamed and measured once, mode and pace kept', async () => {
    server ??= await serveDetached(sandbox);
    const ids = await withBackendDb(sandbox.dataDir, async (db) => {
      await db.run(`UPDATE users SET subscription_tier = 'enterprise'`);
      return db.column<string>(`SELECT id FROM speakers WHERE engine = 'flite' AND voice IN ('slt', 'rms') AND abs(pitch) < 2 ORDER BY id LIMIT 2`);
    });
    const texts = ['The quick brown fox jumps over the lazy dog.', 'Please call me back after the meeting tomorrow morning.', 'It is raining in the city today.', 'Turn left at the second traffic light.'];
    const total = texts.length * ids.length;
    const created = await call(server, 'POST', '/v1/evaluations', {
      key: server.key,
      json: { texts, speakers: { ids }, providers: ['local-sphinx'], mode: 'streaming', pace: 1.5 },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.evaluation_id as string;
    const mid = await pollEvaluation(server, id, { intervalMs: 100, until: (b) => b.completed_utterances >= 1 || !['pending', 'processing'].includes(b.status) });
    process.kill(serverPid(), 'SIGKILL');
    expect(mid.status).toBe('processing');
    expect(mid.completed_utterances).toBeLessThan(total);

    rmSync(join(sandbox.dataDir, 'server.json'));
    server = await serveDetached(sandbox);
    const resumed = await pollEvaluation(server, id, { timeoutMs: 420_000, intervalMs: 250 });
    expect(resumed).toMatchObject({ status: 'completed', completed_utterances: total, mode: 'streaming', pace: 1.5 });
    const rows = await withBackendDb(sandbox.dataDir, (after) =>
      after.get<{ n: number; d: number; measured: number }>(
        `SELECT COUNT(*) AS n, COUNT(DISTINCT text_index || ':' || speaker_index) AS d, COUNT(final_latency_ms) AS measured
         FROM evaluation_utterances WHERE evaluation_id = ?`,
        [id],
      ),
    );
    expect(rows).toMatchObject({ n: total, d: total });
    // PocketSphinx completes a transcript for every one of these sentences.
    expect(Number(rows!.measured)).toBe(total);
    expect(resumed.summary.find((r: Row) => r.group === 'all').final_latency_ms).toEqual({ p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number) });
  }, 540_000);
});
