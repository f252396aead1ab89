import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from '../core/commander.js';
import { Option } from '../core/commander.js';
import type { VoxClient } from '../../client/index.js';
import type { EvaluationDetail, EvaluationListItem, EvaluationUtterance } from '../../shared/schemas/evaluations.js';
import type { HandlerContext } from '../core/context.js';
import { ApiRequestError } from '../../client/errors.js';
import { QuotaExceededError } from '../core/api-errors.js';
import { CliError, ExitCode, usageError } from '../core/errors.js';
import { ProviderCatalog } from '../core/stt-providers.js';
import { connect } from '../core/session.js';
import { assertOutput, assertWritable, examples, flagsOf, intOption, latencyMsOption, pagingOptions, parsePace, STDOUT_FILE, writeOutput } from '../core/util.js';
import { parseConditions, rateOption, runRequest, werOption, type RunFlags } from './request.js';
import { printPages } from '../core/pages.js';
import { listColumns, printEvaluation, streamingSummaryColumns, summaryCsvColumns, utteranceColumns } from './views.js';
import { checkGate, EvaluationProgress, finishRun, watchEvaluation } from './watch.js';
import { ciOutputOptions, emitCiOutputs, failureRateOption, finishWatched, gatesOf, registerEvalCompare, regressionGateOption, type CiFlags } from './compare.js';
import { anyGate } from '../../shared/evaluation-gates.js';
import { corpusName, prepareUpload, uploadCorpusFrom } from '../core/corpus-upload.js';
import { describeCommand } from '../command-groups.js';

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

/** The states of `--status`: the schema's EvaluationStatus, copied so TypeBox is not loaded at start-up (a test checks they match). */
export const STATUSES = ['pending', 'processing', 'completed', 'partial', 'failed', 'cancelled'];

/** Saves the evaluation's HTML report to `file` (the signed `report_url` needs no key). */
async function saveReport(ctx: HandlerContext, client: VoxClient, ev: EvaluationDetail, file: string, force: boolean | undefined): Promise<void> {
  await writeOutput(ctx, file, await client.downloadReport(ev.report_url), force);
}

