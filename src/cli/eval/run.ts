// `voxctl eval run` (DESIGN §8.7): the request built from the flags, a corpus PATH uploaded first, a dry
// run priced instead, the evaluation created, then followed to its end when something needs the end.
import type { Command } from '../core/commander.js';
import type { VoxClient } from '../../client/index.js';
import type { CreateEvaluationRequest, EvaluationCreated } from '../../shared/schemas/evaluations.js';
import type { HandlerContext } from '../core/context.js';
import { ApiRequestError } from '../../client/errors.js';
import { QuotaExceededError } from '../core/api-errors.js';
import { ExitCode, usageError } from '../core/errors.js';
import type { Output } from '../core/output.js';
import { ProviderCatalog } from '../core/stt-providers.js';
import { connect, type GlobalFlags } from '../core/session.js';
import { assertWritable, examples, flagsOf, intOption, latencyMsOption, parsePace, writeOutput } from '../core/util.js';
import { corpusName, prepareUpload, uploadCorpusFrom, type PreparedUpload } from '../core/corpus-upload.js';
import { derOption, overlapOption, rateOption, runRequest, werOption, type RunPlan } from './request.js';
import { EvaluationProgress, watchEvaluation } from './watch.js';
import { ciOutputOptions, failureRateOption, finishWatched, regressionGateOption } from './compare.js';
import { evalRunOptions, type EvalRunFlags, type EvalRunOptions } from './options.js';

/** Registers `eval run` under `eval`. */
export function registerEvalRun(evaluation: Command, ctx: HandlerContext): void {
  examples(
    // CI outputs and the regression gate against a baseline (DESIGN §11.4, §11.5): see compare.ts.
    regressionGateOption(ciOutputOptions(runOptions(evaluation.command('run').description('Start an evaluation: synthesise texts with speakers, degrade, transcribe, score')))),
    [
      'voxctl eval run --texts prompts.txt --filter region=Europe --group-by accent --per-group 2 --providers local-sphinx --conditions clean,telephone,noise:5 --watch --report r.html',
      'voxctl eval run --texts prompts.txt --speaker spk_a spk_b --providers stt-b,local-sphinx --max-wer 0.3',
      'voxctl eval run --texts prompts.txt --filter accent=Scottish --group-by engine --per-group 2 --providers all --dry-run',
      'voxctl eval run --corpus ./my-recordings --providers local-sphinx --conditions clean,telephone --watch --report r.html',
      'voxctl eval run --corpus cor_123 --sample 200 --seed 7 --group-by speaker --providers local-sphinx,stt-b --watch',
      'voxctl eval run --texts prompts.txt --speaker spk_a spk_b --providers stt-b,local-sphinx --mode streaming --max-final-latency 800 --report r.html',
      'voxctl eval run --texts prompts.txt --filter region=Europe --group-by accent --per-group 2 --conversation 20 --providers all --max-der 0.2 --watch --report calls.html',
      'voxctl eval run --texts prompts.txt --speaker spk_a --providers stt-b,stt-c --probe non-speech --entities digits,money,date --keyterms terms.txt --report r.html',
    ],
  ).action(async (_o, cmd: Command) => runEvaluation(ctx, flagsOf<EvalRunFlags>(cmd)));
}

