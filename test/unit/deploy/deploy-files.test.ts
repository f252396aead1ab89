import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { validate } from 'dockerfile-utils';
import { parse } from 'yaml';

// DESIGN §14.9: the deployment files are checked by the tools that will read them (npm test installs
// systemd and nginx-light on Debian; none is skipped silently).
const DEPLOY = fileURLToPath(new URL('../../../deploy/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'voxctl-deploy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('deploy/systemd', () => {
  it('the instance template passes systemd-analyze verify with no warning', async () => {
    // A template is verified through an instance of it.
    const unit = join(tmp, 'voxctl@a.service');
    copyFileSync(join(DEPLOY, 'systemd', 'voxctl@.service'), unit);
    const r = await execa('systemd-analyze', ['verify', unit], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe('');
  });

  it('the instance template is hardened: systemd-analyze security rates it 4.0 or less, the data dir still writable', async () => {
    const unit = join(tmp, 'voxctl@a.service');
    copyFileSync(join(DEPLOY, 'systemd', 'voxctl@.service'), unit);
    const r = await execa('systemd-analyze', ['security', '--offline=true', '--no-pager', unit], { reject: false });
    const exposure = /Overall exposure level for voxctl@a\.service: (\d+\.\d)/.exec(r.stdout + r.stderr);
    expect(exposure, r.stdout + r.stderr).not.toBeNull();
    expect(Number(exposure![1])).toBeLessThanOrEqual(4.0);
    // ProtectSystem=strict leaves only the StateDirectory (the data dir of VOXCTL_DATA_DIR) writable.
    const text = readFileSync(unit, 'utf8');
    expect(text).toMatch(/^StateDirectory=voxctl\/%i$/m);
    expect(text).toMatch(/^Environment=VOXCTL_DATA_DIR=\/var\/lib\/voxctl\/%i$/m);
  });

  it('the example environment files set only variables `voxctl serve` reads', async () => {
    const { SERVE_ENV } = await import('../../../src/cli/serve/serve.js');
    const known = new Set<string>([...Object.values(SERVE_ENV), 'VOXCTL_DATABASE_URL', 'VOXCTL_DATA_DIR']);
    for (const file of ['voxctl.env.example', 'a.env.example', 'b.env.example']) {
      const names = readFileSync(join(DEPLOY, 'systemd', file), 'utf8')
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => l.split('=')[0]!);
      expect(names.length, file).toBeGreaterThan(0);
      for (const n of names) expect(known.has(n), `${file}: ${n}`).toBe(true);
    }
  });
});

describe('deploy/nginx', () => {
  it('both sites pass nginx -t', async () => {
    const key = join(tmp, 'site.key');
    const cert = join(tmp, 'site.pem');
    await execa('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=voxctl.example.com']);
    const site = readFileSync(join(DEPLOY, 'nginx', 'voxctl.conf'), 'utf8')
      .replace('/etc/ssl/certs/voxctl.example.com.pem', cert)
      .replace('/etc/ssl/private/voxctl.example.com.key', key);
    // compose.conf names the compose services; resolve them to loopback for the check.
    const compose = readFileSync(join(DEPLOY, 'nginx', 'compose.conf'), 'utf8').replace(/voxctl-[ab]:7723/g, (m) => (m.startsWith('voxctl-a') ? '127.0.0.1:7741' : '127.0.0.1:7742'));
    for (const [name, body] of [
      ['voxctl.conf', site],
      ['compose.conf', compose.replace('listen 80;', 'listen 127.0.0.1:18080;')],
    ] as const) {
      const conf = join(tmp, `nginx-${name}`);
      const siteFile = join(tmp, name);
      writeFileSync(siteFile, body);
      writeFileSync(conf, `pid ${tmp}/nginx.pid;\nerror_log ${tmp}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${siteFile};\n}\n`);
      const r = await execa('nginx', ['-t', '-c', conf, '-p', tmp], { reject: false });
      expect(r.exitCode, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain('test is successful');
    }
  });
});

describe('docs/deploy.md', () => {
  const guide = readFileSync(join(DEPLOY, '..', 'docs', 'deploy.md'), 'utf8');
  it('lists the shipped nginx site as it is, and upgrades with deploy/upgrade.sh', () => {
    expect(guide).toContain('```nginx\n' + readFileSync(join(DEPLOY, 'nginx', 'voxctl.conf'), 'utf8') + '```');
    expect(guide).toContain('sudo /opt/voxctl-releases/0.5.0/deploy/upgrade.sh a b');
    expect(readFileSync(join(DEPLOY, 'upgrade.sh'), 'utf8')).toContain('sudo /opt/voxctl-releases/0.5.0/deploy/upgrade.sh a b');
  });

  it('keeps the database password in one environment file', () => {
    const files = [...guide.matchAll(/\/etc\/voxctl\/([\w.-]+\.env)\b/g)].map((m) => m[1]!);
    expect(new Set(files.filter((f) => !/^(?:[ab]|NAME)\.env$/.test(f)))).toEqual(new Set(['voxctl.env']));
  });
});

describe('deploy/Dockerfile and compose.yaml', () => {
  it('the Dockerfile lints clean: non-root, a data volume, PocketSphinx from Debian', () => {
    const text = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
    expect(validate(text)).toEqual([]);
    expect(text).toMatch(/^FROM node:\d+-bookworm/m);
    expect(text).toMatch(/^USER voxctl$/m);
    expect(text).toMatch(/^VOLUME \["\/var\/lib\/voxctl"\]$/m);
    expect(text).toMatch(/pocketsphinx pocketsphinx-en-us/);
    // Every path it copies exists in the repository (a renamed folder must not break the image).
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    for (const line of text.split('\n').filter((l) => l.startsWith('COPY '))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const s of sources.filter((p) => !/[[*?]/.test(p))) expect(existsSync(join(root, s)), line).toBe(true);
    }
  });

  it('compose.yaml runs two instances on PostgreSQL behind nginx from the files in deploy/', () => {
    const compose = parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as {
      services: Record<string, { build?: { context: string; dockerfile: string }; volumes?: string[]; env_file?: string; depends_on?: unknown }>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(['nginx', 'postgres', 'voxctl-a', 'voxctl-b']);
    for (const name of ['voxctl-a', 'voxctl-b']) {
      const s = compose.services[name]!;
      expect(s.build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
      expect(s.volumes?.[0]).toMatch(/:\/var\/lib\/voxctl$/);
      expect(s.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    }
    const mounted = compose.services.nginx!.volumes![0]!.split(':')[0]!;
    expect(existsSync(join(DEPLOY, mounted))).toBe(true);
    expect(existsSync(join(DEPLOY, 'compose.env.example'))).toBe(true);
  });
});
