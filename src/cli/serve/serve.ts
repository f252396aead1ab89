import { existsSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Command } from '../core/commander.js';
import { Option } from '../core/commander.js';
import { resolveDataDir } from '../../shared/paths.js';
import type { ServerOptions } from '../../server/options.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../shared/constants.js';
import { CliError, usageError } from '../core/errors.js';
import { databaseUrlProblem, redactDatabaseUrl } from '../../shared/database-url.js';
import { s3UrlProblem } from '../../shared/s3-url.js';
import { parseTrustedProxies } from '../../shared/proxy-addresses.js';
import type { HandlerContext } from '../core/context.js';
import { isAlive, localFiles, logTail, probeHealth, readServerRecord, startDetached, stopLocal, wasAutostarted } from '../core/local-server.js';
import { styled } from '../core/output.js';
import { terminalText } from '../core/safe-text.js';
import { outputFor } from '../core/session.js';
import { examples, flagsOf, intOption, readStdin } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

interface ServeFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  config?: string;
  publicUrl?: string;
  allowPrivateAudioUrls?: boolean;
  databaseUrl?: string;
  workers?: number;
  leaseSeconds?: number;
  audioRetentionDays?: number;
  audioStore?: string;
  s3Endpoint?: string;
  trustProxy?: string;
  metricsToken?: string;
  logLevel?: string;
  detach?: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;

/**
 * Each `serve` flag's environment variable (DESIGN §14.6): `VOXCTL_` + the flag in upper snake case, for an
 * `EnvironmentFile` or a container. `--data-dir` and `--database-url` are read where they always were.
 */
export const SERVE_ENV = {
  host: 'VOXCTL_HOST',
  port: 'VOXCTL_PORT',
  config: 'VOXCTL_CONFIG',
  publicUrl: 'VOXCTL_PUBLIC_URL',
  allowPrivateAudioUrls: 'VOXCTL_ALLOW_PRIVATE_AUDIO_URLS',
  workers: 'VOXCTL_WORKERS',
  leaseSeconds: 'VOXCTL_LEASE_SECONDS',
  audioRetentionDays: 'VOXCTL_AUDIO_RETENTION_DAYS',
  audioStore: 'VOXCTL_AUDIO_STORE',
  s3Endpoint: 'VOXCTL_S3_ENDPOINT',
  trustProxy: 'VOXCTL_TRUST_PROXY',
  metricsToken: 'VOXCTL_METRICS_TOKEN',
  logLevel: 'VOXCTL_LOG_LEVEL',
  detach: 'VOXCTL_DETACH',
} as const satisfies Partial<Record<keyof ServeFlags, string>>;

/** The lease length's bounds in seconds (DESIGN §14.15): long enough to outlive a slow item, short enough to take over. */
const LEASE_SECONDS = { min: 10, max: 3600 } as const;

/** Days audio may be kept for (`--audio-retention-days`): a day at least, a hundred years at most. */
const RETENTION_DAYS = { min: 1, max: 36_500 } as const;

/** An absolute http(s) URL without query or fragment (DESIGN §14.15): the base of every audio URL handed out. */
function isPublicUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '' && !/[?#]/.test(value);
}

/** A boolean variable: 1/true/yes or 0/false/no (anything else is a usage error naming the variable). */
function envBoolean(name: string, value: string): boolean {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw usageError(`${name} must be true or false, got '${value}'`);
}

