import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { Choice, HandlerContext, Prompter } from '../../src/cli/core/context.js';
import { createDefaultContext } from '../../src/cli/core/context.js';
import { createEnv } from '../../src/cli/core/env.js';
import { createKeyStore, type KeychainBackend } from '../../src/cli/core/keychain.js';
import { run } from '../../src/cli/program.js';
import { Agent } from 'undici';

// One agent for every in-process run of a test file: closing it lets the test server close at once
// (idle keep-alive sockets would otherwise hold `app.close()`).
let agent: Agent | undefined;
/** Closes the HTTP connections opened by in-process runs; call before closing the test server. */
export async function closeTestDispatcher(): Promise<void> {
  await agent?.close();
  agent = undefined;
}

/** A writable that records what was written and can claim to be a terminal. */
export class Capture extends Writable {
  chunks: Buffer[] = [];
  isTTY: boolean;
  columns = 120;
  constructor(isTTY = false) {
    super();
    this.isTTY = isTTY;
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    cb();
  }
  // What a terminal's stream has beyond writing: a spinner (ora) moves the cursor once a wait passes a
  // second, which a loaded machine reaches; without these it throws on a stream that claims a terminal.
  cursorTo(_x: number, _y?: number | (() => void), cb?: () => void): boolean {
    (typeof _y === 'function' ? _y : cb)?.();
    return true;
  }
  moveCursor(_dx: number, _dy: number, cb?: () => void): boolean {
    cb?.();
    return true;
  }
  clearLine(_dir: number, cb?: () => void): boolean {
    cb?.();
    return true;
  }
  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** A keychain that is never reachable (the machine's keychain stays untouched by unit tests). */
export const unreachableKeychain: KeychainBackend = {
  getPassword: () => Promise.reject(new Error('no keychain in this test')),
  setPassword: () => Promise.reject(new Error('no keychain in this test')),
  deletePassword: () => Promise.reject(new Error('no keychain in this test')),
};

/** Scripted answers for the prompts, in order; search prompts get the first choice the source returns for `term`. */
export interface Answers {
  password?: string[];
  search?: { term: string; pick?: number }[];
}

/** Builds an in-process context: captured stdout/stderr, a temp config dir, env from `env`, optional TTYs. */
export function testContext(opts: { env?: Record<string, string>; tty?: boolean; stdin?: string; answers?: Answers; played?: string[] } = {}) {
  const stdout = new Capture(opts.tty ?? false);
  const stderr = new Capture(opts.tty ?? false);
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = opts.tty ?? false;
  if (opts.stdin !== undefined) stdin.end(opts.stdin);
  else if (!opts.tty) stdin.end();
  const configDir = mkdtempSync(join(tmpdir(), 'voxctl-unit-'));
  const env = createEnv({ VOXCTL_DATA_DIR: join(configDir, 'data'), ...opts.env });
  const answers = { password: [...(opts.answers?.password ?? [])], search: [...(opts.answers?.search ?? [])] };
  const asked: string[] = [];
  const prompt: Prompter = {
    async password(message) {
      asked.push(message);
      const a = answers.password.shift();
      if (a === undefined) throw new Error(`unexpected prompt: ${message}`);
      return a;
    },
    async input(message) {
      throw new Error(`unexpected prompt: ${message}`);
    },
    async search<T>(message: string, source: (term: string | undefined) => Promise<Choice<T>[]>) {
      asked.push(message);
      const a = answers.search.shift();
      if (!a) throw new Error(`unexpected prompt: ${message}`);
      const choices = await source(a.term);
      const choice = choices[a.pick ?? 0];
      if (!choice) throw new Error(`no choice for '${a.term}'`);
      return choice.value;
    },
  };
  const ctx: HandlerContext = createDefaultContext({
    env,
    stdin,
    stdout,
    stderr,
    configDir,
    keys: createKeyStore({ configDir, backend: unreachableKeychain }),
    prompt,
    play: async (file) => {
      opts.played?.push(file);
      return opts.played !== undefined;
    },
    openUrl: async () => false,
    dispatcher: (agent ??= new Agent()),
    clock: { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))) },
  });
  return {
    ctx,
    stdout,
    stderr,
    asked,
    configDir,
    /** Runs `voxctl ...args` in-process and returns the exit code. */
    run: (args: string[]) => run(args, ctx),
  };
}
