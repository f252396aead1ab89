import type { Command} from 'commander';
import { Option } from 'commander';
import { resolveDataDir } from '../../shared/paths.js';
import { DEFAULT_HOST, DEFAULT_PORT, type ServerOptions } from '../../server/options.js';
import { usageError } from '../errors.js';

interface ServeFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  config?: string;
  publicUrl?: string;
  allowPrivateAudioUrls?: boolean;
  logLevel: string;
}

/** Flags > VOXCTL_LISTEN (`host:port`) > defaults; never the client's VOXCTL_BASE_URL (DESIGN §7). */
export function resolveServeOptions(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServerOptions {
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
    if (!/^\d+$/.test(flags.port) || Number(flags.port) > 65535) throw usageError(`--port must be 0..65535, got '${flags.port}'`);
    port = Number(flags.port);
  }
  return {
    dataDir: resolveDataDir(flags.dataDir, env),
    host,
    port,
    publicUrl: flags.publicUrl,
    configPath: flags.config,
    allowPrivateAudioUrls: flags.allowPrivateAudioUrls ?? false,
    bootstrapKey: env.VOXCTL_BOOTSTRAP_KEY,
    logLevel: flags.logLevel,
  };
}

/** `voxctl serve`: the whole service in the foreground until SIGINT/SIGTERM. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the voxctl service (HTTP API on SQLite with offline engines) in the foreground')
    .option('--host <host>', `address to bind (default ${DEFAULT_HOST}, or VOXCTL_LISTEN)`)
    .option('--port <port>', `port to bind (default ${DEFAULT_PORT}, or VOXCTL_LISTEN)`)
    .option('--data-dir <dir>', 'data folder (default VOXCTL_DATA_DIR or the OS user data dir)')
    .option('--config <file>', 'STT provider bindings (default {data dir}/voxctl.config.json)')
    .option('--public-url <url>', 'base of the audio URLs handed out (default: from the request)')
    .option('--allow-private-audio-urls', 'let transcription fetch loopback/private URLs')
    .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'))
    .addHelpText('after', '\nExamples:\n  $ voxctl serve --port 7723\n  $ VOXCTL_LISTEN=0.0.0.0:8080 voxctl serve --data-dir /srv/voxctl')
    .action(async (flags: ServeFlags) => {
      const options = resolveServeOptions(flags);
      const { startServer } = await import('../../server/start.js');
      const server = await startServer(options);
      process.stderr.write(`voxctl service listening on ${server.url} (data: ${options.dataDir})\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.stderr.write('Shutting down...\n');
          void server.close().then(resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
