import { existsSync, readFileSync } from 'node:fs';
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
