// Evaluations over time and in CI (DESIGN §11.4, §11.5): `eval compare`, `eval rerun`, the regression gate
// (`--max-regression`, exit 7) and the CI outputs (`--junit`, `--markdown`, GITHUB_STEP_SUMMARY) that
// `eval run`, `eval rerun`, `eval show` and `eval compare` share.
import { ProviderCatalog } from '../core/stt-providers.js';
import type { Command } from '../core/commander.js';
import type { VoxClient } from '../../client/index.js';
import type { EvaluationCompare, EvaluationCompareRow, EvaluationDetail } from '../../shared/schemas/evaluations.js';
import type { HandlerContext } from '../core/context.js';
import { ExitCode, usageError } from '../core/errors.js';
import type { Column, Output } from '../core/output.js';
import { connect } from '../core/session.js';
import { assertWritable, examples, flagsOf } from '../core/util.js';
import { printEvaluation } from './views.js';
import { EvaluationProgress, finishRun, gateError, watchEvaluation } from './watch.js';
import { gatesOf, type CiFlags } from './options.js';
import { anyGate, compareGateFailures, summaryGateFailures, type EvaluationGates } from '../../shared/evaluation-gates.js';

/** Parses `--max-failure-rate R`: the share of a row's requests that may fail, 0..1 (DESIGN §15.2). */
export function failureRateOption(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0 || x > 1) throw usageError(`--max-failure-rate must be a number from 0 to 1 (0.05 = 5% of requests), got '${value}'`);
  return x;
}

/** Adds `--max-failure-rate R` to a gated command (DESIGN §15.2). */
export function failureRateOptionOf(cmd: Command): Command {
  return cmd.option(
    '--max-failure-rate <r>',
    `with any gate: exit ${ExitCode.werGate} when more than this share of a provider's requests failed (0..1, default 0: any failed request fails the gate)`,
    failureRateOption,
  );
}

/** Parses `--max-regression X`: a WER difference ≥ 0 (0 = any regression fails). */
export function regressionOption(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0) throw usageError(`--max-regression must be a number ≥ 0 (0.02 = two WER points; 0 = any regression), got '${value}'`);
  return x;
}

/** Adds `--junit FILE` and `--markdown FILE` to a command. */
export function ciOutputOptions(cmd: Command): Command {
  return cmd
    .option('--junit <file>', 'write JUnit XML for CI test reports (a test case per provider × condition, failures for gated rows)')
    .option('--markdown <file>', 'write a Markdown summary table (also appended to $GITHUB_STEP_SUMMARY when set)');
}

/** Adds `--max-regression X` to a command. */
export function regressionGateOption(cmd: Command): Command {
  return cmd.option(
    '--max-regression <x>',
    `regression gate: exit ${ExitCode.werGate} when a provider's overall WER is significantly worse than the baseline's by more than x (0 = any regression)`,
    regressionOption,
  );
}

const wantsCi = (flags: CiFlags, env: HandlerContext['env']) => Boolean(flags.junit || flags.markdown || env.githubStepSummary());

/** Writes the CI outputs of a run (nothing when none is asked for and GITHUB_STEP_SUMMARY is unset). */
export async function emitCiOutputs(
  ctx: HandlerContext,
  flags: CiFlags,
  content: { evaluation?: EvaluationDetail; compare?: EvaluationCompare; latencyFrom?: EvaluationDetail['summary'] },
): Promise<void> {
  if (!wantsCi(flags, ctx.env)) return;
  const ci = await import('./ci-outputs.js');
  const gates = gatesOf(flags);
  const evaluationId = content.evaluation?.evaluation_id ?? content.compare!.evaluation_id;
  ci.writeCiOutputs(
    { junit: flags.junit, markdown: flags.markdown, stepSummary: ctx.env.githubStepSummary() },
    {
      evaluationId,
      cases: ci.ciCases({ summary: content.evaluation?.summary, compare: content.compare, gates, latencyFrom: content.latencyFrom }),
      markdown: ci.markdownSummary({ evaluation: content.evaluation, compare: content.compare, newRun: content.latencyFrom, gates }),
      now: ctx.clock.now(),
    },
  );
}

