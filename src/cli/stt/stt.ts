import { basename, join } from 'node:path';
import type { Command } from '../core/commander.js';
import type { VoxClient } from '../../client/index.js';
import type { SttResult, TranscribeResponse } from '../../shared/schemas/stt.js';
import type { AccuracyReport } from '../../shared/accuracy.js';
import { ENTITY_TYPES } from '../../shared/entities/index.js';
import { NORMALIZER_NAMES } from '../../shared/normalizers/index.js';
import { ProviderCatalog, type ProviderView } from '../core/stt-providers.js';
import { providerLabel } from '../../shared/providers.js';
import type { HandlerContext } from '../core/context.js';
import { CliError } from '../core/errors.js';
import { styled, type Output } from '../core/output.js';
import { terminalText } from '../core/safe-text.js';
import { connect, outputFor, withSpinner, type Target } from '../core/session.js';
import { resolveDataDir } from '../../shared/paths.js';
import { examples, flagsOf, readInputFile } from '../core/util.js';
import { registerSttStream } from './stream.js';
import { describeCommand } from '../command-groups.js';
import { accuracy, accuracyOptions, compareOptions, sttProviders, transcribeOptions, type AccuracyFlags, type CompareFlags, type TranscribeFlags } from './options.js';

export { parseKeyterms } from './options.js';

const MAX_PROVIDERS_PER_REQUEST = 9;

/** Turns FILE|URL into an audio URL the service can read: local files are uploaded via POST /v1/audio. */
export async function audioUrlFor(client: VoxClient, out: Output, source: string): Promise<string> {
  if (/^https?:\/\//i.test(source)) return source;
  const data = await readInputFile(source);
  const uploaded = await client.uploadAudio({ data, filename: basename(source) });
  out.debug(`uploaded ${source} as ${uploaded.audio_id} (${uploaded.duration_seconds} s)`);
  return uploaded.audio_url;
}

/** Transcribes with any number of providers, in requests of at most 9 run concurrently. */
export async function transcribeAll(client: VoxClient, audioUrl: string, providers: string[], language?: string, keyterms?: string[]): Promise<TranscribeResponse> {
  const groups: string[][] = [];
  for (let i = 0; i < providers.length; i += MAX_PROVIDERS_PER_REQUEST) groups.push(providers.slice(i, i + MAX_PROVIDERS_PER_REQUEST));
  const answers = await Promise.all(
    groups.map((g) => client.transcribe({ audio_url: audioUrl, providers: g, ...(language ? { language } : {}), ...(keyterms ? { keyterms } : {}) })),
  );
  return { results: Object.assign({}, ...answers.map((a) => a.results)) as Record<string, SttResult> };
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
    if (failed.length === 0) {
      throw new CliError(`None of the requested providers is configured on the service (${unconfigured.join(', ')})`, {
        code: 'all_providers_failed',
        hint: `bind them in ${configFile}, or use one that is ready: \`voxctl stt providers\` lists them (local-sphinx needs no key)`,
      });
    }
    throw new CliError(`Every requested provider failed${failed.length ? ` (${failed.join(', ')})` : ''}`, { code: 'all_providers_failed' });
  }
}

/** Where the target's STT bindings live: the local data dir's file, or the remote server's own. */
function serverConfigFile(ctx: HandlerContext, target: Target): string {
  // The server's CONFIG_FILE_NAME; a unit test keeps them equal (importing it would load TypeBox).
  const name = 'voxctl.config.json';
  return target.embedded ? join(resolveDataDir(undefined, ctx.env.raw()), name) : `the server's ${name} (in its data dir, or its --config file)`;
}

/** With `--keyterm`, a column saying which providers passed the terms to their vendor (`applied`) and which cannot (`unsupported`). */
function keytermColumn<R extends { keyterms?: SttResult['keyterms'] }>(keyterms: string[] | undefined): { header: string; get: (r: R) => string | undefined }[] {
  return keyterms ? [{ header: 'keyterms', get: (r) => r.keyterms }] : [];
}

const fmt = (n: number | null | undefined, digits = 4) => (n === null || n === undefined ? undefined : n.toFixed(digits));

