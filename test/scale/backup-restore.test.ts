import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve-process.js';
import { createTestDatabase, postgresAdminUrl } from '../helpers/postgres.js';
import { postgresBinDir } from '../helpers/postgres-cluster.js';
import { TEST_KEY } from '../helpers/server.js';

// docs/deploy.md "Backups and restore", run as written: pg_dump -Fc of a live instance's database,
// pg_restore --no-owner, as a newly created role, into an empty database it owns, and a new instance
// connected as that role serves the same keys and audio.
describe('backup and restore', () => {
  const dirs: string[] = [];
  const dropped: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const d of dropped) await d();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'voxctl-backup-'));
    dirs.push(d);
    return d;
  };

  /** A new role (LOGIN, a password) owning a new empty database: the URL connects as that role. */
  const restoreTarget = async (): Promise<{ url: string }> => {
    const suffix = randomBytes(6).toString('hex');
    const role = `voxctl_restore_${suffix}`;
    const password = randomBytes(18).toString('hex');
    const admin = new pg.Client({ connectionString: postgresAdminUrl() });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
      await admin.query(`CREATE DATABASE ${role} OWNER ${role} TEMPLATE template0`);
    } finally {
      await admin.end();
    }
    dropped.push(async () => {
      const c = new pg.Client({ connectionString: postgresAdminUrl() });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${role} WITH (FORCE)`);
        await c.query(`DROP ROLE IF EXISTS ${role}`);
      } finally {
        await c.end();
      }
    });
    const url = new URL(postgresAdminUrl());
    url.username = role;
    url.password = password;
    url.pathname = `/${role}`;
    return { url: url.toString() };
  };

  it('a dump restored into a new database serves the same keys, jobs and signed audio URLs', async () => {
    const bin = postgresBinDir()!;
    const source = await createTestDatabase();
    dropped.push(source.drop);
    const first = await startServe(tempDir(), { env: { VOXCTL_DATABASE_URL: source.url } });
    const auth = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };
    let audioPath: string;
    let audio: Buffer;
    let secondKey: string;
    try {
      const speakers = (await (await fetch(`${first.url}/v1/speakers?limit=1`)).json()) as { items: { id: string }[] };
      const synth = await fetch(`${first.url}/v1/tts/synthesize`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'Backups are tested.', speaker_id: speakers.items[0]!.id }) });
      expect(synth.status).toBe(200);
      const url = new URL(((await synth.json()) as { audio_url: string }).audio_url);
      audioPath = `${url.pathname}${url.search}`;
      audio = Buffer.from(await (await fetch(`${first.url}${audioPath}`)).arrayBuffer());
      const key = await fetch(`${first.url}/v1/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'restored?' }) });
      secondKey = ((await key.json()) as { key: string }).key;
      // The dump is taken while the instance runs.
      const dump = join(tempDir(), 'voxctl.dump');
      await execa(join(bin, 'pg_dump'), ['-Fc', '-f', dump, '--dbname', source.url]);
      expect(readFileSync(dump).subarray(0, 5).toString()).toBe('PGDMP');
      // As a new cluster would be set up (docs/deploy.md): a dump holds no roles, so the role is created
      // first, owns the empty database, and the restore runs as that role, with its password.
      const target = await restoreTarget();
      await execa(join(bin, 'pg_restore'), ['--no-owner', '--exit-on-error', '--dbname', target.url, dump]);
      const second = await startServe(tempDir(), { env: { VOXCTL_DATABASE_URL: target.url, VOXCTL_BOOTSTRAP_KEY: '' } });
      try {
        const me = await fetch(`${second.url}/v1/users/me`, { headers: { authorization: `Bearer ${secondKey}` } });
        expect(me.status).toBe(200);
        expect(await me.json()).toMatchObject({ email: 'admin@localhost' });
        // Signed by the first instance: the secret travelled with the dump, and so did the bytes.
        const again = await fetch(`${second.url}${audioPath}`);
        expect(again.status).toBe(200);
        expect(Buffer.from(await again.arrayBuffer()).equals(audio)).toBe(true);
        // No second bootstrap user on a restored database.
        expect(second.output()).not.toMatch(/"event":"bootstrap"/);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  }, 120_000);
});
