import { existsSync, statSync, writeFileSync } from 'node:fs';
import type { Command } from './commander.js';
import type { HandlerContext } from './context.js';
import { CliError, usageError } from './errors.js';
import type { GlobalFlags } from './session.js';
import { STREAM_PACE_MAX, STREAM_PACE_MIN } from '../../shared/constants.js';

/** The root program's options merged with the command's own. */
export function flagsOf<T extends object = object>(cmd: Command): GlobalFlags & T {
  return cmd.optsWithGlobals<GlobalFlags & T>();
}

/** Adds an "Examples:" block to a command's help. */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', '\nExamples:\n' + lines.map((l) => `  $ ${l}`).join('\n'));
}

/** Prompts are allowed only when both stdin and stdout are terminals (DESIGN §7). */
export function canPrompt(ctx: HandlerContext): boolean {
  return Boolean(ctx.stdin.isTTY && ctx.stdout.isTTY);
}

/** Reads all of stdin as UTF-8 (for `-` arguments and `--with-token`). */
export async function readStdin(ctx: HandlerContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** True when `file` exists and is not a regular file (`/dev/null`, a FIFO): writing there clobbers nothing. */
function isSpecialFile(file: string): boolean {
  try {
    return !statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Refuses to clobber an existing regular file unless --force (checked before any paid work; DESIGN §7). */
export function assertWritable(file: string, force: boolean | undefined): void {
  if (!force && existsSync(file) && !isSpecialFile(file)) throw usageError(`${file} already exists`, 'pass --force to overwrite it');
}

/** `-o -`: the output goes to stdout (DESIGN §7). */
export const STDOUT_FILE = '-';

/**
 * Checks an `-o` destination before any paid work: `-` is stdout — refused on a terminal (audio and
 * reports are never written to one) and beside --json (whose stdout is the API object); any other
 * name must not clobber an existing regular file without --force.
 */
export function assertOutput(ctx: HandlerContext, file: string, options: { force?: boolean; json?: boolean; what: string }): void {
  if (file !== STDOUT_FILE) return assertWritable(file, options.force);
  if (ctx.stdout.isTTY) throw usageError(`Refusing to write ${options.what} to a terminal (-o -)`, 'redirect or pipe stdout (`> file`, `| aplay`), or give -o FILE');
  if (options.json) throw usageError(`-o - and --json both write to stdout`, 'give -o FILE with --json');
}

/** Writes `data` to `file` — or to stdout for `-` — failing on an existing regular file unless `force`. */
export async function writeOutput(ctx: HandlerContext, file: string, data: Uint8Array | string, force: boolean | undefined): Promise<void> {
  if (file !== STDOUT_FILE) return writeOutputFile(file, data, force);
  await new Promise<void>((resolve, reject) => ctx.stdout.write(data, (e) => (e ? reject(e) : resolve())));
}

/** Writes `data` to `file`, failing on an existing regular file unless `force`. */
export function writeOutputFile(file: string, data: Uint8Array | string, force: boolean | undefined): void {
  try {
    writeFileSync(file, data, { flag: force || isSpecialFile(file) ? 'w' : 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw usageError(`${file} already exists`, 'pass --force to overwrite it');
    throw new CliError(`Cannot write ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** Parses a positive integer option, quoting the offending value. */
export function intOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw usageError(`${name} must be an integer in ${min}..${max}, got '${value}'`);
    }
    return Number(value);
  };
}

/** Reads a file given on the command line, turning ENOENT into a usage error. */
export async function readInputFile(file: string): Promise<Buffer> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw usageError(`File not found: ${file}`);
    if (code === 'EISDIR') throw usageError(`${file} is a directory, not a file`);
    throw new CliError(`Cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** The paging options every list command shares (`--limit`, `--offset`, `--all`, `--csv`). */
export function pagingOptions(cmd: Command, allHelp = 'follow pages'): Command {
  return cmd
    .option('--limit <n>', 'page size 1..100 (default 20)', intOption('--limit', 1, 100))
    .option('--offset <n>', 'items to skip', intOption('--offset', 0, Number.MAX_SAFE_INTEGER))
    .option('--all', allHelp)
    .option('--csv', 'CSV output');
}

/** Parses `--pace` of `stt stream` and streaming evaluations: a number from 0.5 to 4 (1 = real time, the default). */
export function parsePace(value: string | undefined): number {
  if (value === undefined) return 1;
  const pace = Number(value);
  if (value.trim() === '' || !Number.isFinite(pace) || pace < STREAM_PACE_MIN || pace > STREAM_PACE_MAX) {
    throw usageError(`--pace must be a number from ${STREAM_PACE_MIN} to ${STREAM_PACE_MAX} (1 = real time)`);
  }
  return pace;
}

/** Parses `--max-final-latency MS`: whole milliseconds, 1 or more. */
export function latencyMsOption(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value.trim()) || ms < 1) throw usageError(`--max-final-latency must be whole milliseconds ≥ 1 (e.g. 800), got '${value}'`);
  return ms;
}