/** `voxctl stt transcribe|compare|stream|accuracy|providers`. */
export function registerStt(program: Command, ctx: HandlerContext): void {
  const stt = program.command('stt').description(describeCommand('stt'));
  registerTranscribe(stt, ctx);
  registerCompare(stt, ctx);
  registerAccuracy(stt, ctx);
  registerSttStream(stt, ctx, {
    // `all` here is every token; the stream command keeps the ones that stream.
    parseProviders: sttProviders,
    audioUrlFor,
  });
  registerProviders(stt, ctx);
}

const KEYTERM_HELP = "terms each provider should favour, sent in its vendor's boosting parameter (repeat, or several after one flag; 1..100 terms of 1..50 characters)";

/** `stt transcribe AUDIO -p …`: each provider's transcript, latency and confidence. */
function registerTranscribe(stt: Command, ctx: HandlerContext): void {
  examples(
    stt
      .command('transcribe')
      .argument('<audio>', 'local WAV/MP3/M4A file (uploaded first) or an http(s) URL')
      .requiredOption('-p, --providers <list>', "comma-separated providers, or 'all'")
      .option('--language <code>', 'language hint, e.g. en')
      .option('--keyterm <term...>', KEYTERM_HELP)
      .option('--csv', 'CSV output')
      .description('Transcribe audio with one or more providers'),
    [
      'voxctl stt transcribe hello.wav --providers local-sphinx',
      'voxctl stt transcribe https://example.com/a.mp3 --providers stt-b,stt-c --json',
      'voxctl stt transcribe call.wav -p stt-b,stt-c --keyterm Kubernetes --keyterm "Grafana Loki"',
    ],
  ).action(async (source: string, _o, cmd: Command) => {
    const flags = flagsOf<TranscribeFlags>(cmd);
    const options = transcribeOptions(flags);
    const { client, out, target } = await connect(ctx, flags);
    const catalog = new ProviderCatalog(ctx, client);
    const { providers, keyterms } = options;
    const audioUrl = await audioUrlFor(client, out, source);
    const res = await withSpinner(out, `Transcribing with ${providers.length} provider(s)`, () => transcribeAll(client, audioUrl, providers, options.language, keyterms));
    // Unconfigured providers are named in one line below rather than as rows of zeros.
    const rows = Object.entries(res.results)
      .filter(([, r]) => out.json || options.csv || r.error?.code !== 'provider_not_configured')
      .map(([provider, r]) => ({ provider, ...r }));
    const label = out.json || options.csv ? (id: string) => id : await catalog.labeller();
    // No rows left (every provider unconfigured): no empty table, the lines below say what to do.
    if (rows.length > 0 || out.json || options.csv) await out.list(res, rows, [
      { header: 'provider', get: (r) => label(r.provider) },
      { header: 'transcript', get: (r) => r.transcript ?? (r.error ? styled(`${out.color.red(terminalText(r.error.code))}: ${terminalText(r.error.message)}`) : null) },
      { header: 'latency_ms', get: (r) => r.latency_ms },
      { header: 'confidence', get: (r) => fmt(r.confidence, 3) },
      ...keytermColumn<(typeof rows)[number]>(keyterms),
    ], flags);
    reportFailures(out, res.results, serverConfigFile(ctx, target));
  });
}

