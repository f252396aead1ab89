/**
 * `voxctl stt stream FILE --providers …` (DESIGN §13.3): one file streamed to several providers at once
 * through the service, each provider's partial transcript shown live (a line per provider on a TTY),
 * then the `stt compare` table with the latency columns; `--json` prints the events as they come.
 */
import type { Command } from '../core/commander.js';
import type { StreamEventLine, StreamResult } from '../../shared/schemas/stt-stream.js';
import { STREAM_PACE_MAX as PACE_MAX, STREAM_PACE_MIN as PACE_MIN } from '../../shared/constants.js';
import { AccuracyInputError, calculateAccuracy, type AccuracyReport } from '../../shared/accuracy.js';
import { NORMALIZER_NAMES, UnknownNormalizerError, type NormalizerName } from '../../shared/normalizers/index.js';
import type { HandlerContext } from '../core/context.js';
import { CliError, usageError } from '../core/errors.js';
import type { Output } from '../core/output.js';
import { connect } from '../core/session.js';
import { examples, flagsOf, parsePace, readInputFile } from '../core/util.js';
import { terminalText } from '../core/safe-text.js';
import type { VoxClient } from '../../client/index.js';

const ESC = String.fromCharCode(27);
/** Redraws of the live view at most this often. */
const REDRAW_MS = 80;

export { parsePace } from '../core/util.js';

/** `all` → every configured provider that streams; otherwise the list as given (the service checks it). */
async function streamingProviders(client: VoxClient, list: string[], all: boolean): Promise<string[]> {
  if (!all) return list;
  const items = (await client.listProviders()).items.filter((p) => p.streaming && p.state === 'ready').map((p) => p.id);
  if (!items.length) throw new CliError('No configured provider on this service can stream', { code: 'validation_failed' });
  return items.slice(0, 9);
}

/** One line per provider, redrawn in place on a terminal. */
class LiveView {
  private readonly text = new Map<string, { settled: string; open: string; done?: string }>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: Output,
    private readonly providers: string[],
  ) {
    for (const p of providers) this.text.set(p, { settled: '', open: '' });
  }

  update(e: StreamEventLine): void {
    if (e.event === 'partial' || e.event === 'final') {
      const t = this.text.get(e.provider);
      if (!t) return;
      // A vendor's text is data: its control characters show as � (DESIGN §17.6), never move the cursor.
      const text = terminalText(e.text).replace(/[\t\n]+/g, ' ');
      if (e.event === 'final') {
        t.settled = [t.settled, text].filter(Boolean).join(' ');
        t.open = '';
      } else t.open = text;
    } else if (e.event === 'result') {
      const t = this.text.get(e.provider);
      if (t) t.done = e.result.error ? `✗ ${e.result.error.code}` : '✓';
    } else return;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, REDRAW_MS);
  }

  draw(): void {
    const width = Math.max(20, (this.out.stdout.columns ?? 80) - 1);
    const name = Math.max(...this.providers.map((p) => p.length));
    const c = this.out.color;
    let s = this.drawn ? `${ESC}[${this.drawn}A` : '';
    for (const p of this.providers) {
      const t = this.text.get(p)!;
      const body = `${t.settled}${t.open ? ` ${c.dim(t.open)}` : ''}`.trim();
      const line = `${c.bold(p.padEnd(name))}  ${t.done ? `${t.done} ` : ''}${body}`;
      s += `${ESC}[2K${truncate(line, width)}\n`;
    }
    this.drawn = this.providers.length;
    this.out.write(s);
  }

  finish(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.draw();
    this.out.write('\n');
  }
}

function truncate(line: string, width: number): string {
  // Colour codes take no room on screen.
  const visible = line.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');
  if ([...visible].length <= width) return line;
  return `${[...visible].slice(0, width - 1).join('')}…`;
}

function accuracy(reference: string, hypothesis: string, normalizer: string, normalize: boolean): AccuracyReport {
  try {
    return calculateAccuracy(reference, hypothesis, { normalize, normalizer: normalizer as NormalizerName });
  } catch (e) {
    if (e instanceof UnknownNormalizerError) throw usageError(e.message, `known: ${NORMALIZER_NAMES.join(', ')}`);
    if (e instanceof AccuracyInputError) throw usageError(e.message);
    throw e;
  }
}

