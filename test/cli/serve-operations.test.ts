import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/server.js';
import { backendFor } from '../helpers/postgres.js';
import { resolveServeOptions } from '../../src/cli/serve/serve.js';
import { CliError } from '../../src/cli/core/errors.js';

const BIN = fileURLToPath(new URL('../../bin/voxctl.js', import.meta.url));
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'voxctl-ops-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs `voxctl serve` on port 0 with `env`, calls `work(url)`, stops it with SIGTERM; stdout and stderr. */
async function withServe(args: string[], env: Record<string, string>, work: (url: string) => Promise<void>) {
  const dataDir = tempDir();
  const { databaseUrl } = await backendFor(dataDir);
  const proc = execa('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...args], {
    env: { FORCE_COLOR: '0', VOXCTL_BOOTSTRAP_KEY: TEST_KEY, ...(databaseUrl ? { VOXCTL_DATABASE_URL: databaseUrl } : {}), ...env },
    reject: false,
    stdin: 'ignore',
    // A drain on a loaded machine may take seconds: no SIGKILL after execa's default 5 s.
    forceKillAfterDelay: false,
  });
  let stderr = '';
  let stdout = '';
  proc.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  // This test once stalled for 23 s and once past its 60 s on a loaded CI machine, with nothing to say
  // where: each step now has its own deadline, and missing it fails with the server's own lines.
  const within = async <T>(ms: number, step: string, promise: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${step}: not done within ${ms} ms\n--- stderr\n${stderr}\n--- stdout (last 4 KB)\n${stdout.slice(-4096)}`)), ms);
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  const listening = new Promise<string>((resolve, reject) => {
    proc.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void proc.finally(() => reject(new Error(`serve ended: ${stderr}`)));
  });
  const url = await within(25_000, 'voxctl serve starting', listening);
  try {
    await within(25_000, 'the requests to voxctl serve', work(url));
  } finally {
    proc.kill('SIGTERM');
  }
  try {
    const done = await within(25_000, 'voxctl serve stopping after SIGTERM', proc);
    return { stdout: String(done.stdout), stderr: String(done.stderr) };
  } finally {
    proc.kill('SIGKILL');
  }
}

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('voxctl serve as an operator runs it (DESIGN §14.5, §14.6)', () => {
  it('takes every setting from VOXCTL_* variables, logs only JSON lines with user and key ids, never a signature', async () => {
    let audioUrl = '';
    let signed = '';
    let meRequestId = '';
    const { stdout, stderr } = await withServe([], { VOXCTL_LOG_LEVEL: 'info', VOXCTL_PUBLIC_URL: 'https://voxctl.example.test', VOXCTL_WORKERS: '1' }, async (url) => {
      const auth = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };
      const meRes = await fetch(`${url}/v1/users/me`, { headers: auth });
      expect(meRes.status).toBe(200);
      meRequestId = meRes.headers.get('x-request-id')!;
      const speakers = (await (await fetch(`${url}/v1/speakers?limit=1`)).json()) as { items: { id: string }[] };
      const res = await fetch(`${url}/v1/tts/synthesize`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'Hello there.', speaker_id: speakers.items[0]!.id }) });
      expect(res.status, await res.clone().text()).toBe(200);
      audioUrl = ((await res.json()) as { audio_url: string }).audio_url;
      // VOXCTL_PUBLIC_URL is the base of the URLs handed out.
      expect(audioUrl.startsWith('https://voxctl.example.test/v1/audio/')).toBe(true);
      signed = new URL(audioUrl).searchParams.get('sig')!;
      const local = new URL(audioUrl);
      expect((await fetch(`${url}${local.pathname}${local.search}`)).status).toBe(200);
    });
    const logs = jsonLines(stdout);
    const lifecycle = jsonLines(stderr);
    expect(lifecycle.map((l) => l.event)).toEqual(expect.arrayContaining(['listening', 'draining', 'stopped']));
    const me = logs.find((l) => l.msg === 'request completed' && l.user_id !== undefined);
    expect(me).toMatchObject({ user_id: expect.stringMatching(/^usr_/), key_id: expect.any(String) });
    // One line per request (DESIGN §14.16), naming it by the id its response carried.
    expect(me).toMatchObject({ request_id: meRequestId, method: 'GET', route: '/v1/users/me', status: 200 });
    expect(logs.filter((l) => l.reqId === meRequestId).map((l) => l.msg)).toEqual(['request completed']);
    const audioLine = logs.find((l) => typeof l.url === 'string' && l.url.startsWith('/v1/audio/'));
    expect(audioLine!.url).toContain('sig=[redacted]');
    expect(stdout + stderr).not.toContain(signed);
    expect(stdout + stderr).not.toContain(TEST_KEY);
  });

  it('stops within its drain time when a client never reads the response it asked for', async () => {
    // A WAV far larger than the socket buffers, requested and never read: the response cannot finish.
    const text = 'This sentence is long enough to make an audio file larger than any socket buffer. '.repeat(12);
    const unread: Response[] = [];
    const { stderr } = await withServe(['--workers', '1'], {}, async (url) => {
      const auth = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };
      const speakers = (await (await fetch(`${url}/v1/speakers?limit=1`)).json()) as { items: { id: string }[] };
      const res = await fetch(`${url}/v1/tts/synthesize`, { method: 'POST', headers: auth, body: JSON.stringify({ text, speaker_id: speakers.items[0]!.id }) });
      expect(res.status, await res.clone().text()).toBe(200);
      const audio = await fetch(((await res.json()) as { audio_url: string }).audio_url);
      expect(audio.status).toBe(200);
      expect(Number(audio.headers.get('content-length'))).toBeGreaterThan(1_000_000);
      unread.push(audio); // kept reachable: collecting it would let the client close the connection itself
    });
    // withServe gives the stop 25 s: the server cuts the held connection after DRAIN_CONNECTIONS_MS.
    expect(stderr).toContain('stopped');
    expect(unread).toHaveLength(1);
  });

  it('a flag wins over its variable', async () => {
    const { stdout } = await withServe(['--log-level', 'silent'], { VOXCTL_LOG_LEVEL: 'info' }, async (url) => {
      expect((await fetch(`${url}/health/live`)).status).toBe(200);
    });
    expect(stdout.trim()).toBe('');
  });

  it('a bad variable is a usage error naming it (exit 2), before anything starts', async () => {
    const r = await execa('node', [BIN, 'serve', '--port', '0', '--data-dir', tempDir()], { env: { VOXCTL_WORKERS: 'many' }, reject: false, stdin: 'ignore' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("VOXCTL_WORKERS must be an integer in 0..256, got 'many'");
  });

  // DESIGN §14.15: settings are checked before anything starts, naming the flag or the variable the value came from.
  const badSettings: [string, string[], Record<string, string>, string][] = [
    ['a relative --public-url', ['--public-url', 'not-a-url'], {}, 'Invalid --public-url: not-a-url'],
    ['a VOXCTL_PUBLIC_URL that is not one', [], { VOXCTL_PUBLIC_URL: 'not-a-url' }, 'Invalid VOXCTL_PUBLIC_URL: not-a-url'],
    ['a --public-url of another scheme', ['--public-url', 'ftp://audio.example.com/'], {}, 'Invalid --public-url: ftp://audio.example.com/'],
    ['a --public-url with a query', ['--public-url', 'https://audio.example.com/v?x=1'], {}, 'Invalid --public-url: https://audio.example.com/v?x=1'],
    ['a VOXCTL_PUBLIC_URL with a fragment', [], { VOXCTL_PUBLIC_URL: 'https://audio.example.com/#top' }, 'Invalid VOXCTL_PUBLIC_URL: https://audio.example.com/#top'],
    ['a --lease-seconds below 10', ['--lease-seconds', '5'], {}, "--lease-seconds must be an integer in 10..3600, got '5'"],
    ['a VOXCTL_LEASE_SECONDS above 3600', [], { VOXCTL_LEASE_SECONDS: '3601' }, "VOXCTL_LEASE_SECONDS must be an integer in 10..3600, got '3601'"],
    ['a VOXCTL_LEASE_SECONDS that is no number', [], { VOXCTL_LEASE_SECONDS: 'soon' }, "VOXCTL_LEASE_SECONDS must be an integer in 10..3600, got 'soon'"],
    ['an --audio-retention-days of 0', ['--audio-retention-days', '0'], {}, "--audio-retention-days must be an integer in 1..36500, got '0'"],
    ['a VOXCTL_AUDIO_RETENTION_DAYS that is no number', [], { VOXCTL_AUDIO_RETENTION_DAYS: 'forever' }, "VOXCTL_AUDIO_RETENTION_DAYS must be an integer in 1..36500, got 'forever'"],
  ];
  it.each(badSettings)('%s is a usage error (exit 2) naming its source', async (_, args, env, message) => {
    const r = await execa('node', [BIN, 'serve', '--port', '0', '--data-dir', tempDir(), ...args], { env: { FORCE_COLOR: '0', ...env }, reject: false, stdin: 'ignore' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('VOXCTL_DETACH=1 is --detach: the command returns with the URL, the service runs on until `serve stop`', async () => {
    const dataDir = tempDir();
    const { createServer } = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const env = { FORCE_COLOR: '0', VOXCTL_DETACH: '1', VOXCTL_BOOTSTRAP_KEY: TEST_KEY, VOXCTL_LOG_LEVEL: 'warn' };
    const r = await execa('node', [BIN, 'serve', '--port', String(port), '--data-dir', dataDir], { env, reject: false, stdin: 'ignore', timeout: 90_000 });
    try {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
    } finally {
      await execa('node', [BIN, 'serve', 'stop', '--data-dir', dataDir], { env, reject: false, stdin: 'ignore' });
    }
    const bad = await execa('node', [BIN, 'serve', '--port', '0', '--data-dir', tempDir()], { env: { VOXCTL_DETACH: 'maybe' }, reject: false, stdin: 'ignore' });
    expect([bad.exitCode, bad.stderr]).toEqual([2, expect.stringContaining("VOXCTL_DETACH must be true or false, got 'maybe'")]);
  });

  it('uses the lease length it is given, from the flag or its variable (default 60 s)', async () => {
    const leaseOf = (stderr: string) => (JSON.parse(stderr.split('\n').find((l) => l.includes('"event":"listening"'))!) as { lease_seconds: number }).lease_seconds;
    const health = async (url: string) => expect((await fetch(`${url}/health/live`)).status).toBe(200);
    expect(leaseOf((await withServe(['--lease-seconds', '15'], {}, health)).stderr)).toBe(15);
    expect(leaseOf((await withServe([], { VOXCTL_LEASE_SECONDS: '20' }, health)).stderr)).toBe(20);
    expect(leaseOf((await withServe([], {}, health)).stderr)).toBe(60);
  }, 90_000);
});

describe('resolveServeOptions', () => {
  const base = { VOXCTL_DATA_DIR: '/srv/voxctl' };
  it('maps each variable to its option', () => {
    const o = resolveServeOptions(
      {},
      {
        ...base,
        VOXCTL_HOST: '0.0.0.0',
        VOXCTL_PORT: '8080',
        VOXCTL_CONFIG: '/etc/voxctl.json',
        VOXCTL_PUBLIC_URL: 'https://v.example',
        VOXCTL_ALLOW_PRIVATE_AUDIO_URLS: 'true',
        VOXCTL_WORKERS: '0',
        VOXCTL_DATABASE_URL: 'postgres://u:p@db:5432/voxctl',
        VOXCTL_AUDIO_STORE: 's3://bucket/prefix',
        VOXCTL_S3_ENDPOINT: 'http://127.0.0.1:9000',
        VOXCTL_TRUST_PROXY: '127.0.0.1,10.0.0.0/8',
        VOXCTL_METRICS_TOKEN: 'tok',
        VOXCTL_LOG_LEVEL: 'warn',
        VOXCTL_AUDIO_RETENTION_DAYS: '90',
        AWS_DEFAULT_REGION: 'eu-central-1',
      },
    );
    expect(o).toMatchObject({
      dataDir: '/srv/voxctl',
      host: '0.0.0.0',
      port: 8080,
      configPath: '/etc/voxctl.json',
      publicUrl: 'https://v.example',
      allowPrivateAudioUrls: true,
      ttsWorkers: 0,
      audioStore: 's3://bucket/prefix',
      s3Endpoint: 'http://127.0.0.1:9000',
      trustProxy: ['127.0.0.1', '10.0.0.0/8'],
      metricsToken: 'tok',
      logLevel: 'warn',
      audioRetentionDays: 90,
      // AWS's own variable for the bucket's region, read here with the rest (DESIGN §14.15), AWS_REGION first.
      s3Region: 'eu-central-1',
    });
    expect(resolveServeOptions({ audioStore: 's3://bucket/prefix', databaseUrl: 'postgres://db/v' }, { ...base, AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'eu-central-1' }).s3Region).toBe('us-west-2');
  });

  it('flags win; VOXCTL_HOST/PORT win over VOXCTL_LISTEN; bad values name the variable', () => {
    expect(resolveServeOptions({ workers: 3, host: '127.0.0.2' }, { ...base, VOXCTL_WORKERS: '1', VOXCTL_HOST: '0.0.0.0' })).toMatchObject({ ttsWorkers: 3, host: '127.0.0.2' });
    expect(resolveServeOptions({}, { ...base, VOXCTL_LISTEN: '0.0.0.0:9000', VOXCTL_PORT: '9001' })).toMatchObject({ host: '0.0.0.0', port: 9001 });
    for (const [env, message] of [
      [{ VOXCTL_ALLOW_PRIVATE_AUDIO_URLS: 'maybe' }, "VOXCTL_ALLOW_PRIVATE_AUDIO_URLS must be true or false, got 'maybe'"],
      [{ VOXCTL_PORT: '70000' }, "VOXCTL_PORT must be 0..65535, got '70000'"],
      [{ VOXCTL_LOG_LEVEL: 'loud' }, "VOXCTL_LOG_LEVEL must be one of fatal, error, warn, info, debug, silent, got 'loud'"],
    ] as const) {
      expect(() => resolveServeOptions({}, { ...base, ...env })).toThrow(CliError);
      expect(() => resolveServeOptions({}, { ...base, ...env })).toThrow(message);
    }
    expect(resolveServeOptions({}, { ...base, VOXCTL_ALLOW_PRIVATE_AUDIO_URLS: '0' }).allowPrivateAudioUrls).toBe(false);
  });
});