/** `stt compare AUDIO -p … -r TEXT`: providers ranked by WER against the reference. */
function registerCompare(stt: Command, ctx: HandlerContext): void {
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
      .option('--keyterm <term...>', KEYTERM_HELP)
      .option('--csv', 'CSV output')
      .description('Rank providers by word error rate against a reference transcript'),
    [
      'voxctl stt compare talk.wav --providers all --reference-file talk.txt',
      'voxctl stt compare talk.wav -p local-sphinx,stt-b -r "hello world" --csv',
      'voxctl stt compare call.wav -p all --reference-file call.txt --keyterm Kubernetes "Grafana Loki"',
    ],
  ).action(async (source: string, _o, cmd: Command) => {
    const flags = flagsOf<CompareFlags>(cmd);
    const { providers, reference, scoring, keyterms, ...options } = await compareOptions(flags);
    const { client, out, target } = await connect(ctx, flags);
    const catalog = new ProviderCatalog(ctx, client);
    const audioUrl = await audioUrlFor(client, out, source);
    const res = await withSpinner(out, `Transcribing with ${providers.length} provider(s)`, () => transcribeAll(client, audioUrl, providers, options.language, keyterms));
    const ranked = Object.entries(res.results)
      .map(([provider, r]) => ({ provider, ...r, accuracy: r.transcript !== null ? accuracy(reference, r.transcript, scoring) : null }))
      .sort((a, b) => (a.accuracy?.wer ?? Infinity) - (b.accuracy?.wer ?? Infinity) || a.latency_ms - b.latency_ms)
      .map((r, i) => ({ rank: r.accuracy ? i + 1 : null, ...r }));
    if (out.json) {
      out.printJson({ reference, audio_url: audioUrl, results: ranked });
      return reportFailures(out, res.results, serverConfigFile(ctx, target));
    }
    const shown = options.csv ? ranked : ranked.filter((r) => r.error?.code !== 'provider_not_configured');
    const label = options.csv ? (id: string) => id : await catalog.labeller();
    if (shown.length > 0) await out.list(null, shown, [
      { header: 'rank', get: (r) => r.rank },
      { header: 'provider', get: (r) => label(r.provider) },
      { header: 'wer', get: (r) => fmt(r.accuracy?.wer) },
      { header: 'cer', get: (r) => fmt(r.accuracy?.cer) },
      { header: 'latency_ms', get: (r) => r.latency_ms },
      { header: 'confidence', get: (r) => fmt(r.confidence, 3) },
      ...keytermColumn<(typeof shown)[number]>(keyterms),
      { header: 'transcript / error', get: (r) => r.transcript ?? (r.error ? `${r.error.code}: ${r.error.message}` : null) },
    ], flags);
    reportFailures(out, res.results, serverConfigFile(ctx, target));
  });
}

/** `stt accuracy -r TEXT -H TEXT`: WER/CER offline, the alignment and the entities found. */
function registerAccuracy(stt: Command, ctx: HandlerContext): void {
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
      .option('--entity <type=value...>', `entities to look for in the hypothesis (${ENTITY_TYPES.join(', ')}), e.g. money=12.50`)
      .description('Compute WER/CER offline (same rules as the service), and whether entities came through'),
    [
      'voxctl stt accuracy --reference "the cat sat" --hypothesis "the cat sad"',
      'voxctl stt accuracy --reference-file ref.txt --hypothesis-file hyp.txt --alignment',
      'voxctl stt accuracy -r "twenty one percent" -H "21%" --normalizer whisper-en',
      'voxctl stt accuracy -r "your balance is twelve dollars and fifty cents" -H "Your balance is $12.50." --entity money=12.50',
    ],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<AccuracyFlags>(cmd);
    const { reference, hypothesis, scoring } = await accuracyOptions(flags);
    const out = outputFor(ctx, flags);
    const result = accuracy(reference, hypothesis, scoring);
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
      ...(result.entities ?? []).map((e) => [`${e.type} ${e.value}`, styled(e.found ? out.color.green('found') : out.color.red('missed'))] as [string, unknown]),
    ]);
    if (result.alignment) out.write('\n' + renderAlignment(out, result.alignment) + '\n');
  });
}

/** `stt providers`: the service's providers, their bindings and readiness. */
function registerProviders(stt: Command, ctx: HandlerContext): void {
  examples(stt.command('providers').option('--csv', 'CSV output').description('List the providers this service knows, what each is bound to, whether they are ready and whether they stream'), [
    'voxctl stt providers',
    'voxctl stt providers --csv',
  ]).action(
    async (_o, cmd: Command) => {
      const flags = flagsOf<{ csv?: boolean }>(cmd);
      const { client, out } = await connect(ctx, flags);
      const catalog = new ProviderCatalog(ctx, client);
      const items = await catalog.list();
      const priced = items.some((p) => typeof p.price_per_minute_usd === 'number');
      await out.list({ items }, items, [
        { header: 'id', get: (p) => p.id },
        // The table names what each token is bound to (`stt-b · deepgram nova-3`); CSV keeps the parts.
        ...(flags.csv ? [] : [{ header: 'provider', get: (p: ProviderView) => providerLabel(p) }]),
        { header: 'state', get: (p) => p.state },
        ...(flags.csv ? [{ header: 'adapter', get: (p: ProviderView) => p.adapter }, { header: 'model', get: (p: ProviderView) => p.model }] : []),
        { header: 'streaming', get: (p: ProviderView) => (p.streaming ? 'yes' : 'no') },
        ...(priced ? [{ header: 'usd_per_minute', get: (p: ProviderView) => p.price_per_minute_usd }] : []),
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