/** The flags with every unset one taken from its variable (a flag wins over its variable). */
export function serveFlagsWithEnv(flags: ServeFlags, env: NodeJS.ProcessEnv): ServeFlags {
  const value = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const out: ServeFlags = { ...flags };
  for (const key of ['host', 'port', 'config', 'publicUrl', 'audioStore', 's3Endpoint', 'trustProxy', 'metricsToken'] as const) {
    out[key] ??= value(SERVE_ENV[key]);
  }
  if (out.workers === undefined && value(SERVE_ENV.workers) !== undefined) out.workers = intOption(SERVE_ENV.workers, 0, 256)(value(SERVE_ENV.workers)!);
  if (out.leaseSeconds === undefined && value(SERVE_ENV.leaseSeconds) !== undefined) {
    out.leaseSeconds = intOption(SERVE_ENV.leaseSeconds, LEASE_SECONDS.min, LEASE_SECONDS.max)(value(SERVE_ENV.leaseSeconds)!);
  }
  if (out.audioRetentionDays === undefined && value(SERVE_ENV.audioRetentionDays) !== undefined) {
    out.audioRetentionDays = intOption(SERVE_ENV.audioRetentionDays, RETENTION_DAYS.min, RETENTION_DAYS.max)(value(SERVE_ENV.audioRetentionDays)!);
  }
  if (out.allowPrivateAudioUrls === undefined && value(SERVE_ENV.allowPrivateAudioUrls) !== undefined) {
    out.allowPrivateAudioUrls = envBoolean(SERVE_ENV.allowPrivateAudioUrls, value(SERVE_ENV.allowPrivateAudioUrls)!);
  }
  // The detached service itself runs in the foreground of its own process, whatever its environment says.
  if (out.detach === undefined && value(SERVE_ENV.detach) !== undefined && env.VOXCTL_SERVE_DETACHED !== '1') out.detach = envBoolean(SERVE_ENV.detach, value(SERVE_ENV.detach)!);
  if (out.logLevel === undefined && value(SERVE_ENV.logLevel) !== undefined) {
    const level = value(SERVE_ENV.logLevel)!;
    if (!(LOG_LEVELS as readonly string[]).includes(level)) throw usageError(`${SERVE_ENV.logLevel} must be one of ${LOG_LEVELS.join(', ')}, got '${level}'`);
    out.logLevel = level;
  }
  return out;
}

/**
 * Flags > their variables (DESIGN §14.6) > VOXCTL_LISTEN (`host:port`) > defaults; never the client's
 * VOXCTL_BASE_URL (DESIGN §7).
 */
