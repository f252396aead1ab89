/**
 * PocketSphinx fed as the audio arrives. Debian's `pocketsphinx_continuous` (5prealpha) reads raw
 * 16 kHz PCM from `-infile` with stdio, which cannot open a Node pipe (a socket) but reads a FIFO like
 * a file: we create one, write each frame into it as the pacer sends it, and close it to end the
 * stream. The recogniser segments the audio at pauses and prints one hypothesis line per segment (a
 * `final`); it gives no partials. `stdbuf -oL` (coreutils), when present, makes it flush each line as
 * it is decided instead of at exit. Measured here: the hypothesis of a 2.8 s clip arrives about 0.4 s
 * after the FIFO is closed.
 *
 * A recogniser must not outlive the server: one killed (SIGKILL, OOM) before it opened the FIFO for writing
 * left PocketSphinx blocked in its own open() forever. `setpriv --pdeathsig KILL` (util-linux), when
 * present, has the kernel kill it when the server's process ends, however that ends.
 */
import { spawn, execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, delimiter } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { accessSync } from 'node:fs';
import { resolveSphinx, sphinxArgs, SPHINX_RATE, type SphinxOptions } from '../local-sphinx.js';
import { lowerChildPriority } from '../../background-priority.js';
import { SttError, type StreamEvent, type StreamingCapability, type SttStream } from '../types.js';

const run = promisify(execFile);
const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/;

/** `name` on PATH, if any (an executable file). */
function findOnPath(name: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The command line that runs the recogniser: under `setpriv --pdeathsig KILL` (it dies with the server) and
 * `stdbuf -oL` (it prints each line as it is decided), each when the machine has it.
 */
function recogniserCommand(binary: string, args: string[], pathVar?: string): [string, string[]] {
  const setpriv = findOnPath('setpriv', pathVar);
  const stdbuf = findOnPath('stdbuf', pathVar);
  const argv = [...(setpriv ? [setpriv, '--pdeathsig', 'KILL', '--'] : []), ...(stdbuf ? [stdbuf, '-oL'] : []), binary, ...args];
  return [argv[0] as string, argv.slice(1)];
}

/** The local recogniser's live capability. */
export function createSphinxStreaming(opts: SphinxOptions = {}): StreamingCapability {
  return {
    sampleRate: SPHINX_RATE,
    model: 'en-us',
    async open(options, onEvent) {
      const r = resolveSphinx(opts);
      if (typeof r === 'string') throw new SttError('provider_unavailable', r);
      const now = options.now ?? (() => performance.now());
      const dir = await mkdtemp(join(tmpdir(), 'voxctl-sphinx-live-'));
      const fifo = join(dir, 'audio.raw');
      try {
        await run('mkfifo', [fifo]);
      } catch (err) {
        await rm(dir, { recursive: true, force: true });
        throw new SttError('provider_unavailable', `Could not create a FIFO for PocketSphinx: ${(err as Error).message}`);
      }
      const [command, args] = recogniserCommand(r.binary, sphinxArgs(r, fifo), opts.path);
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      // setpriv and stdbuf exec into PocketSphinx: the pid, and the nice value set on it, stay (DESIGN §15.4).
      lowerChildPriority(child.pid);
      let finished = false;
      let stderr = '';
      let pending = '';
      const emit = (e: StreamEvent) => {
        if (!finished || e.type === 'close') onEvent(e);
      };
      child.stdout.on('data', (chunk: Buffer) => {
        const at = now();
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const raw of lines) {
          const line = raw.trim();
          if (!line) continue;
          if (WORD_LINE.test(line)) emit({ type: 'message', at });
          else emit({ type: 'final', text: line, at });
        }
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr = (stderr + c.toString('utf8')).slice(-2000);
      });
      let opened = false;
      let writes: Promise<unknown> = Promise.resolve();
      const exited = new Promise<number | null>((resolve) => {
        child.on('error', () => resolve(-1));
        child.on('close', (code) => resolve(code));
      });
      void exited.then(async (code) => {
        const at = now();
        // A recogniser that died before opening the FIFO leaves our open() waiting: a reader releases it.
        if (!opened) await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK).then((h) => h.close(), () => undefined);
        if (!finished && code !== 0) {
          const detail = stderr.trim().split('\n').pop() || `exit code ${code}`;
          emit({ type: 'error', error: new SttError('provider_unavailable', `PocketSphinx failed: ${detail}`), at });
        }
        finished = true;
        emit({ type: 'close', at });
        await rm(dir, { recursive: true, force: true });
      });
      const handle: FileHandle = await open(fifo, 'w');
      opened = true;
      const stream: SttStream = {
        send(frame) {
          const copy = Buffer.from(frame);
          writes = writes.then(() => handle.write(copy)).catch(() => undefined);
        },
        end() {
          writes = writes.then(() => handle.close()).catch(() => undefined);
        },
        abort() {
          finished = true;
          child.kill('SIGKILL');
          void writes.then(() => handle.close()).catch(() => undefined);
        },
      };
      if (options.signal?.aborted) {
        stream.abort();
        throw new SttError('timeout', 'PocketSphinx stream cancelled');
      }
      return stream;
    },
  };
}
