import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve-process.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { postgresBinDir } from '../helpers/postgres-cluster.js';
import { TEST_KEY } from '../helpers/server.js';

// docs/deploy.md "Backups and restore", run as written: pg_dump -Fc of a live instance's database,
// pg_restore --no-owner into an empty one, and a new instance on it serves the same keys and audio.
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
      const target = await createTestDatabase({ fromTemplate: false });
      dropped.push(target.drop);
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
