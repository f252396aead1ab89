/**
 * Warm PocketSphinx decoders. `pocketsphinx_continuous` loads its model (about 0.6 CPU-seconds here) for
 * every file it hears, which on a sentence of a few seconds is as much again as the decoding itself.
 * `pocketsphinx_batch` loads it once and then decodes one utterance for each line of its control file, so
 * a decoder stays up between requests and is fed one line per utterance:
 *
 * - The control file and the output are FIFOs the server opens read-write before the spawn (that open
 *   never blocks, and Node's own stdio pipes are sockets that stdio cannot open by name). The server holds
 *   the control file's only writing end: when its process ends, however it ends, PocketSphinx reads end of
 *   file and exits; `setpriv --pdeathsig KILL` also has the kernel kill it at once where it exists.
 * - Each utterance's samples are written to a raw file in the decoder's folder; its line names it.
 * - PocketSphinx writes, unbuffered and in this order, the hypothesis line `words (uttid score)` and one
 *   CTM line `uttid 1 start duration word posterior` per real word. Nothing marks the end of an utterance's
 *   CTM lines, so every utterance's line is followed by one for a tenth of a second of near-silence (the
 *   sentinel): its hypothesis line closes the utterance before it.
 * - Each utterance is decoded whole (`ps_decode_raw`: the cepstral mean is the utterance's own), not cut
 *   at pauses as `pocketsphinx_continuous` does — which is why only short audio comes here.
 *
 * A decoder runs one utterance at a time; the caller bounds how many run at once. One left idle for
 * `idleMs` exits, so an idle service holds no model in memory. A decoder whose utterance timed out or was
 * cancelled is killed, as is one that dies: the next utterance starts a new one.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { lowerChildPriority } from '../background-priority.js';
import { recogniserCommand } from './sphinx-command.js';
import { SttError, type SttOutput } from './types.js';

const run = promisify(execFile);
/** A decoder that waited this long for an utterance exits. */
const DEFAULT_IDLE_MS = 20_000;
/** The sentinel: 0.1 s at 16 kHz of a deterministic ±2 noise (pure zeros have no energy to take a log of). */
const SENTINEL = Buffer.from(Int16Array.from({ length: 1600 }, (_, i) => ((i * 7919) % 5) - 2).buffer);

/** What a warm decoder runs: `pocketsphinx_batch` and the model (paths resolved by the adapter). */
export interface BatchCommand {
  batch: string;
  hmm: string;
  lm: string;
  dict: string;
  /** PATH to look for `setpriv` on. */
  pathVar?: string;
}

/** One utterance for a decoder: 16 kHz mono PCM16, how long it may take, and the caller's cancellation. */
export interface DecodeRequest {
  pcm: Int16Array;
  timeoutMs: number;
  signal: AbortSignal;
}

/** A set of warm decoders; `decode` takes an idle one or starts one. */
export interface SphinxDecoders {
  decode(request: DecodeRequest): Promise<SttOutput>;
  /** Ends every decoder (idle ones exit, a busy one is killed). */
  close(): Promise<void>;
}

/** Arguments of `pocketsphinx_batch` for a decoder in `dir`. */
export function batchArgs(cmd: BatchCommand, dir: string): string[] {
  const fifo = (name: string) => join(dir, name);
  return [
    ...['-hmm', cmd.hmm, '-lm', cmd.lm, '-dict', cmd.dict],
    ...['-adcin', 'yes', '-cepdir', dir, '-cepext', '.raw'],
    ...['-ctl', fifo('ctl.fifo'), '-hyp', fifo('out.fifo'), '-ctm', fifo('out.fifo'), '-logfn', '/dev/null'],
  ];
}

const HYP_LINE = /^(.*) \((\S+) -?\d+\)$/;
const CTM_LINE = /^(\S+) 1 \d+(?:\.\d+)? \d+(?:\.\d+)? (\S+) (\d+(?:\.\d+)?)$/;

/**
 * The transcript and confidence of utterance `id` from the lines PocketSphinx wrote: the words of its
 * hypothesis line, and the mean posterior of its CTM words (fillers excluded; null without words).
 */
export function parseBatchOutput(lines: readonly string[], id: string): SttOutput | undefined {
  let transcript: string | undefined;
  const posteriors: number[] = [];
  for (const line of lines) {
    const hyp = HYP_LINE.exec(line);
    if (hyp && hyp[2] === id) {
      transcript = (hyp[1] as string).replace(/\s+/g, ' ').trim();
      continue;
    }
    const ctm = CTM_LINE.exec(line);
    // <s>, </s>, <sil> and [NOISE]-style fillers are not words of the transcript.
    if (ctm && ctm[1] === id && !/^(<.*>|\[.*\])$/.test(ctm[2] as string)) posteriors.push(Number(ctm[3]));
  }
  if (transcript === undefined) return undefined;
  const mean = posteriors.length ? posteriors.reduce((a, b) => a + b, 0) / posteriors.length : null;
  return { transcript, confidence: mean === null ? null : Math.min(1, Math.max(0, mean)) };
}

/** One running `pocketsphinx_batch` and its folder. */
class Decoder {
  private readonly lines: string[] = [];
  private waiting: { sentinel: string; done: () => void } | undefined;
  private stderr = '';
  private count = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  dead = false;
  readonly exited: Promise<void>;

