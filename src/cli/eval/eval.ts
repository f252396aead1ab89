import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from '../core/commander.js';
import { Option } from '../core/commander.js';
import type { VoxClient } from '../../client/index.js';
import type { EvaluationDetail, EvaluationListItem, EvaluationUtterance } from '../../shared/schemas/evaluations.js';
import type { HandlerContext } from '../core/context.js';
import { CliError, ExitCode } from '../core/errors.js';
import { ProviderCatalog } from '../core/stt-providers.js';
import { connect } from '../core/session.js';
import { assertOutput, examples, flagsOf, latencyMsOption, pagingOptions, writeOutput } from '../core/util.js';
import { printPages } from '../core/pages.js';
import { derOption, rateOption, werOption } from './request.js';
import { callColumns, conversationCsvColumns, isConversation, listColumns, printEvaluation, streamingSummaryColumns, summaryCsvColumns, utteranceColumns } from './views.js';
import { checkGate, EvaluationProgress, finishRun, watchEvaluation } from './watch.js';
import { ciOutputOptions, emitCiOutputs, failureRateOption, registerEvalCompare } from './compare.js';
import { evalReportOptions, gatesOf, STATUSES, utterancesQuery, type CiFlags, type EvalReportFlags, type EvalUtterancesFlags } from './options.js';
import { registerEvalRun } from './run.js';
import { writeNistFiles } from './nist-files.js';
import { describeCommand } from '../command-groups.js';

export { STATUSES } from './options.js';

/** Saves the evaluation's HTML report to `file` (the signed `report_url` needs no key). */
async function saveReport(ctx: HandlerContext, client: VoxClient, ev: EvaluationDetail, file: string, force: boolean | undefined): Promise<void> {
  await writeOutput(ctx, file, await client.downloadReport(ev.report_url), force);
}

/** `voxctl eval run|list|show|utterances|calls|report|compare|rerun|cancel` (DESIGN §8.7, §16.6). */
export function registerEval(program: Command, ctx: HandlerContext): void {
  const evaluation = program
    .command('eval')
    .description(describeCommand('eval'));
  registerEvalRun(evaluation, ctx);
  registerList(evaluation, ctx);
  registerShow(evaluation, ctx);
  registerUtterances(evaluation, ctx);
  registerCalls(evaluation, ctx);
  registerReport(evaluation, ctx);
  registerEvalCompare(evaluation, ctx);
  registerCancel(evaluation, ctx);
}

/** `eval list`: your evaluations, newest first. */
function registerList(evaluation: Command, ctx: HandlerContext): void {
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
}

/** `eval show ID`: progress, summary and comparisons; with gates, the CI outputs and exit 7. */
function registerShow(evaluation: Command, ctx: HandlerContext): void {
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
        .option('--max-der <x>', `CI gate of a conversation: exit ${ExitCode.werGate} when a provider's DER on the calls exceeds x; a provider without diarization fails it`, derOption)
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
    const flags = flagsOf<{ csv?: boolean; watch?: boolean } & CiFlags>(cmd);
    const { client, out } = await connect(ctx, flags);
    const ev = flags.watch
      ? await watchEvaluation(() => client.getEvaluation(id), { out, progress: new EvaluationProgress(out), now: () => ctx.clock.now().getTime(), sleep: ctx.clock.sleep })
      : await client.getEvaluation(id);
    if (out.json) out.printJson(ev);
    else if (flags.csv) {
      if (!ev.summary) throw new CliError(`${id} is ${ev.status}: the summary appears when it is completed or partial`, { hint: `voxctl eval show ${id} --watch` });
      const extra = [...(ev.mode === 'streaming' ? streamingSummaryColumns : []), ...(isConversation(ev) ? conversationCsvColumns : [])];
      await out.csv(ev.summary, [...summaryCsvColumns, ...extra]);
    } else await printEvaluation(out, ev, await new ProviderCatalog(ctx, client).labeller());
    await emitCiOutputs(ctx, flags, { evaluation: ev });
    // The gate of a finished run (DESIGN §8.7); --watch also ends as a watched run does (exit 6).
    if (flags.watch) finishRun(ev, gatesOf(flags));
    else checkGate(ev, gatesOf(flags));
  });
}

/** `eval utterances ID`: an evaluation's utterances, filtered. */
function registerUtterances(evaluation: Command, ctx: HandlerContext): void {
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
    const flags = flagsOf<EvalUtterancesFlags>(cmd);
    const query = utterancesQuery(flags);
    const { client, out } = await connect(ctx, flags);
    // Rows of a corpus evaluation carry utterance ids: show them (decided from the rows, no extra request).
    const columns = (rows: readonly EvaluationUtterance[]) =>
      utteranceColumns(Boolean(flags.csv), rows.some((u) => u.utterance_id !== undefined), rows.some((u) => u.final_latency_ms !== undefined));
    await printPages(out, flags, (p) => client.listEvaluationUtterances(id, { ...query, ...p }), columns);
  });
}

/** `eval calls ID`: a conversation evaluation's calls, one row per call × provider × condition (DESIGN §16.6). */
function registerCalls(evaluation: Command, ctx: HandlerContext): void {
  examples(
    pagingOptions(
      evaluation
        .command('calls')
        .argument('<id>', 'evaluation id (of a conversation, or of a corpus of recorded calls)')
        .option('--provider <name>', 'only this provider')
        .option('--condition <c>', 'only this condition')
        .option('--nist <dir>', 'write every call as NIST files to DIR instead: reference.rttm, reference.stm, {provider}.{condition}.hypothesis.rttm (for md-eval.pl)'),
      'follow pages and list every call',
    ).description("List a conversation evaluation's calls: WER, cpWER, DER, speakers found, dropped turns"),
    [
      'voxctl eval calls ev_123',
      'voxctl eval calls ev_123 --provider stt-b --all --json | jq ".items[] | select(.der > 0.2)"',
      'voxctl eval calls ev_123 --nist calls/ && md-eval.pl -c 0.25 -r calls/reference.rttm -s calls/stt-b.clean.hypothesis.rttm',
    ],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<EvalUtterancesFlags & { nist?: string }>(cmd);
    const query = utterancesQuery(flags);
    const { client, out } = await connect(ctx, flags);
    if (flags.nist !== undefined) {
      const written = await writeNistFiles(client, id, resolve(flags.nist));
      for (const f of written) out.info(`Wrote ${join(flags.nist, f)}`);
      return;
    }
    await printPages(out, flags, (p) => client.listEvaluationUtterances(id, { ...query, ...p }), callColumns);
  });
}

/** `eval report ID -o FILE`: the self-contained HTML report. */
function registerReport(evaluation: Command, ctx: HandlerContext): void {
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
    const flags = flagsOf<EvalReportFlags>(cmd);
    assertOutput(ctx, flags.out, { force: flags.force, json: flags.json, what: 'the HTML report' });
    const options = evalReportOptions(flags);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const ev = await client.getEvaluation(id);
    await saveReport(ctx, client, ev, options.file, options.force);
    if (options.toStdout) return;
    if (out.json) out.printJson({ evaluation_id: id, file: options.file, status: ev.status });
    else out.success(`Saved the report of ${id} (${ev.status}) to ${options.file}`);
    if (options.open && !(await ctx.openUrl(pathToFileURL(resolve(options.file)).href))) out.warn(`No browser opener found; open ${options.file} yourself.`);
  });
}

/** `eval cancel ID`: characters not yet synthesised are refunded. */
function registerCancel(evaluation: Command, ctx: HandlerContext): void {
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