export function resolveServeOptions(given: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServerOptions {
  const flags = serveFlagsWithEnv(given, env);
  let host = DEFAULT_HOST;
  let port = DEFAULT_PORT;
  if (env.VOXCTL_LISTEN) {
    const m = /^(.*):(\d+)$/.exec(env.VOXCTL_LISTEN);
    if (!m) throw usageError(`VOXCTL_LISTEN must be host:port, got '${env.VOXCTL_LISTEN}'`);
    host = m[1]!.replace(/^\[(.*)\]$/, '$1') || DEFAULT_HOST;
    port = Number(m[2]);
  }
  if (flags.host) host = flags.host;
  if (flags.port !== undefined) {
    if (!/^\d+$/.test(flags.port) || Number(flags.port) > 65535) {
      throw usageError(`${given.port === undefined ? SERVE_ENV.port : '--port'} must be 0..65535, got '${flags.port}'`);
    }
    port = Number(flags.port);
  }
  const databaseUrl = flags.databaseUrl ?? (env.VOXCTL_DATABASE_URL || undefined);
  if (databaseUrl !== undefined) {
    const problem = databaseUrlProblem(databaseUrl);
    if (problem) throw usageError(problem);
  }
  if (flags.audioStore !== undefined) {
    if (!databaseUrl) throw usageError('--audio-store needs --database-url (with SQLite, audio lives in the data dir)');
    const problem = s3UrlProblem(flags.audioStore);
    if (problem) throw usageError(problem);
  }
  if (flags.s3Endpoint !== undefined && flags.audioStore === undefined) throw usageError('--s3-endpoint needs --audio-store s3://bucket/prefix');
  if (flags.publicUrl !== undefined && !isPublicUrl(flags.publicUrl)) {
    throw usageError(`Invalid ${given.publicUrl === undefined ? SERVE_ENV.publicUrl : '--public-url'}: ${flags.publicUrl}`);
  }
  let trustProxy: string[] | undefined;
  if (flags.trustProxy !== undefined) {
    const parsed = parseTrustedProxies(flags.trustProxy);
    if ('problem' in parsed) throw usageError(parsed.problem);
    trustProxy = parsed.proxies;
  }
  return {
    dataDir: resolveDataDir(flags.dataDir, env),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(flags.workers !== undefined ? { ttsWorkers: flags.workers } : {}),
    ...(flags.leaseSeconds !== undefined ? { leaseSeconds: flags.leaseSeconds } : {}),
    ...(flags.audioRetentionDays !== undefined ? { audioRetentionDays: flags.audioRetentionDays } : {}),
    ...(flags.audioStore ? { audioStore: flags.audioStore } : {}),
    ...(flags.s3Endpoint ? { s3Endpoint: flags.s3Endpoint } : {}),
    ...(flags.audioStore && (env.AWS_REGION || env.AWS_DEFAULT_REGION) ? { s3Region: env.AWS_REGION || env.AWS_DEFAULT_REGION } : {}),
    ...(trustProxy ? { trustProxy } : {}),
    ...(flags.metricsToken ? { metricsToken: flags.metricsToken } : {}),
    host,
    port,
    publicUrl: flags.publicUrl,
    configPath: flags.config,
    allowPrivateAudioUrls: flags.allowPrivateAudioUrls ?? false,
    bootstrapKey: env.VOXCTL_BOOTSTRAP_KEY,
    ...(env.VOXCTL_TEST_REPLAY_TRANSACTIONS === '1' ? { replayTransactions: true } : {}),
    logLevel: flags.logLevel ?? 'info',
  };
}

/** `voxctl serve` (foreground, or `--detach`), `serve status`, `serve stop`, `serve logs`. */
export function registerServe(program: Command, ctx: HandlerContext): void {
  const serve = serveCommand(program).action(async (flags: ServeFlags & { detach?: boolean; bootstrapKeyStdin?: boolean }, cmd: Command) => runServe(ctx, flags, cmd));
  registerStatus(serve, ctx);
  registerRestart(serve, ctx);
  registerStop(serve, ctx);
  registerLogs(serve, ctx);
}

/** `serve` itself: its flags (each with its VOXCTL_ variable) and help. */
function serveCommand(program: Command): Command {
  return program
    .command('serve')
    .description(describeCommand('serve'))
    .option('--host <host>', `address to bind (default ${DEFAULT_HOST}, or VOXCTL_LISTEN)`)
    .option('--port <port>', `port to bind (default ${DEFAULT_PORT}, or VOXCTL_LISTEN)`)
    .option('--data-dir <dir>', 'data folder (default VOXCTL_DATA_DIR or the OS user data dir)')
    .option('--config <file>', 'STT provider bindings (default {data dir}/voxctl.config.json)')
    .option('--public-url <url>', 'base of the audio URLs handed out (default: from the request)')
    .option('--allow-private-audio-urls', 'let transcription fetch loopback/private URLs')
    .option('--database-url <url>', 'PostgreSQL shared by several instances (default VOXCTL_DATABASE_URL; none: SQLite in the data dir)')
    .option('--workers <n>', 'engine worker threads (default: CPU count; 0 = API-only, claims no queued work)', intOption('--workers', 0, 256))
    .option('--lease-seconds <n>', `how long a claimed work item stays this instance's (${LEASE_SECONDS.min}..${LEASE_SECONDS.max}, default 60)`, intOption('--lease-seconds', LEASE_SECONDS.min, LEASE_SECONDS.max))
    .option(
      '--audio-retention-days <days>',
      `delete generated audio and single uploads after this many days (${RETENTION_DAYS.min}..${RETENTION_DAYS.max}; default: keep; corpora stay until deleted)`,
      intOption('--audio-retention-days', RETENTION_DAYS.min, RETENTION_DAYS.max),
    )
    .option('--audio-store <url>', 'with --database-url: keep audio in s3://bucket/prefix (AWS_* variables) instead of the database')
    .option('--s3-endpoint <url>', 'endpoint of an S3-compatible store for --audio-store')
    .option('--trust-proxy <addresses>', 'reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For/-Proto/-Host to believe')
    .option('--metrics-token <token>', 'let any caller presenting this Bearer token read /metrics (default: loopback callers only)')
    .option('-d, --detach', 'start in the background (log in {data dir}/serve.log) and return')
    // How a detached start hands over VOXCTL_BOOTSTRAP_KEY without putting it in the child's environment.
    .addOption(new Option('--bootstrap-key-stdin', 'read the bootstrap key from stdin').hideHelp())
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS))
    .addHelpText(
      'after',
      '\nEvery flag has an environment variable: VOXCTL_ + the flag in upper snake case (--workers → VOXCTL_WORKERS,\n' +
        '--public-url → VOXCTL_PUBLIC_URL, --trust-proxy → VOXCTL_TRUST_PROXY, ...); a flag wins over its variable.\n' +
        '\nExamples:\n  $ voxctl serve --port 7723\n  $ VOXCTL_LISTEN=0.0.0.0:8080 voxctl serve --data-dir /srv/voxctl\n' +
        '  $ voxctl serve --detach && voxctl serve status\n  $ voxctl serve logs --lines 100\n  $ voxctl serve stop',
    );
}

