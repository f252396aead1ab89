import { basename, join } from 'node:path';
import type { Command } from 'commander';
import type { VoxClient } from '../../client/index.js';
import type { SttResult, TranscribeResponse } from '../../shared/schemas/stt.js';
import { AccuracyInputError, calculateAccuracy, type AccuracyReport } from '../../shared/accuracy.js';
import { NORMALIZER_NAMES, UnknownNormalizerError, type NormalizerName } from '../../shared/normalizers/index.js';
import { ALL_PROVIDERS } from '../stt-providers.js';
import type { HandlerContext } from '../context.js';
import { CliError, usageError } from '../errors.js';
import type { Output } from '../output.js';
import { connect, outputFor, withSpinner, type Target } from '../session.js';
import { resolveDataDir } from '../../shared/paths.js';
import { examples, flagsOf, readInputFile } from '../util.js';
import { registerSttStream } from './stt-stream.js';

const MAX_PROVIDERS_PER_REQUEST = 9;

/** Parses `--providers a,b` (or `all`), rejecting an empty list. */
export function parseProviders(value: string): string[] {
  if (value.trim() === 'all') return [...ALL_PROVIDERS];
  const list = [...new Set(value.split(',').map((p) => p.trim()).filter(Boolean))];
  if (list.length === 0) throw usageError('--providers needs at least one provider', `known: ${ALL_PROVIDERS.join(', ')}`);
  return list;
}

