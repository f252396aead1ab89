import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/core-http.js';
import { TEST_KEY } from '../helpers/server.js';
import { startServe } from '../helpers/serve-process.js';
import { TEST_HANG, TEST_HOOKS_ENV } from '../../src/server/engines/tts/protocol.js';
import { DEAD_AFTER_MS } from '../../src/server/features/ops/instances.js';
import { withBackendDb } from '../helpers/backend-db.js';
import { testBackend } from '../helpers/postgres.js';

const usage = async (server: { url: string }) => (await call(server, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.characters_used as number;

describe('a synthesis killed mid-way keeps no characters (a real server process, SIGKILL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-synth-crash-'));
  const procs: ResultPromise[] = [];
  const hooks = process.env[TEST_HOOKS_ENV];
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.allSettled(procs);
    if (hooks === undefined) delete process.env[TEST_HOOKS_ENV];
    else process.env[TEST_HOOKS_ENV] = hooks;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refunds at the next start the characters reserved by a request the crash cut off', async () => {
    // The worker test hook (VOXCTL_TTS_TEST_HOOKS=1, inherited by the child) hangs on TEST_HANG: the kill
    // lands between the reservation and the stored result, every time.
    process.env[TEST_HOOKS_ENV] = '1';
    let server = await startServe(dataDir);
    procs.push(server.proc);
    const speaker = (await withBackendDb(dataDir, (db) => db.value<string>(`SELECT id FROM speakers WHERE engine = 'flite' ORDER BY id LIMIT 1`)))!;
    const done = await call(server, 'POST', '/v1/tts/synthesize', { key: TEST_KEY, json: { speaker_id: speaker, text: 'Stored before the crash.' } });
    expect(done.status).toBe(200);
    const before = await usage(server);
    expect(before).toBe(done.body.characters_used);

    const text = `This request never finishes. ${TEST_HANG} ${'x'.repeat(1900)}`;
    const cut = call(server, 'POST', '/v1/tts/synthesize', { key: TEST_KEY, json: { speaker_id: speaker, text } }).catch(() => undefined);
    while ((await usage(server)) === before) await new Promise((r) => setTimeout(r, 20));
    expect(await usage(server)).toBe(before + [...text].length);
    server.proc.kill('SIGKILL');
    await server.proc;
    await cut;
    // The crash left the characters charged, with their reservation recorded and no audio for it.
    await withBackendDb(dataDir, async (dead) => {
      expect(await dead.column('SELECT characters FROM character_reservations')).toEqual([[...text].length]);
      expect(await dead.value('SELECT COUNT(*) FROM audio')).toBe(1);
    });
    if (testBackend() === 'postgres') {
      // On a shared database the next instance refunds only the reservations of an instance silent for
      // DEAD_AFTER_MS (a live peer may still finish them): the killed one's last heartbeat is aged by that
      // much, as a minute of silence would, instead of the test waiting out the minute.
      await withBackendDb(dataDir, async (db) => {
        expect(await db.value('SELECT COUNT(*) FROM character_reservations r JOIN instances i ON i.id = r.owner')).toBe(1);
        await db.run('UPDATE instances SET heartbeat_at = ?', [new Date(Date.now() - DEAD_AFTER_MS - 1000).toISOString()]);
      });
    }

    server = await startServe(dataDir);
    procs.push(server.proc);
    expect(await usage(server)).toBe(before);
    expect(await withBackendDb(dataDir, (db) => db.value('SELECT COUNT(*) FROM character_reservations'))).toBe(0);
    // Nothing else was handed back: the stored synthesis stays charged, and a new one is charged once.
    const next = await call(server, 'POST', '/v1/tts/synthesize', { key: TEST_KEY, json: { speaker_id: speaker, text: 'After the restart.' } });
    expect(next.status).toBe(200);
    expect(await usage(server)).toBe(before + next.body.characters_used);
    server.proc.kill('SIGTERM');
    await server.proc;
  }, 90_000);
});
