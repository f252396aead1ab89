import { Command, CommanderError, Option } from './core/commander.js';
import { versionLine } from '../shared/version.js';
import { terminalText } from './core/safe-text.js';
import { ApiRequestError, NetworkError } from '../client/errors.js';
import { CliError, ExitCode, exitCodeOfService, serviceErrorCode } from './core/errors.js';
import { QuotaExceededError } from './core/api-errors.js';
import { createDefaultContext, type HandlerContext } from './core/context.js';
import { COMMAND_MODULES, modulesFor, type CommandModule, type TopCommand } from './command-groups.js';

/** Registers a command module's top-level commands on the program. */
export type RegisterCommands = (program: Command, ctx: HandlerContext) => void;

/** How each command module is loaded: only when a command line needs it (see `modulesFor`). */
const LOADERS: Record<CommandModule, () => Promise<RegisterCommands>> = {
  auth: async () => (await import('./auth/auth.js')).registerAuth,
  config: async () => (await import('./config/config.js')).registerConfig,
  speakers: async () => (await import('./speakers/speakers.js')).registerSpeakers,
  tts: async () => (await import('./tts/tts.js')).registerTts,
  batch: async () => (await import('./batch/batch.js')).registerBatch,
  dataset: async () => (await import('./dataset/dataset.js')).registerDataset,
  stt: async () => (await import('./stt/stt.js')).registerStt,
  eval: async () => (await import('./eval/eval.js')).registerEval,
  corpus: async () => (await import('./corpus/corpus.js')).registerCorpus,
  usage: async () => (await import('./usage/usage.js')).registerUsage,
  billing: async () => (await import('./billing/billing.js')).registerBilling,
  keys: async () => (await import('./keys/keys.js')).registerKeys,
  serve: async () => (await import('./serve/serve.js')).registerServe,
  admin: async () => (await import('./admin/admin.js')).registerAdmin,
  doctor: async () => (await import('./doctor/doctor.js')).registerDoctor,
  completion: async () => (await import('./completion/completion.js')).registerCompletion,
};

/** Loads the registration of `modules` (every module with 'all'). */
export async function loadCommandModules(modules: readonly CommandModule[] | 'all'): Promise<Partial<Record<CommandModule, RegisterCommands>>> {
  const names = modules === 'all' ? COMMAND_MODULES.map((m) => m.module) : modules;
  return Object.fromEntries(await Promise.all(names.map(async (m) => [m, await LOADERS[m]()] as const)));
}

/** What `buildProgram` may be given besides the context. */
export interface ProgramOptions {
  /**
   * The command modules loaded (`loadCommandModules`): each registers its commands in full; every other
   * top-level command gets its one-line entry, so `--help` lists them all while `run` loads only the module
   * a command line names — loading all of them cost more than Node's own start-up.
   */
  modules?: Partial<Record<CommandModule, RegisterCommands>>;
  /** `--json` is on the command line: commander's own error text gives way to the JSON error object. */
  json?: boolean;
}

/** Every exit code with its meaning (DESIGN §7), as `--help` lists them. */
export const EXIT_CODE_HELP =
  '0 ok, 1 error, 2 usage, 3 authentication, 4 not found, 5 rate limit/quota, 6 watched job failed/partial, ' +
  `${ExitCode.werGate} CI gate failed (eval --max-wer or --max-regression exceeded)`;

/** Builds the program with every command group; commands reach collaborators through `ctx`. */
export function buildProgram(ctx: HandlerContext = createDefaultContext(), options: ProgramOptions = {}): Command {
  const program = new Command('voxctl')
    .description('Test voice synthesis and speech recognition: TTS, batch jobs, datasets, STT vendor comparison.')
    .version(versionLine(), '-V, --version')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => (options.json ? undefined : ctx.stderr.write(s)) })
    .option('--profile <name>', 'profile to use (default: the current profile, else the local service)')
    .option('--base-url <url>', 'service base URL (overrides VOXCTL_BASE_URL and the profile)')
    .option('--api-key <key>', 'API key (prefer VOXCTL_API_KEY or `voxctl auth login`)')
    .option('--json', 'print the API object as JSON on stdout')
    .option('-q, --quiet', 'print only the result (no progress or info messages)')
    .option('-v, --verbose', 'log requests and responses on stderr (the key is never shown)')
    .option('--no-autostart', 'do not start the local service automatically')
    .option('--insecure-storage', 'store the key in a 0600 file instead of the OS keychain')
    .addOption(new Option('--no-color', 'disable colours (NO_COLOR is honoured too)'))
    .addHelpText(
      'after',
      '\nWith no profile, voxctl talks to a local service on http://127.0.0.1:7723 and starts it when needed.\n' +
        '\nExamples:\n  $ voxctl tts say "Hello there" -o hello.wav\n  $ voxctl speakers list --gender Female --csv > voices.csv\n' +
        '  $ voxctl stt compare talk.wav --providers all --reference-file talk.txt',
    )
    // Every command's --help ends with the full list (DESIGN §7), so `voxctl eval run --help` names 7 too.
    .addHelpText('afterAll', `\nExit codes: ${EXIT_CODE_HELP}.`);
  for (const m of COMMAND_MODULES) {
    const register = options.modules?.[m.module];
    if (register) {
      register(program, ctx);
      continue;
    }
    for (const c of m.commands as readonly TopCommand[]) {
      if ('hidden' in c && c.hidden) continue;
      const entry = program.command(c.name).description(c.description);
      for (const alias of c.aliases ?? []) entry.alias(alias);
    }
  }
  return program;
}

function resetHint(epochSeconds: number | undefined, now: Date): string | undefined {
  if (epochSeconds === undefined) return undefined;
  const wait = Math.max(0, Math.ceil(epochSeconds - now.getTime() / 1000));
  return `the limit resets at ${new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z')} (in ${wait} s)`;
}