/** `serve`: checks the options, then starts the service detached, or in the foreground until SIGINT/SIGTERM. */
async function runServe(ctx: HandlerContext, flags: ServeFlags & { detach?: boolean; bootstrapKeyStdin?: boolean }, cmd: Command): Promise<void> {
  const options = resolveServeOptions(flags, ctx.env.raw());
  if (flags.bootstrapKeyStdin) options.bootstrapKey = (await readStdin(ctx)).trim() || undefined;
  // A detached start sends this process's output to serve.log; in the foreground there is no log file.
  if (ctx.env.raw().VOXCTL_SERVE_DETACHED === '1') options.logFile = localFiles(options.dataDir).log;
  if (serveFlagsWithEnv(flags, ctx.env.raw()).detach) return detach(ctx, cmd, options);
  // Before the server's modules load: they are the first large allocation of this process.
  (await import('../../server/process-tuning.js')).tuneServiceProcess();
  const { startServer } = await import('../../server/start.js');
  // Start-up failures (a port in use, an unreachable or newer database, a bad config file) are the
  // operator's to fix: said plainly, like a detached start's, not as an unexpected error.
  const server = await startServer(options).catch((e: unknown) => {
    throw new CliError(`The service did not start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  });
  const store = options.databaseUrl ? redactDatabaseUrl(options.databaseUrl) : options.dataDir;
  lifecycle('listening', `voxctl service listening on ${server.url} (data: ${store})`, { url: server.url, data: store, instance_id: server.runtime.instanceId, lease_seconds: server.runtime.leaseMs / 1000 });
  if (server.runtime.bootstrap) announceBootstrap(ctx, cmd, server.runtime.bootstrap, options.dataDir);
  await untilSignal(server);
}

/** The bootstrap user's key: shown once on the operator's terminal, else only the file that holds it named. */
function announceBootstrap(ctx: HandlerContext, cmd: Command, bootstrap: { key: string; warning?: string }, dataDir: string): void {
  const { key, warning } = bootstrap;
  if (warning) lifecycle(undefined, `Warning: ${warning}`, {}, 40);
  // Shown once on the operator's own terminal; a log file or the journal (systemd, a container) is no
  // place for a key, so there the line names the file that holds it (DESIGN §14.5).
  const file = `${dataDir}/bootstrap-key`;
  const onTerminal = process.stderr.isTTY === true && ctx.env.raw().VOXCTL_SERVE_DETACHED !== '1';
  const message = `Created user admin@localhost (pro). API key (shown once, also in ${file}): ${key}`;
  // Under --json every stderr line is JSON (DESIGN §7), the key's line too.
  if (onTerminal && flagsOf(cmd).json) lifecycle('bootstrap', message, { key_file: file, key });
  else if (onTerminal) process.stderr.write(`${message}\n`);
  else lifecycle('bootstrap', `Created user admin@localhost (pro). API key written to ${file}`, { key_file: file });
}

/** Resolves when SIGINT or SIGTERM has drained and closed the server (one lifecycle line each). */
async function untilSignal(server: { close(): Promise<void> }): Promise<void> {
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      const started = Date.now();
      lifecycle('draining', `${signal}: finishing requests and claimed work, then stopping`, { signal });
      void server.close().then(() => {
        lifecycle('stopped', 'voxctl service stopped', { drain_ms: Date.now() - started });
        resolve();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** `serve status`: is the local service running? (exit 1 when not). */
function registerStatus(serve: Command, ctx: HandlerContext): void {
  examples(serve.command('status').description('Is the local service running? (exit 1 when not)'), ['voxctl serve status', 'voxctl serve status --json']).action(
    async (_o, cmd: Command) => {
      const flags = flagsOf<ServeFlags>(cmd);
      const out = outputFor(ctx, flags);
      const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
      const rec = readServerRecord(dataDir);
      const alive = rec !== undefined && isAlive(rec.pid);
      const health = alive ? await probeHealth(rec.url, 3000) : undefined;
      const status = {
        running: Boolean(health),
        pid: alive ? rec.pid : null,
        url: rec?.url ?? null,
        version: health?.version ?? null,
        status: health?.status ?? null,
        autostarted: alive ? wasAutostarted(dataDir, rec.pid) : false,
        database: rec?.database ?? null,
        data_dir: dataDir,
        // Records of older versions have no `log`: they were detached or auto-started, so the file is theirs.
        log: rec === undefined ? null : rec.log === undefined ? localFiles(dataDir).log : rec.log,
      };
      if (out.json) out.printJson(status);
      else if (status.running) {
        out.fields([
          ['status', styled(out.color.green(`running (${terminalText(String(status.status))})`))],
          ['url', status.url],
          ['pid', status.pid],
          ['version', status.version],
          ['database', status.database ?? 'sqlite'],
          ['data_dir', dataDir],
          ['log', status.log ?? 'none (a foreground instance logs to its stdout)'],
        ]);
      } else {
        out.write(`not running${alive ? ` (pid ${rec.pid} does not answer at ${rec.url})` : ''}; data dir ${dataDir}\n`);
      }
      if (!status.running) throw new CliError('The local service is not running', { hint: 'start it with `voxctl serve --detach`' });
    },
  );
}

/** `serve restart`: stop the local service and start it again detached, checked first. */
function registerRestart(serve: Command, ctx: HandlerContext): void {
  examples(
    serve.command('restart').description('Stop the local service and start it again detached (same host and port)'),
    ['voxctl serve restart', 'voxctl serve restart --data-dir /srv/voxctl'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<ServeFlags>(cmd);
    const out = outputFor(ctx, flags);
    const options = resolveServeOptions(flags, ctx.env.raw());
    const rec = readServerRecord(options.dataDir);
    const running = rec !== undefined && isAlive(rec.pid);
    // Check first, then stop: a config the new service would refuse must not leave nothing running.
    const { checkStartOptions } = await import('../../server/start.js');
    try {
      await checkStartOptions(options);
    } catch (e) {
      throw new CliError(`Not restarted: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
        hint: running ? `the running service (pid ${rec.pid}) is untouched; fix that and run \`voxctl serve restart\` again` : 'fix that and run `voxctl serve restart` again',
      });
    }
    // An auto-started service stays one, so the CLI may restart it again on a version change.
    const autostarted = running && wasAutostarted(options.dataDir, rec.pid);
    if (running) await stopLocal(options.dataDir);
    const host = flags.host ?? (running ? (rec.host ?? options.host) : options.host);
    const port = flags.port !== undefined ? options.port : running ? rec.port : options.port;
    const started = await startDetached({ dataDir: options.dataDir, host, port, extraArgs: serveArgs(flags), env: childEnv(ctx, options), autostarted }).catch((e: unknown) => {
      throw new CliError(`The service did not start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    });
    if (out.json) return out.printJson({ restarted: running, pid: started.pid, url: started.url, version: started.version, autostarted });
    out.write(`${started.url}\n`);
    out.success(`${running ? 'Restarted' : 'Started'} voxctl ${started.version} (pid ${started.pid}); log: ${localFiles(options.dataDir).log}.`);
  });
}

/** `serve stop`: stop the local service of the data dir. */
function registerStop(serve: Command, ctx: HandlerContext): void {
  examples(serve.command('stop').description('Stop the local service recorded in the data dir'), ['voxctl serve stop', 'voxctl serve stop --data-dir /srv/voxctl']).action(
    async (_o, cmd: Command) => {
      const flags = flagsOf<ServeFlags>(cmd);
      const out = outputFor(ctx, flags);
      const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
      const result = await stopLocal(dataDir);
      if (out.json) return out.printJson({ stopped: result.stopped, pid: result.pid ?? null, data_dir: dataDir });
      if (result.stopped) out.success(`Stopped the service (pid ${result.pid}).`);
      else out.info(`No service is running for ${dataDir}.`);
    },
  );
}

/** `serve logs [-f]`: the detached service log. */
function registerLogs(serve: Command, ctx: HandlerContext): void {
  examples(
    serve
      .command('logs')
      .option('-n, --lines <n>', 'how many lines from the end', intOption('--lines', 1, 1_000_000), 50)
      .option('-f, --follow', 'keep printing new lines (Ctrl-C to stop)')
      .description('Print the detached service log ({data dir}/serve.log)'),
    ['voxctl serve logs', 'voxctl serve logs -f'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<ServeFlags & { lines: number; follow?: boolean }>(cmd);
    const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
    const file = localFiles(dataDir).log;
    if (!existsSync(file)) throw new CliError(`No log at ${file}`, { hint: 'the log is written by `voxctl serve --detach` and the autostart' });
    const tail = logTail(file, flags.lines);
    if (tail) ctx.stdout.write(tail + '\n');
    if (!flags.follow) return;
    let size = statSync(file).size;
    const { open } = await import('node:fs/promises');
    for (;;) {
      await ctx.clock.sleep(500);
      const now = statSync(file).size;
      if (now <= size) {
        size = Math.min(size, now);
        continue;
      }
      const fh = await open(file, 'r');
      const buf = Buffer.alloc(now - size);
      await fh.read(buf, 0, buf.length, size);
      await fh.close();
      ctx.stdout.write(buf);
      size = now;
    }
  });
}

/**
 * One lifecycle line of the service (DESIGN §14.5): a JSON object shaped like the request log's pino lines,
 * on stderr at every log level (an operator always sees where it listens and when it stopped).
 */
function lifecycle(event: string | undefined, msg: string, fields: Record<string, unknown> = {}, level = 30): void {
  const line = { level, time: Date.now(), pid: process.pid, hostname: hostname(), ...(event ? { event } : {}), ...fields, msg };
  process.stderr.write(JSON.stringify(line) + '\n');
}

/** The `serve` flags a detached child gets besides data dir, host and port. */
function serveArgs(flags: ServeFlags): string[] {
  return [
    ...(flags.config ? ['--config', flags.config] : []),
    ...(flags.publicUrl ? ['--public-url', flags.publicUrl] : []),
    ...(flags.allowPrivateAudioUrls ? ['--allow-private-audio-urls'] : []),
    ...(flags.workers !== undefined ? ['--workers', String(flags.workers)] : []),
    ...(flags.leaseSeconds !== undefined ? ['--lease-seconds', String(flags.leaseSeconds)] : []),
    ...(flags.audioRetentionDays !== undefined ? ['--audio-retention-days', String(flags.audioRetentionDays)] : []),
    ...(flags.audioStore ? ['--audio-store', flags.audioStore] : []),
    ...(flags.s3Endpoint ? ['--s3-endpoint', flags.s3Endpoint] : []),
    ...(flags.trustProxy ? ['--trust-proxy', flags.trustProxy] : []),
    ...(flags.logLevel ? ['--log-level', flags.logLevel] : []),
  ];
}

/**
 * The detached child's environment: a database URL goes there, never on its command line, where `ps`
 * would show the password to every user of the machine.
 */
function childEnv(ctx: HandlerContext, options: ServerOptions): NodeJS.ProcessEnv {
  const env = { ...ctx.env.raw() };
  if (options.databaseUrl) env.VOXCTL_DATABASE_URL = options.databaseUrl;
  if (options.metricsToken) env.VOXCTL_METRICS_TOKEN = options.metricsToken;
  return env;
}

async function detach(ctx: HandlerContext, cmd: Command, options: ServerOptions): Promise<void> {
  const flags = flagsOf<ServeFlags>(cmd);
  const out = outputFor(ctx, flags);
  if (options.port === 0) throw usageError('--detach needs a fixed --port (0 picks a random one)');
  const rec = readServerRecord(options.dataDir);
  if (rec && isAlive(rec.pid)) {
    throw new CliError(`A service already runs for ${options.dataDir} (pid ${rec.pid}, ${rec.url})`, { hint: 'stop it with `voxctl serve stop`' });
  }
  const started = await startDetached({ dataDir: options.dataDir, host: options.host, port: options.port, extraArgs: serveArgs(flags), env: childEnv(ctx, options) }).catch((e: unknown) => {
    throw new CliError(`The service did not start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  });
  out.write(`${started.url}\n`);
  out.info(`voxctl ${started.version} running in the background (pid ${started.pid}); log: ${localFiles(options.dataDir).log}. Stop it with \`voxctl serve stop\`.`);
}
