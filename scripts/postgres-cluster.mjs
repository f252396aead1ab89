// A throw-away PostgreSQL server for the tests (test/setup/postgres.global.ts) and bench/scale.mjs.
// Plain JavaScript so the benchmarks can use it without a build; types in postgres-cluster.d.mts.
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';


/** The exact command that installs the server binaries the tests start (DESIGN §9.7). */
export const POSTGRES_INSTALL = 'apt-get install -y --no-install-recommends postgresql';

/** The folder with `initdb` and `pg_ctl`: Debian keeps them per version under /usr/lib/postgresql. */
export function postgresBinDir() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });
}

/** The account the server runs as: PostgreSQL refuses to run as root, so root hands it to `postgres`/`nobody`. */
async function serverAccount() {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const r = await execa('id', ['-u', name], { reject: false });
    if (r.exitCode === 0) {
      const gid = await execa('id', ['-g', name]);
      return { uid: Number(r.stdout), gid: Number(gid.stdout) };
    }
  }
  throw new Error('Running as root, but no unprivileged account (postgres, nobody) to run PostgreSQL as');
}

/**
 * Starts a throw-away PostgreSQL server on a free loopback port: `initdb` into a temp dir (as an
 * unprivileged account when the tests run as root), password authentication, durability off (a test
 * cluster is deleted afterwards). Throws the install command when the binaries are missing.
 */
export async function startPostgresCluster() {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin). Install them: ${POSTGRES_INSTALL}`);
  const account = await serverAccount();
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (account) {
    chmodSync(dir, 0o700);
    chownSync(dir, account.uid, account.gid);
    chownSync(pwfile, account.uid, account.gid);
  }
  const as = account ? { uid: account.uid, gid: account.gid } : {};
  const env = { ...process.env, LC_ALL: 'C', HOME: dir };
  const user = 'voxctl_test';
  await execa(join(bin, 'initdb'), ['-D', data, '-U', user, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-sync'], { ...as, env, cwd: dir });
  const port = await freePort();
  const settings = [
    `-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c max_connections=300',
    '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off', '-c shared_buffers=64MB',
  ].join(' ');
  const start = () => execa(join(bin, 'pg_ctl'), ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', settings], { ...as, env, cwd: dir });
  await start();
  let stopped = false;
  return {
    adminUrl: `postgres://${user}:${password}@127.0.0.1:${port}/postgres`,
    // An outage on demand (tests of how the service behaves while its database is away): stop the
    // server, keep its files, start it again on the same port.
    async pause() {
      await execa(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w'], { ...as, env, cwd: dir });
    },
    async resume() {
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await execa(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w'], { ...as, env, cwd: dir, reject: false });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The connection URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl, name) {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
