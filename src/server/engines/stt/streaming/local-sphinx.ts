/**
 * PocketSphinx fed as the audio arrives. Debian's `pocketsphinx_continuous` (5prealpha) reads raw
 * 16 kHz PCM from `-infile` with stdio, which cannot open a Node pipe (a socket) but reads a FIFO like
 * a file: we create one, write each frame into it as the pacer sends it, and close it to end the
 * stream. The recogniser segments the audio at pauses and prints one hypothesis line per segment (a
 * `final`); it gives no partials. `stdbuf -oL` (coreutils), when present, makes it flush each line as
 * it is decided instead of at exit. Measured here: the hypothesis of a 2.8 s clip arrives about 0.4 s
 * after the FIFO is closed.
 *
 * A recogniser must not outlive the server. The server opens the FIFO read-write before it starts
 * PocketSphinx: on Linux that open never blocks, so PocketSphinx's own open() returns at once (a writer
 * exists) and no libuv thread of ours waits on a FIFO; the server holds the only writing end, so when its
 * process ends, however it ends, the kernel closes it and PocketSphinx reads end of file and exits. (Opened
 * write-only after the spawn, a server killed before its open() ran left PocketSphinx blocked in its own
 * open() for ever.) `setpriv --pdeathsig KILL` (util-linux), when present, also has the kernel kill it at
 * once when the server's process ends.
 */
import { spawn, execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdtemp, open, readdir, readlink, realpath, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { resolveSphinx, sphinxArgs, SPHINX_RATE, type SphinxOptions } from '../local-sphinx.js';
import { lowerChildPriority } from '../../background-priority.js';
import { recogniserCommand } from '../sphinx-command.js';
import { SttError, type StreamEvent, type StreamingCapability, type SttStream } from '../types.js';

const run = promisify(execFile);
const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/;

/** Reads and drops what is in the FIFO (without ever blocking) until `settled` resolves. */
async function drainUntil(fifo: string, settled: Promise<unknown>): Promise<void> {
  let done = false;
  void settled.finally(() => (done = true));
  const reader = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!reader) return void (await settled);
  const buf = Buffer.alloc(64 * 1024);
  try {
    while (!done) {
      // EAGAIN when it is empty: wait a moment for the next write.
      const { bytesRead } = await reader.read(buf, 0, buf.length, null).catch(() => ({ bytesRead: 0 }));
      if (bytesRead === 0) await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await reader.close();
  }
}

/**
 * Resolves once process `pid` has `fifo` open (it has loaded its model and reads), or it ended. Told by
 * /proc; where there is none, at once.
 */
async function recogniserReading(pid: number | undefined, fifo: string, exited: Promise<unknown>): Promise<void> {
  if (pid === undefined || !existsSync('/proc/self/fd')) return;
  let ended = false;
  void exited.then(() => (ended = true));
  const fds = `/proc/${pid}/fd`;
  const target = await realpath(fifo); // what /proc shows: a temp dir behind a symbolic link resolved
  while (!ended) {
    const links = await readdir(fds).then(
      (names) => Promise.all(names.map((n) => readlink(join(fds, n)).catch(() => ''))),
      () => undefined,
    );
    if (!links || links.includes(target)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
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
      // Read-write (see the top): never blocks, and the server's end is the FIFO's only writer.
      const handle: FileHandle = await open(fifo, constants.O_RDWR);
      const [command, args] = recogniserCommand(r.binary, sphinxArgs(r, fifo), { pathVar: opts.path, lineBuffered: true });
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
      let writes: Promise<unknown> = Promise.resolve();
      let closing: Promise<unknown> | undefined;
      // Closing the writing end is the end of the stream for PocketSphinx; once, after the queued writes.
      const closeFifo = () => (closing ??= writes = writes.then(() => handle.close()).catch(() => undefined));
      const exited = new Promise<number | null>((resolve) => {
        child.on('error', () => resolve(-1));
        child.on('close', (code) => resolve(code));
      });
      void exited.then(async (code) => {
        const at = now();
        // Nobody reads the FIFO any more but our own read-write end, so a write into a full FIFO would wait
        // for ever: empty it until the queued writes are done and the end is closed.
        await drainUntil(fifo, closeFifo());
        if (!finished && code !== 0) {
          const detail = stderr.trim().split('\n').pop() || `exit code ${code}`;
          emit({ type: 'error', error: new SttError('provider_unavailable', `PocketSphinx failed: ${detail}`), at });
        }
        finished = true;
        emit({ type: 'close', at });
        await rm(dir, { recursive: true, force: true });
      });
      // The stream starts when the recogniser reads, as a vendor's once its handshake is done: the audio
      // is paced and its latency timed from then, not from before the model was loaded.
      await recogniserReading(child.pid, fifo, exited);
      const stream: SttStream = {
        send(frame) {
          if (closing) return;
          const copy = Buffer.from(frame);
          writes = writes.then(() => handle.write(copy)).catch(() => undefined);
        },
        end() {
          void closeFifo();
        },
        abort() {
          finished = true;
          child.kill('SIGKILL');
          void closeFifo();
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
