import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// What a newcomer's fresh clone sees from npm: the project's own config, with an empty HOME (no user npmrc)
// and none of the npm_* variables an `npm test` run passes down.
const home = mkdtempSync(join(tmpdir(), 'voxctl-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const newcomerEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && !(k in env) && k !== 'HOME') env[k] = v;
  return env;
};

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  allowScripts: Record<string, boolean>;
};

describe('a clean install', () => {
  it('npm reads the project config without a warning (no unknown key in .npmrc)', async () => {
    const r = await execa('npm', ['config', 'get', 'fund'], { env: newcomerEnv(), extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/npm warn/i);
  });

  it('supports Node 20, 22, 24 and 26', () => {
    for (const major of [20, 22, 24, 26]) expect(pkg.engines.node).toMatch(new RegExp(`\\^${major}\\.`));
  });

  it("builds better-sqlite3 12 in the project's postinstall, not in its own install script", () => {
    expect(pkg.allowScripts['better-sqlite3']).toBe(false);
    expect(pkg.scripts.postinstall).toBe('node scripts/build-sqlite-driver.mjs');
  });

  it('the postinstall is silent and quick when the driver of this Node is in place', async () => {
    const started = Date.now();
    const r = await execa(process.execPath, ['scripts/build-sqlite-driver.mjs'], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('prepare is an incremental build: it finds the build of `npm ci` up to date (what `npx voxctl` reruns)', () => {
    // tsc -b finds its build info up to date; the asset copy and the build record are a few file writes.
    expect(pkg.scripts.prepare).toBe('tsc -b tsconfig.build.json && node scripts/copy-assets.mjs && node scripts/build-info.mjs');
    expect(pkg.scripts.prepare).toBe(pkg.scripts.build);
  });

  // npm 11.16 added allowScripts: `npm link` warned "1 package has install scripts not yet covered by
  // allowScripts: voxctl@0.1.0" (issue 30). The README's way, run in a temporary global prefix.
  const npmVersion = execa('npm', ['--version'], { reject: false }).then((r) => r.stdout.trim().split('.').map(Number));
  it("the README's way to a plain `voxctl` installs without an npm warning", async () => {
    const [major = 0, minor = 0] = await npmVersion;
    const readme = readFileSync('README.md', 'utf8');
    const allowScripts = major > 11 || (major === 11 && minor >= 16);
    const args = allowScripts ? ['i', '-g', '.', '--allow-scripts=.'] : ['i', '-g', '.'];
    expect(readme).toContain('`npm i -g . --allow-scripts=.`');
    const prefix = mkdtempSync(join(tmpdir(), 'voxctl-prefix-'));
    try {
      const env = { ...newcomerEnv(), npm_config_prefix: prefix };
      const r = await execa('npm', [...args, '--offline', '--no-audit', '--no-fund'], { env, extendEnv: false, reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/npm warn/i);
      const version = await execa(join(prefix, 'bin', 'voxctl'), ['--version'], { reject: false });
      expect(version.stdout).toMatch(/^\d+\.\d+\.\d+ /);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  }, 120_000);
});