  private constructor(
    private readonly dir: string,
    private readonly child: ChildProcess,
    private readonly ctl: Socket,
    private readonly out: Socket,
  ) {
    // Destroyed sockets of a decoder that died say so through `exited`; their errors add nothing.
    ctl.on('error', () => undefined);
    out.on('error', () => undefined);
    createInterface({ input: out }).on('line', (line) => {
      this.lines.push(line);
      const hyp = HYP_LINE.exec(line);
      if (hyp && this.waiting && hyp[2] === this.waiting.sentinel) this.waiting.done();
    });
    child.stderr?.on('data', (c: Buffer) => (this.stderr = (this.stderr + c.toString('utf8')).slice(-2000)));
    this.exited = new Promise<void>((resolve) => {
      child.on('error', (err) => {
        this.stderr ||= err.message;
        resolve();
      });
      child.on('close', () => resolve());
    }).then(() => {
      this.dead = true;
      this.ctl.destroy();
      this.out.destroy();
      this.waiting?.done();
    });
    void this.exited.then(() => rm(dir, { recursive: true, force: true }));
  }

  /** Starts a decoder in a new folder (its FIFOs and sentinel made first). */
  static async start(cmd: BatchCommand): Promise<Decoder> {
    const dir = await mkdtemp(join(tmpdir(), 'voxctl-sphinx-batch-'));
    try {
      await run('mkfifo', [join(dir, 'ctl.fifo'), join(dir, 'out.fifo')]);
      await writeFile(join(dir, 'sentinel.raw'), SENTINEL);
      // Read-write opens (see the top): they never block, and the server's are the only writing end of ctl.
      const ctl = new Socket({ fd: openSync(join(dir, 'ctl.fifo'), constants.O_RDWR | constants.O_NONBLOCK), readable: false, writable: true });
      const out = new Socket({ fd: openSync(join(dir, 'out.fifo'), constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
      const [command, args] = recogniserCommand(cmd.batch, batchArgs(cmd, dir), { pathVar: cmd.pathVar, lineBuffered: false });
      const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      // setpriv execs into PocketSphinx: the pid, and the nice value set on it, stay (DESIGN §15.4).
      lowerChildPriority(child.pid);
      return new Decoder(dir, child, ctl, out);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw new SttError('provider_unavailable', `Could not start PocketSphinx: ${(err as Error).message}`);
    }
  }

  /** Decodes one utterance; a timeout or a cancellation kills the decoder. */
  async decode({ pcm, timeoutMs, signal }: DecodeRequest): Promise<SttOutput> {
    this.hold();
    const id = `u${++this.count}`;
    const sentinel = `s${this.count}`;
    const file = join(this.dir, `${id}.raw`);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await writeFile(file, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
      const outcome = await new Promise<'done' | 'timeout'>((resolve) => {
        const stop = () => {
          this.kill();
          resolve('timeout');
        };
        timer = setTimeout(stop, timeoutMs);
        onAbort = stop;
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting = { sentinel, done: () => resolve('done') };
        if (signal.aborted) stop();
        else if (this.dead) resolve('done');
        else this.ctl.write(`${id} 0 -1 ${id}\nsentinel 0 -1 ${sentinel}\n`);
      });
      if (outcome === 'timeout') throw new SttError('timeout', 'PocketSphinx did not finish in time');
      const result = this.dead ? undefined : parseBatchOutput(this.lines, id);
      if (!result) {
        const detail = this.stderr.trim().split('\n').pop() || (this.dead ? 'the decoder exited' : 'no hypothesis for the audio');
        throw new SttError('provider_unavailable', `PocketSphinx failed: ${detail}`);
      }
      return result;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      this.waiting = undefined;
      this.lines.length = 0;
      if (!this.dead) await rm(file, { force: true });
    }
  }

  /** Exits after `ms` unless used again; until then it does not keep the process alive. */
  idleFor(ms: number, onExit: () => void): void {
    this.idleTimer = setTimeout(() => {
      onExit();
      void this.close();
    }, ms);
    this.idleTimer.unref();
    this.child.unref();
    this.ctl.unref();
    this.out.unref();
    (this.child.stderr as Socket | null)?.unref();
  }

  /** Ends it gracefully: end of file on its control file, and it exits. */
  close(): Promise<void> {
    // Held again: whoever awaits the close must not find the process let go with nothing left to wait on.
    this.hold();
    this.ctl.destroy();
    return this.exited;
  }

  /** Kills it; from now on it is dead, never handed another utterance (its exit may come a moment later). */
  kill(): void {
    this.dead = true;
    this.child.kill('SIGKILL');
  }

  /** Busy: it keeps the process alive while it works. */
  private hold(): void {
    clearTimeout(this.idleTimer);
    this.child.ref();
    this.ctl.ref();
    this.out.ref();
    (this.child.stderr as Socket | null)?.ref();
  }
}

/** Warm decoders of `cmd`, started as needed and left idle for `idleMs` (default 20 s) before they exit. */
export function createSphinxDecoders(cmd: BatchCommand, options: { idleMs?: number } = {}): SphinxDecoders {
  const idle: Decoder[] = [];
  const busy = new Set<Decoder>();
  let closed = false;
  return {
    async decode(request) {
      if (closed) throw new SttError('provider_unavailable', 'PocketSphinx is shutting down');
      let decoder = idle.pop();
      // One that died while it waited (killed from outside) is dropped; its folder went with it.
      while (decoder?.dead) decoder = idle.pop();
      decoder ??= await Decoder.start(cmd);
      busy.add(decoder);
      try {
        return await decoder.decode(request);
      } finally {
        busy.delete(decoder);
        if (closed) void decoder.close();
        else if (!decoder.dead) {
          idle.push(decoder);
          decoder.idleFor(options.idleMs ?? DEFAULT_IDLE_MS, () => {
            const at = idle.indexOf(decoder);
            if (at >= 0) idle.splice(at, 1);
          });
        }
      }
    },
    async close() {
      closed = true;
      for (const d of busy) d.kill();
      await Promise.all([...idle.splice(0), ...busy].map((d) => d.close()));
    },
  };
}