/** The flags of `eval run`: source, speakers, providers, conditions, mode, probes, gates, dry run. */
function runOptions(cmd: Command): Command {
  return cmd
    .option('--texts <file>', "texts, one per line ('-' reads stdin)")
    .option('--dataset <id>', 'use the texts of an uploaded dataset')
    .option('--corpus <id|path>', 'evaluate on recorded speech: a corpus id, or a directory/archive to upload first (see docs/corpora.md)')
    .option('--sample <n>', 'with --corpus: a seeded sample of n utterances (--seed chooses it)', intOption('--sample', 1, 20_000))
    .option('--speaker <id...>', 'speakers to use (repeat, or a comma-separated list)')
    .option('--filter <key=value...>', 'choose speakers from the catalogue: gender, region, accent, age_range, native_language')
    .option('--group-by <group>', 'group results by gender|region|accent|age_range|native_language|engine (default accent); with --corpus: speaker or a metadata field')
    .option('--per-group <k>', 'speakers per group value with --filter (1..20)', intOption('--per-group', 1, 20))
    .option('--seed <n>', 'seed of the speaker choice, noise and bootstrap (default 0)', intOption('--seed', 0, Number.MAX_SAFE_INTEGER))
    .requiredOption('-p, --providers <list>', "comma-separated STT providers, or 'all' (every provider the service has configured)")
    .option('--conditions <list>', 'clean, telephone, noise:{snr}, speed:{factor}, comma-separated (default clean)')
    .option('--normalizer <name>', 'basic (default) or whisper-en')
    .option('--name <name>', 'a name for the evaluation')
    .option('--watch', 'show progress until it ends (exit 6 if it fails)')
    .option('--report <file>', 'save the HTML report when it ends (implies --watch)')
    .option('--force', 'overwrite an existing --report file')
    .option('--max-wer <x>', `CI gate: exit ${ExitCode.werGate} when a provider's overall WER under a condition exceeds x (implies --watch)`, werOption)
    .option('--mode <mode>', 'batch (default): one request per utterance; streaming: each utterance streamed in real time, latency measured (DESIGN §13.2)')
    .option('--pace <x>', 'with --mode streaming: audio sent at this multiple of real time (0.5..4, default 1)', parsePace)
    .option(
      '--max-final-latency <ms>',
      `with --mode streaming, CI gate: exit ${ExitCode.werGate} when a provider's p95 final latency (end of speech → final result) under a condition exceeds ms (implies --watch)`,
      latencyMsOption,
    )
    .option('--probe <probe...>', 'non-speech[:clips[:seconds]]: seeded silence, noise, hum, tone and DTMF clips sent to every provider (default 20 clips of 5 s)')
    .option('--entities <types>', 'entity sentences joining the texts: digits, phone, number, money, date, time, email, code (comma-separated)')
    .option('--per-type <n>', 'with --entities: sentences per type (1..200, default 10)', intOption('--per-type', 1, 200))
    .option('--keyterms <file|terms>', 'a file of terms (one per line) or TERM,…: each provider hears every utterance again with its boosting')
    .option('--max-hallucination <x>', `CI gate: exit ${ExitCode.werGate} when a provider writes words on more than x of the non-speech clips (0..1)`, rateOption('--max-hallucination'))
    .option('--min-entity-accuracy <x>', `CI gate: exit ${ExitCode.werGate} when an entity type's accuracy is below x (0..1)`, rateOption('--min-entity-accuracy'))
    .option('--conversation [calls[:turns[:speakers]]]', 'synthetic calls: turns of the texts spoken by 2..4 speakers in one track (default 1 call of 12 turns, 2 speakers; DESIGN §16)')
    .option('--overlap <x>', 'with --conversation: the share of turns that start before the previous one ends (0..0.5, default 0)', overlapOption)
    .option('--max-der <x>', `CI gate: exit ${ExitCode.werGate} when a provider's DER on the calls exceeds x; a provider without diarization fails it (not measured)`, derOption)
    .option('--max-failure-rate <r>', `with any gate: exit ${ExitCode.werGate} when more than this share of a provider's requests failed (0..1, default 0)`, failureRateOption)
    .option('--dry-run', 'print utterances, characters, audio minutes and cost where priced; create nothing')
    .option('--baseline <id>', 'an earlier evaluation to compare with when this one ends (with --max-regression: the regression gate)');
}

/** A corpus PATH given to `--corpus`: checked and parsed here (layout detected locally), uploaded once connected. */
interface LocalCorpus {
  path: string;
  prepared: PreparedUpload;
}

/** Everything `eval run` does, in the order its checks have always run (the first mistake is the one said). */
async function runEvaluation(ctx: HandlerContext, flags: GlobalFlags & EvalRunFlags): Promise<void> {
  const plan = await runRequest(ctx, flags);
  const options = evalRunOptions(flags);
  if (options.report) assertWritable(options.report, options.force);
  const local = await localCorpus(flags.corpus, options.dryRun);
  const { client, out } = await connect(ctx, flags, { announce: !options.dryRun });
  const catalog = new ProviderCatalog(ctx, client);
  // `all` = every provider the service has configured (DESIGN §8.1), never a token bound to fail.
  const providers = await catalog.resolve(plan.providers);
  if (options.dryRun) return printRunDryRun(client, out, catalog, { plan, providers, corpus: flags.corpus, local });
  const body: CreateEvaluationRequest = { ...plan.body, providers, ...(options.baseline !== undefined ? { baseline_id: options.baseline } : {}) };
  if (local) {
    const uploaded = await uploadCorpusFrom(ctx, { client, out }, { name: corpusName(undefined, local.path), prepared: local.prepared });
    out.info(`Uploaded ${local.path} as ${uploaded.corpus_id}: ${uploaded.utterances} utterance(s), ${uploaded.speakers} speaker(s) (${uploaded.layout}).`);
    body.corpus_id = uploaded.corpus_id;
  }
  const created = await createEvaluation(client, out, body, plan);
  if (!options.watch) {
    if (out.json) return out.printJson(created);
    out.write(created.evaluation_id + '\n');
    out.info(`${created.total_utterances} utterances queued. Follow with: voxctl eval show ${created.evaluation_id}`);
    return;
  }
  await followRun(ctx, { client, out, catalog }, created, options, flags);
}

