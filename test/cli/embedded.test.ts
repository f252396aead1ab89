import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createSandbox, isWav, portInUse } from '../helpers/cli.js';

// The embedded default from an empty HOME: no profile, no key, no data dir setting — the CLI starts the
// service detached on 127.0.0.1:7723 itself and provisions the bootstrap key. The real port is used, so
// the test waits for it to be free and always stops what it started.
const sb = createSandbox();
for (const k of ['VOXCTL_CONFIG_DIR', 'VOXCTL_DATA_DIR']) delete sb.env[k];
const dataDir = join(sb.home, '.local/share/voxctl');

afterAll(async () => {
  await cli(sb, ['serve', 'stop']);
  sb.cleanup();
});

describe('embedded default', () => {
  it('`voxctl tts say "hi" -o x.wav` works with no other step, then serve status/stop manage it', async () => {
    const deadline = Date.now() + 20_000;
    while ((await portInUse(7723)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    expect(await portInUse(7723), 'port 7723 is taken by another process: stop it to run this test').toBe(false);

    const r = await cli(sb, ['tts', 'say', 'hi', '-o', 'x.wav'], { timeout: 90_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(isWav(readFileSync(join(sb.root, 'x.wav')))).toBe(true);
    expect(r.stderr).toContain('Started the local voxctl service');
    // The embedded default is not announced as a target.
    expect(r.stderr).not.toContain('Target:');
    expect(existsSync(join(dataDir, 'serve.log'))).toBe(true);
    // The detached server's log must not carry the bootstrap key (no secret is ever logged).
    const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
    expect(key).toMatch(/^vox_/);
    expect(readFileSync(join(dataDir, 'serve.log'), 'utf8')).not.toContain(key);
    expect(existsSync(join(dataDir, 'server.json'))).toBe(true);

    const again = await cli(sb, ['whoami', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Started');
    expect(JSON.parse(again.stdout)).toMatchObject({ subscription_tier: 'pro' });

    const status = JSON.parse((await cli(sb, ['serve', 'status', '--json'])).stdout) as { running: boolean; autostarted: boolean; url: string };
    expect(status).toMatchObject({ running: true, autostarted: true, url: 'http://127.0.0.1:7723' });
    expect((await cli(sb, ['serve', 'stop'])).exitCode).toBe(0);
    expect((await cli(sb, ['serve', 'status'])).exitCode).toBe(1);
    const off = await cli(sb, ['whoami', '--no-autostart']);
    expect(off.exitCode).toBe(1);
    expect(off.stderr).toContain('No voxctl service answers at http://127.0.0.1:7723');
  }, 120_000);
});

/** A sandbox as a new user has it: empty HOME, no config or data dir settings. */
function emptyHome() {
  const s = createSandbox();
  for (const k of ['VOXCTL_CONFIG_DIR', 'VOXCTL_DATA_DIR']) delete s.env[k];
  return { sb: s, dataDir: join(s.home, '.local/share/voxctl') };
}

async function waitForFreePort(): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await portInUse(7723)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  expect(await portInUse(7723), 'port 7723 is taken by another process: stop it to run this test').toBe(false);
}

describe('embedded default in scripts (issue 9 items 1–2, issue 8 item 11)', () => {
  it('100 `tts say -q … -o f$i.wav` calls within a minute all succeed, and only one service is ever started', async () => {
    const { sb: s } = emptyHome();
    try {
      await waitForFreePort();
      const first = await cli(s, ['tts', 'say', '-q', 'line 0', '-o', 'f0.wav'], { timeout: 90_000 });
      expect(first.exitCode, first.stderr).toBe(0);
      // Four at a time, so the 100 calls land well within one minute of the per-IP window.
      const results: { i: number; exitCode: number; stderr: string }[] = [];
      const queue = Array.from({ length: 99 }, (_, k) => k + 1);
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
            const r = await cli(s, ['tts', 'say', '-q', `line ${i}`, '-o', `f${i}.wav`]);
            results.push({ i, exitCode: r.exitCode, stderr: r.stderr });
          }
        }),
      );
      const failed = results.filter((r) => r.exitCode !== 0);
      expect(failed.map((f) => `${f.i}: ${f.exitCode} ${f.stderr}`)).toEqual([]);
      for (let i = 0; i < 100; i++) expect(isWav(readFileSync(join(s.root, `f${i}.wav`))), `f${i}.wav`).toBe(true);
      expect(results.some((r) => /EADDRINUSE|Could not start/.test(r.stderr))).toBe(false);
    } finally {
      await cli(s, ['serve', 'stop']);
      s.cleanup();
    }
  }, 300_000);

  it('with the anonymous per-IP bucket spent, /health and signed audio URLs still answer and the CLI never starts a second service', async () => {
    const { sb: s, dataDir: dd } = emptyHome();
    try {
      await waitForFreePort();
      expect((await cli(s, ['whoami', '--json'], { timeout: 90_000 })).exitCode).toBe(0);
      let status = 0;
      // 121 requests reach a 429 even if a minute turns once on the way (60 a minute).
      for (let i = 0; i < 130 && status !== 429; i++) status = (await fetch('http://127.0.0.1:7723/v1/speakers?limit=1')).status;
      expect(status, 'anonymous requests are limited per IP').toBe(429);
      expect((await fetch('http://127.0.0.1:7723/health')).status).toBe(200);
      // Without server.json the CLI must ask over HTTP whether a service runs (as with one started elsewhere).
      const record = readFileSync(join(dd, 'server.json'), 'utf8');
      rmSync(join(dd, 'server.json'));
      const r = await cli(s, ['tts', 'say', '-q', 'still here', '-o', 'a.wav', '--json']);
      writeFileSync(join(dd, 'server.json'), record);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(isWav(readFileSync(join(s.root, 'a.wav')))).toBe(true);
      expect(r.stderr).not.toMatch(/Start|EADDRINUSE/);
      const signed = (JSON.parse(r.stdout) as { audio_url: string }).audio_url;
      expect((await fetch(signed)).status).toBe(200);
    } finally {
      await cli(s, ['serve', 'stop']);
      s.cleanup();
    }
  }, 180_000);

  it('re-provisions the key when the data dir was wiped, and restarts an auto-started service of another version', async () => {
    const { sb: s, dataDir: dd } = emptyHome();
    // A copy of this package that says it is another version: its own dist/ so VERSION reads its package.json.
    const pkg = join(s.root, 'old-voxctl');
    const repo = join(import.meta.dirname, '../..');
    mkdirSync(pkg);
    cpSync(join(repo, 'dist'), join(pkg, 'dist'), { recursive: true });
    cpSync(join(repo, 'bin'), join(pkg, 'bin'), { recursive: true });
    symlinkSync(join(repo, 'node_modules'), join(pkg, 'node_modules'));
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ ...manifest, version: '0.0.1-old' }));
    try {
      await waitForFreePort();
      expect((await cli(s, ['whoami', '--json'], { timeout: 90_000 })).exitCode).toBe(0);
      expect((await cli(s, ['serve', 'stop'])).exitCode).toBe(0);
      rmSync(dd, { recursive: true, force: true });
      // Before: the stale stored key answered 401 forever.
      const wiped = await cli(s, ['whoami'], { timeout: 90_000 });
      expect(wiped.exitCode, wiped.stderr).toBe(0);
      expect(wiped.stderr).toContain('replaced its stored key');

      expect((await cli(s, ['serve', 'stop'])).exitCode).toBe(0);
      const old = await execa(process.execPath, [join(pkg, 'bin/voxctl.js'), 'whoami', '--json'], { env: s.env, extendEnv: false, reject: false, cwd: s.root, timeout: 90_000 });
      expect(old.exitCode, old.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(dd, 'server.json'), 'utf8'))).toMatchObject({ version: '0.0.1-old' });
      const now = await cli(s, ['whoami'], { timeout: 90_000 });
      expect(now.exitCode, now.stderr).toBe(0);
      expect(now.stderr).toContain(`Restarting the local service (voxctl 0.0.1-old → ${manifest.version})`);
      const status = JSON.parse((await cli(s, ['serve', 'status', '--json'])).stdout) as { version: string; autostarted: boolean };
      expect(status).toMatchObject({ version: manifest.version, autostarted: true });
      const doctor = JSON.parse((await cli(s, ['doctor', '--json'])).stdout) as { checks: { check: string; status: string }[] };
      expect(doctor.checks.find((c) => c.check === 'local service')).toMatchObject({ status: 'ok' });
    } finally {
      await cli(s, ['serve', 'stop']);
      s.cleanup();
    }
  }, 300_000);
});