/** Registers `stt stream` under `stt`. */
export function registerSttStream(stt: Command, ctx: HandlerContext, helpers: { parseProviders: (v: string) => string[]; audioUrlFor: (c: VoxClient, o: Output, s: string) => Promise<string> }): void {
  examples(
    stt
      .command('stream')
      .argument('<audio>', 'local WAV/MP3/M4A file (uploaded first) or an http(s) URL')
      .requiredOption('-p, --providers <list>', "comma-separated streaming providers, or 'all'")
      .option('--pace <x>', `audio sent at this multiple of real time (${PACE_MIN}..${PACE_MAX})`, '1')
      .option('--language <code>', 'language hint, e.g. en')
      .option('--keyterm <word...>', 'words to favour, where the vendor takes them')
      .option('-r, --reference <text>', 'the true transcript (adds WER/CER)')
      .option('--reference-file <file>', 'read the true transcript from a file')
      .option('--no-normalize', 'compare raw whitespace tokens')
      .option('--normalizer <name>', `text normaliser: ${NORMALIZER_NAMES.join(' or ')}`, 'basic')
      .option('--csv', 'CSV output')
      .description('Stream audio to several providers at once: live partials, then latency and accuracy'),
    ['voxctl stt stream call.wav --providers stt-b,local-sphinx', 'voxctl stt stream call.wav -p all --pace 2 -r "please call me back" --json'],
  ).action(async (source: string, _o, cmd: Command) => {
    const flags = flagsOf<{ providers: string; pace?: string; language?: string; keyterm?: string[]; reference?: string; referenceFile?: string; normalize: boolean; normalizer: string; csv?: boolean }>(cmd);
    const pace = parsePace(flags.pace);
    if (flags.reference !== undefined && flags.referenceFile !== undefined) throw usageError('Give --reference or --reference-file, not both');
    const reference = flags.referenceFile !== undefined ? (await readInputFile(flags.referenceFile)).toString('utf8') : flags.reference;
    if (reference !== undefined) accuracy(reference, '', flags.normalizer, flags.normalize);
    const list = helpers.parseProviders(flags.providers);
    const { client, out } = await connect(ctx, flags);
    const providers = await streamingProviders(client, list, flags.providers.trim() === 'all');
    const audioUrl = await helpers.audioUrlFor(client, out, source);
    const live = out.isTTY && !flags.csv ? new LiveView(out, providers) : undefined;
    const done = await client.streamStt(
      { audio_url: audioUrl, providers, pace, ...(flags.language ? { language: flags.language } : {}), ...(flags.keyterm?.length ? { keyterms: flags.keyterm } : {}) },
      (e) => {
        if (out.json) out.write(`${JSON.stringify(e)}\n`);
        live?.update(e);
      },
    );
    live?.finish();
    const rows = providers.map((provider) => {
      const r = done.results[provider] as StreamResult;
      return { provider, ...r, accuracy: reference !== undefined && r.transcript !== null ? accuracy(reference, r.transcript, flags.normalizer, flags.normalize) : null };
    });
    if (reference !== undefined) rows.sort((a, b) => (a.accuracy?.wer ?? Infinity) - (b.accuracy?.wer ?? Infinity) || (a.final_latency_ms ?? Infinity) - (b.final_latency_ms ?? Infinity));
    else rows.sort((a, b) => (a.final_latency_ms ?? Infinity) - (b.final_latency_ms ?? Infinity));
    if (!out.json) {
      const fmt = (n: number | null | undefined) => (n === null || n === undefined ? undefined : n.toFixed(4));
      await out.list(null, rows, [
        ...(reference !== undefined ? [{ header: 'wer', get: (r: (typeof rows)[number]) => fmt(r.accuracy?.wer) }, { header: 'cer', get: (r: (typeof rows)[number]) => fmt(r.accuracy?.cer) }] : []),
        { header: 'provider', get: (r) => r.provider },
        { header: 'first_partial_ms', get: (r) => r.first_partial_ms },
        { header: 'final_latency_ms', get: (r) => r.final_latency_ms },
        { header: 'revisions', get: (r) => r.revisions },
        { header: 'early_words', get: (r) => r.early_words },
        { header: 'transcript / error', get: (r) => r.transcript ?? (r.error ? `${r.error.code}: ${r.error.message}` : null) },
      ], flags);
    }
    const failed = rows.filter((r) => r.transcript === null);
    if (rows.length > 0 && failed.length === rows.length) {
      throw new CliError(`Every requested provider failed (${failed.map((r) => `${r.provider}: ${r.error?.code ?? 'failed'}`).join(', ')})`, { code: 'all_providers_failed' });
    }
  });
}
