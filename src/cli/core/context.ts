import type { Dispatcher } from 'undici';
import { resolveConfigDir } from '../../shared/paths.js';
import { openConfig, type ConfigStore } from './config.js';
import { createEnv, type CliEnv } from './env.js';
import { createKeyStore, type KeyStore } from './keychain.js';
import type { OutStream } from './output.js';

/** A choice of a search/select prompt. */
export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

/** Interactive questions (only asked when stdin and stdout are terminals). */
export interface Prompter {
  password(message: string): Promise<string>;
  input(message: string, options?: { default?: string }): Promise<string>;
  search<T>(message: string, source: (term: string | undefined) => Promise<Choice<T>[]>): Promise<T>;
}

/** The readable side of the terminal (process.stdin, or a test's stream). */
export type InStream = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * What every command handler receives instead of importing singletons (wrangler's HandlerContext):
 * environment, streams, config, key store, prompts, clock, audio player and the HTTP transport.
 */
export interface HandlerContext {
  env: CliEnv;
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
  configDir: string;
  /** The conf store, opened on first use. */
  config(): Promise<ConfigStore>;
  keys: KeyStore;
  prompt: Prompter;
  clock: { now(): Date; sleep(ms: number): Promise<void> };
  /** Plays a WAV file; false when no audio player is installed. */
  play(file: string): Promise<boolean>;
  /** Opens a URL in the browser; false when no opener is available. */
  openUrl(url: string): Promise<boolean>;
  /** undici dispatcher for the client (default: the global agent). */
  dispatcher?: Dispatcher;
  /** Work that must finish before the process exits (e.g. the version check). */
  pending: Promise<unknown>[];
  /**
   * Prompts on the controlling terminal (`/dev/tty`) when stdin/stdout are not terminals, so
   * `$(voxctl speakers pick)` works (DESIGN §7); undefined when the process has no terminal.
   */
  terminal(): Promise<{ prompt: Prompter; close(): void } | undefined>;
}

/** Opens `/dev/tty` for a prompt; undefined when the process has no controlling terminal. */
export async function openTerminal(): Promise<{ prompt: Prompter; close(): void } | undefined> {
  const { openSync } = await import('node:fs');
  const tty = await import('node:tty');
  let input: InstanceType<typeof tty.ReadStream>;
  let output: InstanceType<typeof tty.WriteStream>;
  try {
    input = new tty.ReadStream(openSync('/dev/tty', 'r'));
    output = new tty.WriteStream(openSync('/dev/tty', 'w'));
  } catch {
    return undefined;
  }
  return {
    prompt: inquirerPrompter(input, output),
    close: () => {
      input.destroy();
      output.destroy();
    },
  };
}

/** The real prompts, via @inquirer/prompts (loaded on first use), reading `stdin` and drawing on `stdout`. */
export function inquirerPrompter(stdin: InStream, stdout: OutStream): Prompter {
  const io = { input: stdin, output: stdout } as never;
  return {
    async password(message) {
      const { password } = await import('@inquirer/prompts');
      return password({ message, mask: '*' }, io);
    },
    async input(message, options = {}) {
      const { input } = await import('@inquirer/prompts');
      return input({ message, default: options.default }, io);
    },
    async search(message, source) {
      const { search } = await import('@inquirer/prompts');
      return search({ message, source: (term) => source(term), pageSize: 12 }, io);
    },
  };
}

/** Plays a file with play-sound (first player found on PATH); false when none is installed. */
export async function playSound(file: string): Promise<boolean> {
  const { default: createPlayer } = await import('play-sound');
  const player = createPlayer({});
  return new Promise((resolve, reject) => {
    player.play(file, (err: unknown) => {
      if (!err) return resolve(true);
      const msg = err instanceof Error ? err.message : typeof err === 'number' ? `player exited with code ${err}` : String(err);
      if (/suitable audio player/i.test(msg)) return resolve(false);
      reject(err instanceof Error ? err : new Error(msg));
    });
  });
}

/** Opens a URL with the platform's opener (xdg-open, open, start). */
export async function openInBrowser(url: string): Promise<boolean> {
  const { execa } = await import('execa');
  const cmd = process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url];
  const r = await execa(cmd[0]!, cmd.slice(1), { reject: false, stdio: 'ignore', detached: true });
  return r.exitCode === 0;
}

/** The context of a real run: process streams and environment, OS keychain, real prompts and player. */
export function createDefaultContext(overrides: Partial<HandlerContext> = {}): HandlerContext {
  const env = overrides.env ?? createEnv(process.env);
  const configDir = overrides.configDir ?? resolveConfigDir(env.raw());
  const stdin = overrides.stdin ?? process.stdin;
  const stdout = overrides.stdout ?? process.stdout;
  let config: Promise<ConfigStore> | undefined;
  return {
    env,
    stdin,
    stdout,
    stderr: process.stderr,
    configDir,
    config: () => (config ??= openConfig(configDir)),
    keys: createKeyStore({ configDir }),
    // Prompts draw on stderr so a prompt never pollutes piped stdout.
    prompt: inquirerPrompter(stdin, overrides.stderr ?? process.stderr),
    clock: { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    play: playSound,
    openUrl: openInBrowser,
    pending: [],
    terminal: openTerminal,
    ...overrides,
  };
}
