import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/postgres.js';
import { TEST_KEY } from '../helpers/server.js';

// DESIGN §14.12: deploy/upgrade.sh, as docs/deploy.md runs it, on two `voxctl serve` processes behind a
// real nginx (Debian's, started unprivileged in its own prefix with the shipped site on loopback ports)
// under a loop of requests: none fails. systemd cannot run here, so `systemctl` is a stand-in on PATH
// that does what the unit does (EnvironmentFile voxctl.env and NAME.env, VOXCTL_DATA_DIR, Type=exec:
// `restart` sends SIGTERM, waits for the exit, starts the process and returns at once). The old and the
// new release are this same build: what is under test is the sequence and the proxy, not the code change.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const SYSTEMCTL = `#!/bin/sh
set -eu
action=$1; name=\${2#voxctl@}
pidfile="$STATE/$name.pid"
alive() { [ -e "/proc/$1" ] && ! grep -q '^[^ ]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
if [ "$action" = restart ] && [ -f "$pidfile" ]; then
  pid=$(cat "$pidfile"); kill -TERM "$pid" 2>/dev/null || true
  while alive "$pid"; do sleep 0.05; done
fi
(
  set -a; . "$ETC/voxctl.env"; . "$ETC/$name.env"; set +a
  VOXCTL_DATA_DIR="$STATE/$name" MALLOC_ARENA_MAX=1 exec node "$LINK/bin/voxctl.js" serve </dev/null >>"$STATE/$name.log" 2>&1
) &
echo $! > "$pidfile"
`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitReady(url: string, log?: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`${url}/health/ready`).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > until) throw new Error(`${url} not ready${log ? `: ${readFileSync(log, 'utf8')}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('deploy/upgrade.sh behind nginx (DESIGN §14.12)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'voxctl-upgrade-'));
  const state = join(tmp, 'state');
  const etc = join(tmp, 'etc');
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterAll(async () => {
    for (const name of ['a', 'b']) {
      try {
        process.kill(Number(readFileSync(join(state, `${name}.pid`), 'utf8')), 'SIGKILL');
      } catch {
        // never started, or gone
      }
    }
    for (const c of cleanups.reverse()) await c();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('restarts both instances one at a time under a request loop: 0 failed requests', { timeout: 240_000 }, async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const [portA, portB, portProxy] = [await freePort(), await freePort(), await freePort()];
    const proxy = `http://127.0.0.1:${portProxy}`;
    for (const d of [state, etc, join(tmp, 'bin'), join(tmp, 'nginx')]) mkdirSync(d, { recursive: true });
    writeFileSync(
      join(etc, 'voxctl.env'),
      `VOXCTL_DATABASE_URL=${database.url}\nVOXCTL_PUBLIC_URL=${proxy}\nVOXCTL_TRUST_PROXY=127.0.0.1\nVOXCTL_BOOTSTRAP_KEY=${TEST_KEY}\n`,
    );
    writeFileSync(join(etc, 'a.env'), `VOXCTL_HOST=127.0.0.1\nVOXCTL_PORT=${portA}\nVOXCTL_WORKERS=1\n`);
    writeFileSync(join(etc, 'b.env'), `VOXCTL_HOST=127.0.0.1\nVOXCTL_PORT=${portB}\nVOXCTL_WORKERS=1\n`);
    writeFileSync(join(tmp, 'bin', 'systemctl'), SYSTEMCTL);
    chmodSync(join(tmp, 'bin', 'systemctl'), 0o755);
    const link = join(tmp, 'current');
    symlinkSync(ROOT, link);
    const env = { STATE: state, ETC: etc, LINK: link, VOXCTL_ETC: etc, VOXCTL_LINK: link, VOXCTL_NODE: process.execPath, PATH: `${join(tmp, 'bin')}:${process.env.PATH}` };

    // The shipped site, its TLS listener swapped for a loopback port and its upstreams for the instances'.
    const site = readFileSync(join(ROOT, 'deploy', 'nginx', 'voxctl.conf'), 'utf8')
      .replace(/listen 443 ssl;\n/, `listen 127.0.0.1:${portProxy};\n`)
      .replace(/^\s*ssl_certificate.*\n/gm, '')
      .replace('127.0.0.1:7731', `127.0.0.1:${portA}`)
      .replace('127.0.0.1:7732', `127.0.0.1:${portB}`);
    expect(site).toContain('proxy_next_upstream error timeout http_502 http_503;');
    const prefix = join(tmp, 'nginx');
    writeFileSync(join(prefix, 'site.conf'), site);
    const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${prefix}/${t};\n`).join('');
    writeFileSync(
      join(prefix, 'nginx.conf'),
      `daemon off;\npid ${prefix}/nginx.pid;\nerror_log ${prefix}/error.log;\nworker_processes 1;\nevents {}\nhttp {\n  access_log ${prefix}/access.log;\n${temps}  include ${prefix}/site.conf;\n}\n`,
    );

    for (const name of ['a', 'b']) await execa('systemctl', ['start', `voxctl@${name}`], { env });
    await waitReady(`http://127.0.0.1:${portA}`, join(state, 'a.log'));
    await waitReady(`http://127.0.0.1:${portB}`, join(state, 'b.log'));
    const nginx: ResultPromise = execa('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')], { reject: false });
    cleanups.push(async () => {
      nginx.kill('SIGTERM');
      await nginx;
    });
    await waitReady(proxy);
    const idsBefore = new Set<string>();
    for (let i = 0; i < 4; i++) idsBefore.add(((await (await fetch(`${proxy}/health`)).json()) as { instance_id: string }).instance_id);
    expect(idsBefore.size).toBe(2);

    // The loop: four clients on keep-alive connections to nginx until the upgrade ends. Three ask for
    // /health (not rate-limited) back to back; one reads the speakers with the key, 2.5 a second (the key's
    // pro tier allows 300 a minute).
    const failures: string[] = [];
    let done = 0;
    let stop = false;
    const idsSeen = new Set<string>();
    const client = async (authenticated: boolean) => {
      while (!stop) {
        const path = authenticated ? '/v1/speakers?limit=5' : '/health';
        try {
          const res = await fetch(`${proxy}${path}`, authenticated ? { headers: { authorization: `Bearer ${TEST_KEY}` } } : {});
          const body = await res.text();
          if (res.status !== 200) failures.push(`${path} ${res.status} ${body.slice(0, 200)}`);
          else if (!authenticated) idsSeen.add((JSON.parse(body) as { instance_id: string }).instance_id);
        } catch (err) {
          failures.push(`${path} ${(err as Error).message}`);
        }
        done++;
        if (authenticated) await new Promise((r) => setTimeout(r, 400));
      }
    };
    const clients = [client(true), client(false), client(false), client(false)];
    const started = Date.now();
    const upgrade = await execa(join(ROOT, 'deploy', 'upgrade.sh'), ['a', 'b'], { env, reject: false });
    const seconds = (Date.now() - started) / 1000;
    stop = true;
    await Promise.all(clients);
    console.log(`upgrade.sh: ${seconds.toFixed(1)} s, ${done} requests through nginx, ${failures.length} failed`);

    expect(upgrade.exitCode, upgrade.stderr).toBe(0);
    expect(upgrade.stderr).toContain('upgrade: voxctl@a back behind');
    expect(upgrade.stderr).toContain('upgrade: done: a b on');
    expect(failures).toEqual([]);
    expect(done).toBeGreaterThan(100);
    // Both instances were restarted (new instance ids answered through nginx), one at a time.
    const idsAfter = [...idsSeen].filter((id) => !idsBefore.has(id));
    expect(idsAfter.length).toBe(2);
    expect(readFileSync(join(state, 'a.log'), 'utf8')).toMatch(/"event":"draining"/);
  });
});
