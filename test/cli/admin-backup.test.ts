import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { startServe } from '../helpers/serve-process.js';
import { TEST_KEY } from '../helpers/server.js';

// DESIGN §14.18: `voxctl admin backup` of a serving SQLite instance, restored with `voxctl admin restore`
// into a new data dir, serves the same keys and the same audio (its signed URL too: the secret came along).
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'voxctl-backup-'));
  dirs.push(d);
  return d;
};
const voxctl = (args: string[]) => execa('node', [BIN, ...args], { reject: false, env: { FORCE_COLOR: '0', VOXCTL_DATABASE_URL: '' } });

describe('voxctl admin backup / restore (DESIGN §14.18)', () => {
  it('backs up a running SQLite service; the restored data dir serves the old key and audio', { timeout: 120_000 }, async () => {
    const source = tempDir();
    const first = await startServe(source);
    const auth = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };
    const archive = join(tempDir(), 'voxctl-backup.tar');
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

      // Taken while the instance serves.
      const backup = await voxctl(['admin', 'backup', '--data-dir', source, archive]);
      expect(backup.exitCode, backup.stderr).toBe(0);
      expect(backup.stdout).toMatch(new RegExp(`^Backed up ${source} to ${archive} \\(\\d+ bytes\\): the database, 1 audio file, the secret, the request journal$`));
      expect(statSync(archive).mode & 0o777).toBe(0o600);
    } finally {
      await first.stop();
    }

    // One archive: the database, the journal, the secret and the referenced audio; nothing else of the dir.
    const listing = (await execa('tar', ['-tf', archive])).stdout.split('\n').sort();
    expect(listing.filter((e) => !e.startsWith('audio/'))).toEqual(['requests.journal', 'secret', 'voxctl.db']);
    expect(listing.filter((e) => e.startsWith('audio/') && e !== 'audio/')).toHaveLength(1);
    expect(readdirSync(source)).toEqual(expect.arrayContaining(['voxctl.db', 'audio', 'secret']));

    // Into a folder with anything in it: refused, exit 1, the folder untouched.
    const busy = tempDir();
    writeFileSync(join(busy, 'notes.txt'), 'mine');
    const refused = await voxctl(['admin', 'restore', archive, '--data-dir', busy]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(`Not restored: ${busy} is not empty (restore into a new or empty data dir)`);
    expect(readdirSync(busy)).toEqual(['notes.txt']);

    // Into a new folder: restored, and a service on it is the old one.
    const target = join(tempDir(), 'restored');
    const restore = await voxctl(['admin', 'restore', archive, '--data-dir', target]);
    expect(restore.exitCode, restore.stderr).toBe(0);
    expect(restore.stdout).toBe(`Restored ${archive} into ${target}: the database, 1 audio file, the secret, the request journal`);
    expect(statSync(target).mode & 0o777).toBe(0o700);
    expect(statSync(join(target, 'secret')).mode & 0o777).toBe(0o600);
    const second = await startServe(target, { env: { VOXCTL_BOOTSTRAP_KEY: '' } });
    try {
      const me = await fetch(`${second.url}/v1/users/me`, { headers: { authorization: `Bearer ${secondKey}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ email: 'admin@localhost' });
      const again = await fetch(`${second.url}${audioPath}`);
      expect(again.status).toBe(200);
      expect(Buffer.from(await again.arrayBuffer()).equals(audio)).toBe(true);
      expect(second.output()).not.toMatch(/"event":"bootstrap"/);
    } finally {
      await second.stop();
    }

    // An empty existing folder is fine too.
    const empty = join(tempDir(), 'empty');
    mkdirSync(empty);
    expect((await voxctl(['admin', 'restore', archive, '--data-dir', empty])).exitCode).toBe(0);
  });
});