/** Turns FILE|URL into an audio URL the service can read: local files are uploaded via POST /v1/audio. */
export async function audioUrlFor(client: VoxClient, out: Output, source: string): Promise<string> {
  if (/^https?:\/\//i.test(source)) return source;
  const data = await readInputFile(source);
  const uploaded = await client.uploadAudio({ data, filename: basename(source) });
  out.debug(`uploaded ${source} as ${uploaded.audio_id} (${uploaded.duration_seconds} s)`);
  return uploaded.audio_url;
}

/** Transcribes with any number of providers, in requests of at most 9 run concurrently. */
export async function transcribeAll(client: VoxClient, audioUrl: string, providers: string[], language?: string): Promise<TranscribeResponse> {
  const groups: string[][] = [];
  for (let i = 0; i < providers.length; i += MAX_PROVIDERS_PER_REQUEST) groups.push(providers.slice(i, i + MAX_PROVIDERS_PER_REQUEST));
  const answers = await Promise.all(groups.map((g) => client.transcribe({ audio_url: audioUrl, providers: g, ...(language ? { language } : {}) })));
  return { results: Object.assign({}, ...answers.map((a) => a.results)) as Record<string, SttResult> };
}

function accuracy(reference: string, hypothesis: string, options: { normalize?: boolean; normalizer?: string; alignment?: boolean } = {}): AccuracyReport {
  try {
    return calculateAccuracy(reference, hypothesis, { ...options, normalizer: options.normalizer as NormalizerName | undefined });
  } catch (e) {
    if (e instanceof UnknownNormalizerError) throw usageError(e.message, `known: ${NORMALIZER_NAMES.join(', ')}`);
    if (e instanceof AccuracyInputError) throw usageError(e.message);
    throw e;
  }
}

async function textArg(inline: string | undefined, file: string | undefined, what: string): Promise<string | undefined> {
  if (inline !== undefined && file !== undefined) throw usageError(`Give --${what} or --${what}-file, not both`);
  if (file !== undefined) return (await readInputFile(file)).toString('utf8');
  return inline;
}

/**
 * After a transcription: one line naming the providers the server has not bound and where to bind them
 * (its config file), and exit 1 when every requested provider failed (DESIGN §7).
 */
export function reportFailures(out: Output, results: Record<string, SttResult>, configFile: string): void {
  const entries = Object.entries(results);
  const unconfigured = entries.filter(([, r]) => r.error?.code === 'provider_not_configured').map(([p]) => p);
  if (unconfigured.length > 0) {
    out.warn(`not configured on the service: ${unconfigured.join(', ')} — bind them in ${configFile} (see docs/stt-providers.md).`);
  }
  if (entries.length > 0 && entries.every(([, r]) => r.transcript === null)) {
    const failed = entries.filter(([p]) => !unconfigured.includes(p)).map(([p, r]) => `${p}: ${r.error?.code ?? 'failed'}`);
    throw new CliError(`Every requested provider failed${failed.length ? ` (${failed.join(', ')})` : ''}`, { code: 'all_providers_failed' });
  }
}

/** Where the target's STT bindings live: the local data dir's file, or the remote server's own. */
function serverConfigFile(ctx: HandlerContext, target: Target): string {
  // The server's CONFIG_FILE_NAME; a unit test keeps them equal (importing it would load TypeBox).
  const name = 'voxctl.config.json';
  return target.embedded ? join(resolveDataDir(undefined, ctx.env.raw()), name) : `the server's ${name} (in its data dir, or its --config file)`;
}

const fmt = (n: number | null | undefined, digits = 4) => (n === null || n === undefined ? undefined : n.toFixed(digits));

/** `voxctl stt transcribe|compare|stream|accuracy|providers`. */
export function registerStt(program: Command, ctx: HandlerContext): void {
  const stt = program.command('stt').description('Speech to text: transcribe, compare vendors, compute WER/CER');

  examples(
    stt
      .command('transcribe')
      .argument('<audio>', 'local WAV/MP3/M4A file (uploaded first) or an http(s) URL')
      .requiredOption('-p, --providers <list>', "comma-separated providers, or 'all'")
      .option('--language <code>', 'language hint, e.g. en')
      .option('--csv', 'CSV output')
      .description('Transcribe audio with one or more providers'),
    ['voxctl stt transcribe hello.wav --providers local-sphinx', 'voxctl stt transcribe https://example.com/a.mp3 --providers stt-b,stt-c --json'],
  ).action(async (source: string, _o, cmd: Command) => {
    const flags = flagsOf<{ providers: string; language?: string; csv?: boolean }>(cmd);
    const providers = parseProviders(flags.providers);
    const { client, out, target } = await connect(ctx, flags);
    const audioUrl = await audioUrlFor(client, out, source);
    const res = await withSpinner(out, `Transcribing with ${providers.length} provider(s)`, () => transcribeAll(client, audioUrl, providers, flags.language));
    // Unconfigured providers are named in one line below rather than as rows of zeros.
    const rows = Object.entries(res.results)
      .filter(([, r]) => out.json || flags.csv || r.error?.code !== 'provider_not_configured')
      .map(([provider, r]) => ({ provider, ...r }));
    await out.list(res, rows, [
      { header: 'provider', get: (r) => r.provider },
      { header: 'transcript', get: (r) => r.transcript ?? (r.error ? `${out.color.red(r.error.code)}: ${r.error.message}` : null) },
      { header: 'latency_ms', get: (r) => r.latency_ms },
      { header: 'confidence', get: (r) => fmt(r.confidence, 3) },
    ], flags);
    reportFailures(out, res.results, serverConfigFile(ctx, target));
  });

  examples(
    stt
      .command('compare')
      .argument('<audio>', 'local file (uploaded first) or an http(s) URL')
      .requiredOption('-p, --providers <list>', "comma-separated providers, or 'all'")
      .option('-r, --reference <text>', 'the true transcript')
      .option('--reference-file <file>', 'read the true transcript from a file')
      .option('--language <code>', 'language hint, e.g. en')
      .option('--no-normalize', 'compare raw whitespace tokens')
      .option('--normalizer <name>', `text normaliser: ${NORMALIZER_NAMES.join(' or ')}`, 'basic')
      .option('--csv', 'CSV output')
      .description('Rank providers by word error rate against a reference transcript'),
    ['voxctl stt compare talk.wav --providers all --reference-file talk.txt', 'voxctl stt compare talk.wav -p local-sphinx,stt-b -r "hello world" --csv'],
  ).action(async (source: string, _o, cmd: Command) => {
    const flags = flagsOf<{ providers: string; reference?: string; referenceFile?: string; language?: string; normalize: boolean; normalizer: string; csv?: boolean }>(cmd);
    const reference = await textArg(flags.reference, flags.referenceFile, 'reference');
    if (reference === undefined) throw usageError('stt compare needs --reference TEXT or --reference-file FILE');
    const scoring = { normalize: flags.normalize, normalizer: flags.normalizer };
    accuracy(reference, '', scoring);
    const providers = parseProviders(flags.providers);
    const { client, out, target } = await connect(ctx, flags);
    const audioUrl = await audioUrlFor(client, out, source);
    const res = await withSpinner(out, `Transcribing with ${providers.length} provider(s)`, () => transcribeAll(client, audioUrl, providers, flags.language));
    const ranked = Object.entries(res.results)
      .map(([provider, r]) => ({ provider, ...r, accuracy: r.transcript !== null ? accuracy(reference, r.transcript, scoring) : null }))
      .sort((a, b) => (a.accuracy?.wer ?? Infinity) - (b.accuracy?.wer ?? Infinity) || a.latency_ms - b.latency_ms)
      .map((r, i) => ({ rank: r.accuracy ? i + 1 : null, ...r }));
    if (out.json) {
      out.printJson({ reference, audio_url: audioUrl, results: ranked });
      return reportFailures(out, res.results, serverConfigFile(ctx, target));
    }
    const shown = flags.csv ? ranked : ranked.filter((r) => r.error?.code !== 'provider_not_configured');
    await out.list(null, shown, [
      { header: 'rank', get: (r) => r.rank },
      { header: 'provider', get: (r) => r.provider },
      { header: 'wer', get: (r) => fmt(r.accuracy?.wer) },
      { header: 'cer', get: (r) => fmt(r.accuracy?.cer) },
      { header: 'latency_ms', get: (r) => r.latency_ms },
      { header: 'confidence', get: (r) => fmt(r.confidence, 3) },
      { header: 'transcript / error', get: (r) => r.transcript ?? (r.error ? `${r.error.code}: ${r.error.message}` : null) },
    ], flags);
    reportFailures(out, res.results, serverConfigFile(ctx, target));
  });

  examples(
    stt
      .command('accuracy')
      .option('-r, --reference <text>', 'the true transcript')
      .option('--reference-file <file>', 'read the reference from a file')
      .option('-H, --hypothesis <text>', 'the transcript to score')
      .option('--hypothesis-file <file>', 'read the hypothesis from a file')
      .option('--alignment', 'print the word alignment')
      .option('--no-normalize', 'compare raw whitespace tokens')
      .option('--normalizer <name>', `text normaliser: ${NORMALIZER_NAMES.join(' or ')}`, 'basic')
      .description('Compute WER/CER offline (same rules as the service)'),
    [
      'voxctl stt accuracy --reference "the cat sat" --hypothesis "the cat sad"',
      'voxctl stt accuracy --reference-file ref.txt --hypothesis-file hyp.txt --alignment',
      'voxctl stt accuracy -r "twenty one percent" -H "21%" --normalizer whisper-en',
    ],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ reference?: string; referenceFile?: string; hypothesis?: string; hypothesisFile?: string; alignment?: boolean; normalize: boolean; normalizer: string }>(cmd);
    const reference = await textArg(flags.reference, flags.referenceFile, 'reference');
    const hypothesis = await textArg(flags.hypothesis, flags.hypothesisFile, 'hypothesis');
    if (reference === undefined || hypothesis === undefined) throw usageError('stt accuracy needs --reference and --hypothesis (or their -file forms)');
    const out = outputFor(ctx, flags);
    const result = accuracy(reference, hypothesis, { normalize: flags.normalize, normalizer: flags.normalizer, alignment: flags.alignment });
    if (out.json) return out.printJson(result);
    out.fields([
      ['wer', result.wer],
      ['cer', result.cer],
      ['substitutions', result.substitutions],
      ['insertions', result.insertions],
      ['deletions', result.deletions],
      ['reference_words', result.reference_words],
      ['hypothesis_words', result.hypothesis_words],
      ...(result.normalizer ? [['normalizer', `${result.normalizer.name} (version ${result.normalizer.version})`] as [string, string]] : []),
    ]);
    if (result.alignment) out.write('\n' + renderAlignment(out, result.alignment) + '\n');
  });

  registerSttStream(stt, ctx, { parseProviders, audioUrlFor });

  examples(stt.command('providers').description('List the providers this service knows and whether they are ready'), ['voxctl stt providers']).action(
    async (_o, cmd: Command) => {
      const flags = flagsOf<{ csv?: boolean }>(cmd);
      const { client, out } = await connect(ctx, flags);
      const list = await client.listProviders();
      await out.list(list, list.items, [
        { header: 'id', get: (p) => p.id },
        { header: 'state', get: (p) => p.state },
        { header: 'adapter', get: (p) => p.adapter },
        { header: 'model', get: (p) => p.model },
        { header: 'streaming', get: (p) => (p.streaming ? 'yes' : 'no') },
        { header: 'detail', get: (p) => p.detail },
      ], flags);
    },
  );
}

/** One line per alignment step: `= word`, `~ ref → hyp`, `- ref`, `+ hyp`, coloured on a terminal. */
export function renderAlignment(out: Output, steps: NonNullable<AccuracyReport['alignment']>): string {
  const c = out.color;
  return steps
    .map((s) => {
      switch (s.op) {
        case 'equal':
          return `  ${s.ref}`;
        case 'substitute':
          return c.yellow(`~ ${s.ref} → ${s.hyp}`);
        case 'delete':
          return c.red(`- ${s.ref}`);
        case 'insert':
          return c.green(`+ ${s.hyp}`);
        default:
          throw new CliError(`unknown alignment op`);
      }
    })
    .join('\n');
}
