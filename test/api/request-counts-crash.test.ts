import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/core-http.js';
import { TEST_KEY } from '../helpers/server.js';
import { startServe } from '../helpers/serve-process.js';

describe('request counts survive a crash (a real server process, SIGKILL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-counts-'));
  const procs: ResultPromise[] = [];
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.allSettled(procs);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered request in requests_today after SIGKILL and restart', async () => {
    let server = await startServe(dataDir);
    procs.push(server.proc);
    const answered = 23;
    for (let i = 0; i < answered - 1; i++) expect((await call(server, 'GET', '/v1/users/me', { key: TEST_KEY })).status).toBe(200);
    const before = await call(server, 'GET', '/v1/users/usage', { key: TEST_KEY });
    expect(before.body.requests_today).toBe(answered);
    // Well inside the limiter's fold interval: only what was made durable per request can survive.
    server.proc.kill('SIGKILL');
    await server.proc;

    server = await startServe(dataDir);
    procs.push(server.proc);
    const after = await call(server, 'GET', '/v1/users/usage', { key: TEST_KEY });
    expect(after.status).toBe(200);
    // The answered requests plus this one: none handed back, none counted twice.
    expect(after.body.requests_today).toBe(answered + 1);

    // Requests arriving together are journaled together, in one write per event-loop turn, and their
    // answers wait for it: a SIGKILL right after the last answer still hands none back.
    const together = 40;
    const answers = await Promise.all(Array.from({ length: together }, () => call(server, 'GET', '/v1/users/me', { key: TEST_KEY })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    server.proc.kill('SIGKILL');
    await server.proc;
    server = await startServe(dataDir);
    procs.push(server.proc);
    expect((await call(server, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.requests_today).toBe(answered + 1 + together + 1);
    server.proc.kill('SIGTERM');
    await server.proc;
    server = await startServe(dataDir);
    procs.push(server.proc);
    // A clean shutdown folds the journal into the database; the next start does not count it again.
    expect((await call(server, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.requests_today).toBe(answered + together + 3);
    server.proc.kill('SIGTERM');
    await server.proc;
  }, 60_000);
});