/**
 * The gates of a comparison (DESIGN §11.4, §15): exit 7 naming every group-`all` row regressed by more
 * than `--max-regression`, left inconclusive by too few speakers with a difference above it, or whose
 * new run failed more requests than `--max-failure-rate` allows.
 */
export function compareGate(compare: EvaluationCompare, gates: EvaluationGates, summary?: EvaluationDetail['summary']): void {
  // A provider whose requests all failed matched nothing and has no compare row: the new run's own summary
  // rows still carry its failed requests, so it cannot pass unseen.
  const failures = [...compareGateFailures(compare.rows, gates, summary), ...(summary ? summaryGateFailures(summary, { maxFailureRate: gates.maxFailureRate ?? 0 }) : [])];
  const seen = new Set<string>();
  const once = failures.filter((f) => !seen.has(f.line) && seen.add(f.line));
  const error = gateError(once, gates, { id: compare.evaluation_id, baselineId: compare.baseline_id });
  if (error) throw error;
}

const fmt = (x: number) => x.toFixed(4);
export const compareColumns: Column<EvaluationCompareRow>[] = [
  { header: 'provider', get: (r) => r.provider },
  { header: 'condition', get: (r) => r.condition },
  { header: 'group', get: (r) => r.group },
  { header: 'utterances', get: (r) => r.utterances },
  { header: 'speakers', get: (r) => r.speakers },
  { header: 'wer_baseline', get: (r) => fmt(r.wer_baseline) },
  { header: 'wer', get: (r) => fmt(r.wer) },
  { header: 'difference', get: (r) => (r.difference > 0 ? '+' : '') + fmt(r.difference) },
  { header: 'ci95', get: (r) => `${fmt(r.ci95[0])}–${fmt(r.ci95[1])}` },
  { header: 'p_worse', get: (r) => r.p_worse },
  { header: 'verdict', get: (r) => r.verdict },
];
/** CSV keeps numbers as numbers and both interval ends in their own columns. */
export const compareCsvColumns: Column<EvaluationCompareRow>[] = [
  ...compareColumns.slice(0, 5),
  { header: 'wer_baseline', get: (r) => r.wer_baseline },
  { header: 'wer', get: (r) => r.wer },
  { header: 'difference', get: (r) => r.difference },
  { header: 'ci95_low', get: (r) => r.ci95[0] },
  { header: 'ci95_high', get: (r) => r.ci95[1] },
  { header: 'p_worse', get: (r) => r.p_worse },
  { header: 'verdict', get: (r) => r.verdict },
];

/** The human view of a comparison: what changed in the setup, then the rows. */
export async function printCompare(out: Output, cmp: EvaluationCompare): Promise<void> {
  out.fields([
    ['evaluation_id', cmp.evaluation_id],
    ['baseline_id', cmp.baseline_id],
    ['matched_utterances', cmp.matched_utterances],
    ['changed_setup', cmp.changed_setup.length ? cmp.changed_setup.join('; ') : 'nothing'],
  ]);
  out.write('\n');
  await out.table(cmp.rows, compareColumns);
}

/**
 * How a watched run that has a baseline ends: the evaluation is printed, compared with the baseline when
 * it finished, the CI outputs written, then the gates (exit 7) and an unsuccessful end (exit 6).
 */
export async function finishWatched(
  ctx: HandlerContext,
  client: VoxClient,
  out: Output,
  ev: EvaluationDetail,
  flags: CiFlags & { baseline?: string },
  label: (id: string) => string = (id) => id,
): Promise<void> {
  const finished = ev.status === 'completed' || ev.status === 'partial';
  const compare = flags.baseline && finished ? await client.compareEvaluations(ev.evaluation_id, flags.baseline) : undefined;
  // --json prints the evaluation as the API gives it; the comparison goes to the CI outputs and the gate.
  if (out.json) out.printJson(ev);
  // -q: only the id (DESIGN §15.8), for `id=$(voxctl eval run … --watch -q)`; gates still speak on stderr.
  else if (out.quiet) out.write(ev.evaluation_id + '\n');
  else {
    await printEvaluation(out, ev, label);
    if (compare) {
      out.write('\n');
      await printCompare(out, compare);
    }
  }
  await emitCiOutputs(ctx, flags, { evaluation: ev, compare });
  finishRun(ev, gatesOf(flags), compare);
}