/** `voxctl eval run|list|show|utterances|report|cancel` (DESIGN §8.7). */
export function registerEval(program: Command, ctx: HandlerContext): void {
  const evaluation = program
    .command('eval')
    .description(describeCommand('eval'));

  examples(
    // CI outputs and the regression gate against a baseline (DESIGN §11.4, §11.5): see eval-compare.ts.
    regressionGateOption(ciOutputOptions(evaluation
      .command('run')
      .description('Start an evaluation: synthesise texts with speakers, degrade, transcribe, score')
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
      .option('--max-failure-rate <r>', `with any gate: exit ${ExitCode.werGate} when more than this share of a provider's requests failed (0..1, default 0)`, failureRateOption)
      .option('--dry-run', 'print utterances, characters, audio minutes and cost where priced; create nothing')
      .option('--baseline <id>', 'an earlier evaluation to compare with when this one ends (with --max-regression: the regression gate)'))),
    [
      'voxctl eval run --texts prompts.txt --filter region=Europe --group-by accent --per-group 2 --providers local-sphinx --conditions clean,telephone,noise:5 --watch --report r.html',
      'voxctl eval run --texts prompts.txt --speaker spk_a spk_b --providers stt-b,local-sphinx --max-wer 0.3',
      'voxctl eval run --texts prompts.txt --filter accent=Scottish --group-by engine --per-group 2 --providers all --dry-run',
      'voxctl eval run --corpus ./my-recordings --providers local-sphinx --conditions clean,telephone --watch --report r.html',
      'voxctl eval run --corpus cor_123 --sample 200 --seed 7 --group-by speaker --providers local-sphinx,stt-b --watch',
      'voxctl eval run --texts prompts.txt --speaker spk_a spk_b --providers stt-b,local-sphinx --mode streaming --max-final-latency 800 --report r.html',
      'voxctl eval run --texts prompts.txt --speaker spk_a --providers stt-b,stt-c --probe non-speech --entities digits,money,date --keyterms terms.txt --report r.html',
    ],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<RunFlags & CiFlags & { baseline?: string }>(cmd);
    const plan = await runRequest(ctx, flags);
    if (flags.report === STDOUT_FILE) throw usageError('--report - would mix the report with the summary on stdout', 'save it to a file, or run `voxctl eval report ID -o -` afterwards');
    if (flags.report) assertWritable(flags.report, flags.force);
    // --corpus PATH: checked here (layout detected locally), uploaded once connected, then evaluated.
    const corpusPath = flags.corpus !== undefined ? await corpusPathOf(flags.corpus) : undefined;
    const prepared = corpusPath !== undefined ? await prepareUpload(corpusPath) : undefined;
    if (flags.dryRun && prepared && !prepared.parsed) {
      throw usageError('--dry-run reads a corpus folder or an uploaded corpus, not an archive', 'extract it and give the folder, or upload it (`voxctl corpus upload FILE`) and dry-run its id');
    }
    const { client, out } = await connect(ctx, flags, { announce: !flags.dryRun });
    const catalog = new ProviderCatalog(ctx, client);
    // `all` = every provider the service has configured (DESIGN §8.1), never a token bound to fail.
    const providers = await catalog.resolve(plan.providers);
    if (flags.dryRun && flags.corpus !== undefined) {
      // A folder is priced from its manifests and audio headers, an uploaded corpus from its view: nothing is uploaded.
      const { corpusDryRun, printCorpusDryRun } = await import('./dry-run-corpus.js');
      const folder = prepared?.parsed && corpusPath !== undefined ? { path: corpusPath, name: corpusName(undefined, corpusPath), parsed: prepared.parsed } : undefined;
      return printCorpusDryRun(out, await corpusDryRun(client, { body: plan.body, providers, known: await catalog.recent(), ...(folder ? { folder } : {}) }));
    }
    if (flags.dryRun) {
      const { dryRun, printDryRun } = await import('./dry-run.js');
      return printDryRun(out, await dryRun(client, plan.body, providers, await catalog.recent()));
    }
    const body = { ...plan.body, providers, ...(flags.baseline !== undefined ? { baseline_id: flags.baseline } : {}) };
    if (prepared && corpusPath !== undefined) {
      const uploaded = await uploadCorpusFrom(ctx, { client, out }, { name: corpusName(undefined, corpusPath), prepared });
      out.info(`Uploaded ${corpusPath} as ${uploaded.corpus_id}: ${uploaded.utterances} utterance(s), ${uploaded.speakers} speaker(s) (${uploaded.layout}).`);
      body.corpus_id = uploaded.corpus_id;
    }
    const created = await client.createEvaluation(body).catch(async (e: unknown) => {
      // A filter nothing matches: the closest values the catalogue has, before the service's error.
      const filter = body.speakers?.filter;
      if (e instanceof ApiRequestError && e.status === 400 && filter && e.detail === 'No speakers match the filter') {
        const { explainNoMatch } = await import('../core/speaker-hints.js');
        await explainNoMatch(out, filter, () => client.speakerFacets(), (f, v) => `--filter ${f}=${v}`);
      }
      // A quota 429 says how many characters the run needed and how many are left (asked only then).
      if (!(e instanceof ApiRequestError) || e.code !== 'quota_exceeded') throw e;
      const { evaluationCharacters } = await import('./dry-run.js');
      const needed = await evaluationCharacters(client, plan.body).catch(() => undefined);
      if (needed === undefined) throw e;
      throw new QuotaExceededError(e, needed, await client.usage().catch(() => undefined));
    });
    const ci = flags.junit !== undefined || flags.markdown !== undefined || flags.maxRegression !== undefined;
    const gated = anyGate(gatesOf(flags));
    const watch = flags.watch || flags.report !== undefined || gated || ci;
    if (!watch) {
      if (out.json) return out.printJson(created);
      out.write(created.evaluation_id + '\n');
      out.info(`${created.total_utterances} utterances queued. Follow with: voxctl eval show ${created.evaluation_id}`);
      return;
    }
    out.info(`${created.evaluation_id}: ${created.total_utterances} utterances`);
    const ev = await watchEvaluation(() => client.getEvaluation(created.evaluation_id), {
      out,
      progress: new EvaluationProgress(out),
      now: () => ctx.clock.now().getTime(),
      sleep: ctx.clock.sleep,
    });
    if (flags.report) {
      await saveReport(ctx, client, ev, flags.report, flags.force);
      out.success(`Saved the report of ${ev.evaluation_id} to ${flags.report}`);
    }
    await finishWatched(ctx, client, out, ev, flags, await catalog.labeller());
  });

  examples(
    pagingOptions(evaluation.command('list').addOption(new Option('--status <status>', 'only evaluations in this state').choices(STATUSES))).description(
      'List your evaluations, newest first',
    ),
    ['voxctl eval list', 'voxctl eval list --status completed --json | jq -r ".items[].evaluation_id"'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ status?: EvaluationListItem['status']; limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    await printPages(out, flags, (p) => client.listEvaluations({ status: flags.status, ...p }), listColumns);
  });

  examples(
    ciOutputOptions(
      evaluation
        .command('show')
        .argument('<id>', 'evaluation id')
        .option('--csv', 'the summary rows as CSV')
        .option('--watch', 'follow progress until it ends (exit 6 unless it completes)')
        .option('--max-wer <x>', `CI gate: exit ${ExitCode.werGate} when a provider's overall WER under a condition exceeds x`, werOption)
        .option('--max-final-latency <ms>', `CI gate of a streaming evaluation: exit ${ExitCode.werGate} when a provider's p95 final latency exceeds ms`, latencyMsOption)
        .option('--max-hallucination <x>', `CI gate: exit ${ExitCode.werGate} when a provider writes words on more than x of the non-speech clips`, rateOption('--max-hallucination'))
        .option('--min-entity-accuracy <x>', `CI gate: exit ${ExitCode.werGate} when an entity type's accuracy is below x`, rateOption('--min-entity-accuracy'))
        .option('--max-failure-rate <r>', `with any gate: exit ${ExitCode.werGate} when more than this share of a provider's requests failed (0..1, default 0)`, failureRateOption)
        .description('Show an evaluation: progress, summary and comparisons'),
    ),
    [
      'voxctl eval show ev_123',
      'voxctl eval show ev_123 --csv > summary.csv',
      'voxctl eval show ev_123 --json | jq ".summary[] | select(.group == \\"all\\")"',
      'voxctl eval show ev_123 --max-wer 0.25 --junit junit.xml',
    ],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ csv?: boolean; watch?: boolean; maxWer?: number; maxFinalLatency?: number; maxHallucination?: number; minEntityAccuracy?: number } & CiFlags>(cmd);
    const { client, out } = await connect(ctx, flags);
    const ev = flags.watch
      ? await watchEvaluation(() => client.getEvaluation(id), { out, progress: new EvaluationProgress(out), now: () => ctx.clock.now().getTime(), sleep: ctx.clock.sleep })
      : await client.getEvaluation(id);
    if (out.json) out.printJson(ev);
    else if (flags.csv) {
      if (!ev.summary) throw new CliError(`${id} is ${ev.status}: the summary appears when it is completed or partial`, { hint: `voxctl eval show ${id} --watch` });
      await out.csv(ev.summary, ev.mode === 'streaming' ? [...summaryCsvColumns, ...streamingSummaryColumns] : summaryCsvColumns);
    } else await printEvaluation(out, ev, await new ProviderCatalog(ctx, client).labeller());
    await emitCiOutputs(ctx, flags, { evaluation: ev });
    // The gate of a finished run (DESIGN §8.7); --watch also ends as a watched run does (exit 6).
    if (flags.watch) finishRun(ev, gatesOf(flags));
    else checkGate(ev, gatesOf(flags));
  });

  examples(
    pagingOptions(
      evaluation
        .command('utterances')
        .argument('<id>', 'evaluation id')
        .option('--provider <name>', 'only this provider')
        .option('--condition <c>', 'only this condition')
        .option('--group <value>', 'only this group value')
        .option('--errors-only', 'only utterances with errors')
        .option('--determinable-only', 'only determinable failures (another provider got the same audio right)'),
      'follow pages and list every utterance',
    ).description("List an evaluation's utterances: reference, transcript, WER, latency"),
    ['voxctl eval utterances ev_123 --determinable-only --provider stt-b', 'voxctl eval utterances ev_123 --all --csv > utterances.csv'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ provider?: string; condition?: string; group?: string; errorsOnly?: boolean; determinableOnly?: boolean; limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const condition = flags.condition === undefined ? undefined : parseConditions(flags.condition)[0];
    const query = {
      provider: flags.provider,
      condition,
      group: flags.group,
      ...(flags.errorsOnly ? { errors_only: true } : {}),
      ...(flags.determinableOnly ? { determinable_only: true } : {}),
    };
    const { client, out } = await connect(ctx, flags);
    // Rows of a corpus evaluation carry utterance ids: show them (decided from the rows, no extra request).
    const columns = (rows: readonly EvaluationUtterance[]) =>
      utteranceColumns(Boolean(flags.csv), rows.some((u) => u.utterance_id !== undefined), rows.some((u) => u.final_latency_ms !== undefined));
    await printPages(out, flags, (p) => client.listEvaluationUtterances(id, { ...query, ...p }), columns);
  });

  examples(
    evaluation
      .command('report')
      .argument('<id>', 'evaluation id')
      .requiredOption('-o, --out <file>', "HTML file to write ('-': stdout, when it is not a terminal)")
      .option('--open', 'open the saved report in the browser')
      .option('--force', 'overwrite an existing file')
      .description('Save the self-contained HTML report of an evaluation'),
    ['voxctl eval report ev_123 -o report.html --open'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ out: string; open?: boolean; force?: boolean }>(cmd);
    assertOutput(ctx, flags.out, { force: flags.force, json: flags.json, what: 'the HTML report' });
    if (flags.out === STDOUT_FILE && flags.open) throw usageError('--open needs a saved file, not -o -');
    const { client, out } = await connect(ctx, flags, { announce: true });
    const ev = await client.getEvaluation(id);
    await saveReport(ctx, client, ev, flags.out, flags.force);
    if (flags.out === STDOUT_FILE) return;
    if (out.json) out.printJson({ evaluation_id: id, file: flags.out, status: ev.status });
    else out.success(`Saved the report of ${id} (${ev.status}) to ${flags.out}`);
    if (flags.open && !(await ctx.openUrl(pathToFileURL(resolve(flags.out)).href))) out.warn(`No browser opener found; open ${flags.out} yourself.`);
  });

  registerEvalCompare(evaluation, ctx);

  examples(evaluation.command('cancel').argument('<id>', 'evaluation id').description('Cancel an evaluation; characters not yet synthesised are refunded'), [
    'voxctl eval cancel ev_123',
  ]).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf(cmd);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const ev = await client.cancelEvaluation(id);
    if (out.json) return out.printJson(ev);
    out.write(`${ev.evaluation_id}\t${ev.status}\n`);
    out.success(`Cancelled ${id} after ${ev.completed_utterances} of ${ev.total_utterances} utterances`);
  });
}