/**
 * `--corpus X`: a path when X exists on disk (uploaded first), else a corpus id; a value that is neither
 * is a usage error rather than a 404 about a mistyped folder.
 */
async function corpusPathOf(value: string): Promise<string | undefined> {
  const { stat } = await import('node:fs/promises');
  if (await stat(value).then(() => true, () => false)) return value;
  if (/^cor_/.test(value)) return undefined;
  throw usageError(`--corpus: no such file or directory: ${value}`, 'give a corpus id (cor_…) or the path of a corpus directory or archive');
}

/** `--corpus PATH` checked and its manifests parsed; undefined for a corpus id (or no --corpus). */
async function localCorpus(corpus: string | undefined, dryRun: boolean): Promise<LocalCorpus | undefined> {
  const path = corpus !== undefined ? await corpusPathOf(corpus) : undefined;
  if (path === undefined) return undefined;
  const prepared = await prepareUpload(path);
  if (dryRun && !prepared.parsed) {
    throw usageError('--dry-run reads a corpus folder or an uploaded corpus, not an archive', 'extract it and give the folder, or upload it (`voxctl corpus upload FILE`) and dry-run its id');
  }
  return { path, prepared };
}

/** `--dry-run`: what the run would cost, priced from the texts, or from a corpus (its folder's manifests, or an uploaded corpus's view). */
async function printRunDryRun(
  client: VoxClient,
  out: Output,
  catalog: ProviderCatalog,
  run: { plan: RunPlan; providers: string[]; corpus: string | undefined; local: LocalCorpus | undefined },
): Promise<void> {
  if (run.corpus !== undefined) {
    // A folder is priced from its manifests and audio headers, an uploaded corpus from its view: nothing is uploaded.
    const { corpusDryRun, printCorpusDryRun } = await import('./dry-run-corpus.js');
    const { local } = run;
    const folder = local?.prepared.parsed ? { path: local.path, name: corpusName(undefined, local.path), parsed: local.prepared.parsed } : undefined;
    return printCorpusDryRun(out, await corpusDryRun(client, { body: run.plan.body, providers: run.providers, known: await catalog.recent(), ...(folder ? { folder } : {}) }));
  }
  const { dryRun, printDryRun } = await import('./dry-run.js');
  return printDryRun(out, await dryRun(client, run.plan.body, run.providers, await catalog.recent()));
}

/**
 * Creates the evaluation. A filter nothing matches gets the closest values the catalogue has before the
 * service's error; a quota 429 says how many characters the run needed and how many are left.
 */
async function createEvaluation(client: VoxClient, out: Output, body: CreateEvaluationRequest, plan: RunPlan): Promise<EvaluationCreated> {
  return client.createEvaluation(body).catch(async (e: unknown) => {
    const filter = body.speakers?.filter;
    if (e instanceof ApiRequestError && e.status === 400 && filter && e.detail === 'No speakers match the filter') {
      const { explainNoMatch } = await import('../core/speaker-hints.js');
      await explainNoMatch(out, filter, () => client.speakerFacets(), (f, v) => `--filter ${f}=${v}`);
    }
    // Asked only then: the characters the run needs.
    if (!(e instanceof ApiRequestError) || e.code !== 'quota_exceeded') throw e;
    const { evaluationCharacters } = await import('./dry-run.js');
    const needed = await evaluationCharacters(client, plan.body).catch(() => undefined);
    if (needed === undefined) throw e;
    throw new QuotaExceededError(e, needed, await client.usage().catch(() => undefined));
  });
}

/** Follows a created run to its end: progress on stderr, the report saved, then the summary, CI outputs and gates. */
async function followRun(
  ctx: HandlerContext,
  session: { client: VoxClient; out: Output; catalog: ProviderCatalog },
  created: EvaluationCreated,
  options: EvalRunOptions,
  flags: EvalRunFlags,
): Promise<void> {
  const { client, out, catalog } = session;
  out.info(`${created.evaluation_id}: ${created.total_utterances} utterances`);
  const ev = await watchEvaluation(() => client.getEvaluation(created.evaluation_id), {
    out,
    progress: new EvaluationProgress(out),
    now: () => ctx.clock.now().getTime(),
    sleep: ctx.clock.sleep,
  });
  if (options.report) {
    // The signed `report_url` needs no key.
    await writeOutput(ctx, options.report, await client.downloadReport(ev.report_url), options.force);
    out.success(`Saved the report of ${ev.evaluation_id} to ${options.report}`);
  }
  await finishWatched(ctx, client, out, ev, flags, await catalog.labeller());
}