const watch = (ctx: HandlerContext, client: VoxClient, out: Output, id: string) =>
  watchEvaluation(() => client.getEvaluation(id), { out, progress: new EvaluationProgress(out), now: () => ctx.clock.now().getTime(), sleep: ctx.clock.sleep });

/** `voxctl eval compare BASELINE NEW` and `voxctl eval rerun ID` (DESIGN §11.4). */
export function registerEvalCompare(evaluation: Command, ctx: HandlerContext): void {
  examples(
    failureRateOptionOf(regressionGateOption(
      ciOutputOptions(
        evaluation
          .command('compare')
          .argument('<baseline>', 'the earlier evaluation')
          .argument('<new>', 'the evaluation to check against it')
          .option('--csv', 'the rows as CSV')
          .description('Compare an evaluation with a baseline: paired WER difference per provider, condition and group, with its interval and verdict'),
      ),
    )),
    ['voxctl eval compare ev_monday ev_tuesday', 'voxctl eval compare ev_base ev_new --max-regression 0.02 --junit compare.xml'],
  ).action(async (baseline: string, id: string, _o, cmd: Command) => {
    const flags = flagsOf<CiFlags & { csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    const cmp = await client.compareEvaluations(id, baseline);
    if (out.json) out.printJson(cmp);
    else if (flags.csv) await out.csv(cmp.rows, compareCsvColumns);
    else await printCompare(out, cmp);
    // The new run's summary: the latencies of the JUnit cases, and the failed requests the gates count.
    const gated = anyGate(gatesOf(flags));
    const latencyFrom = wantsCi(flags, ctx.env) || gated ? (await client.getEvaluation(id)).summary : undefined;
    await emitCiOutputs(ctx, flags, { compare: cmp, latencyFrom });
    if (gated) compareGate(cmp, gatesOf(flags), latencyFrom);
  });

  examples(
    failureRateOptionOf(regressionGateOption(
      ciOutputOptions(
        evaluation
          .command('rerun')
          .argument('<id>', 'the evaluation to run again (it becomes the baseline)')
          .option('--name <name>', "a name for the rerun, 1..200 characters (default: the baseline's name)")
          .option('--watch', 'follow progress until it ends, then compare with the baseline (exit 6 if it fails)')
          .option('--report <file>', 'save the HTML report when it ends (implies --watch)')
          .option('--force', 'overwrite an existing --report file')
          .description('Run an evaluation again: same texts, speakers, conditions, providers, normaliser and seed'),
      ),
    )),
    ['voxctl eval rerun ev_nightly --name "nightly $(date +%F)" --watch --max-regression 0 --junit junit.xml --markdown summary.md', 'id=$(voxctl eval rerun ev_nightly -q)'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<CiFlags & { watch?: boolean; report?: string; force?: boolean; name?: string }>(cmd);
    if (flags.report) assertWritable(flags.report, flags.force);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const created = await client.rerunEvaluation(id, flags.name !== undefined ? { name: flags.name } : {});
    const watching = flags.watch || flags.report !== undefined || anyGate(gatesOf(flags)) || flags.junit !== undefined || flags.markdown !== undefined;
    if (!watching) {
      if (out.json) return out.printJson(created);
      out.write(created.evaluation_id + '\n');
      out.info(`Rerun of ${id}: ${created.total_utterances} utterances queued. Compare when done: voxctl eval compare ${id} ${created.evaluation_id}`);
      return;
    }
    out.info(`${created.evaluation_id}: rerun of ${id}, ${created.total_utterances} utterances`);
    const ev = await watch(ctx, client, out, created.evaluation_id);
    if (flags.report) {
      const { writeOutputFile } = await import('../core/util.js');
      writeOutputFile(flags.report, await client.downloadReport(ev.report_url), flags.force);
      out.success(`Saved the report of ${ev.evaluation_id} to ${flags.report}`);
    }
    await finishWatched(ctx, client, out, ev, { ...flags, baseline: id }, await new ProviderCatalog(ctx, client).labeller());
  });
}