function nextPeriod(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

/** The `--json` shape of an error (DESIGN §7): `status` and `request_id` only when the service answered. */
export interface JsonError {
  code: string;
  message: string;
  status?: number;
  request_id?: string;
  /** What to do about it, when the CLI knows (the line after `Hint:` in prose). */
  hint?: string;
  /** A quota error: the characters the request needed, and those left this billing period. */
  characters_needed?: number;
  characters_left?: number;
}

/** What the one error handler decided: exit code, the text for stderr, and the `--json` object. */
export interface MappedError {
  code: number;
  message?: string;
  error?: JsonError;
}

/** The one error handler of the CLI: maps any error to the message (+ hint) and exit code of DESIGN §7. */
export function exitCodeFor(error: unknown, now: Date = new Date()): MappedError {
  const withHint = (message: string, hint?: string) => (hint ? `${message}\nHint: ${hint}` : message);
  const hintOf = (hint: string | undefined) => (hint ? { hint } : {});
  if (error instanceof CommanderError) {
    // --help and --version end through exitOverride with code 0; commander has printed its own message.
    if (error.exitCode === 0) return { code: 0 };
    return { code: ExitCode.usage, error: { code: 'usage_error', message: error.message.replace(/^error: /, '') } };
  }
  if (error instanceof CliError) {
    return { code: error.exitCode, message: withHint(error.message, error.hint), error: { code: error.code, message: error.message, ...hintOf(error.hint) } };
  }
  if (error instanceof ApiRequestError) {
    const rid = error.requestId ? ` (request ${error.requestId})` : '';
    const detail = `${error.detail}${rid}`;
    const json: JsonError = {
      code: serviceErrorCode(error),
      message: error.detail,
      status: error.status,
      ...(error.requestId ? { request_id: error.requestId } : {}),
    };
    const fields = error.errors?.length ? '\n' + error.errors.map((e) => `  ${e.loc.join('.')}: ${e.msg}`).join('\n') : '';
    const mapped = (code: number, message: string): MappedError => {
      const hint = message.split('\nHint: ')[1];
      return { code, message, error: { ...json, ...hintOf(hint) } };
    };
    const errorCode = json.code;
    const exit = exitCodeOfService(error);
    switch (exit) {
      case ExitCode.usage:
        // The service's validation and the CLI's own give the same exit code (DESIGN §7).
        return mapped(exit, detail + fields);
      case ExitCode.auth:
        if (errorCode === 'authentication_failed') return mapped(exit, withHint(detail, 'run voxctl auth login'));
        if (errorCode === 'forbidden') {
          return mapped(exit, withHint(`${detail}: this key is read-only`, 'use a full-scope key (`voxctl keys create`, then `voxctl auth login`)'));
        }
        return mapped(exit, withHint(detail, 'this key or subscription may not do that; check `voxctl auth status` and `voxctl billing subscription`'));
      case ExitCode.notFound:
        return mapped(exit, detail);
      case ExitCode.rateLimited: {
        const arithmetic = error instanceof QuotaExceededError ? `${error.arithmetic}; ` : '';
        const hint =
          errorCode === 'quota_exceeded'
            ? `${arithmetic}the character quota renews on ${nextPeriod(now)}; see \`voxctl usage\` or upgrade with \`voxctl billing portal\``
            : error.retryAfter !== undefined
              ? `retry in ${error.retryAfter} s; ${resetHint(error.rateLimitReset, now) ?? ''}`.replace(/; $/, '')
              : resetHint(error.rateLimitReset, now);
        const result = mapped(exit, withHint(detail, hint));
        if (error instanceof QuotaExceededError && result.error) {
          result.error.characters_needed = error.charactersNeeded;
          if (error.charactersLeft !== undefined) result.error.characters_left = error.charactersLeft;
        }
        return result;
      }
      default:
        return mapped(ExitCode.error, detail + fields);
    }
  }
  if (error instanceof NetworkError) {
    return {
      code: ExitCode.error,
      message: withHint(error.message, `is the service running? check with \`voxctl serve status\` (target ${error.target})`),
      error: { code: 'network_error', message: error.message, hint: `is the service running? check with \`voxctl serve status\` (target ${error.target})` },
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: ExitCode.error, message: `Unexpected error: ${message}`, error: { code: 'internal_error', message } };
}

// Decided from argv, not from parsed options: a usage error may end parsing before options exist.
const wantsJson = (argv: readonly string[]) => argv.slice(0, argv.indexOf('--') < 0 ? undefined : argv.indexOf('--')).includes('--json');

/** Runs the CLI with `argv` (user args only) and resolves to the exit code. */
export async function run(argv: string[], ctx: HandlerContext = createDefaultContext()): Promise<number> {
  let code: number = ExitCode.ok;
  try {
    const modules = await loadCommandModules(modulesFor(argv));
    await buildProgram(ctx, { modules, json: wantsJson(argv) }).parseAsync(argv, { from: 'user' });
  } catch (error) {
    const mapped = exitCodeFor(error, ctx.clock.now());
    // Under --json, scripts read one JSON object on stderr instead of prose (DESIGN §7).
    if (wantsJson(argv) && mapped.error) ctx.stderr.write(JSON.stringify({ error: mapped.error }) + '\n');
    // A message may carry the data it is about (a file name in an archive, a vendor's words): control
    // characters show as � rather than reach the terminal (DESIGN §17.6).
    else if (mapped.message) ctx.stderr.write(`Error: ${terminalText(mapped.message)}\n`);
    code = mapped.code;
  }
  await Promise.allSettled(ctx.pending);
  return code;
}
