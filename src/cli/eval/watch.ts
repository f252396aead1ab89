// Following a running evaluation (`--watch`): progress on stderr, polling, and how the watch ends —
// the `--max-wer` gate (exit 7) and unsuccessful runs (exit 6).
import type { EvaluationCompare, EvaluationDetail } from '../../shared/schemas/evaluations.js';
import { ApiRequestError } from '../../client/errors.js';
import { CliError, ExitCode } from '../core/errors.js';
import type { Output } from '../core/output.js';
import { bar } from '../core/output.js';
import { duration, paceFields, paceText, RunPace } from '../core/progress.js';
import { anyGate, gateFailures, type EvaluationGates, type GateFailure, type GateFailureType } from '../../shared/evaluation-gates.js';
import { MIN_VERDICT_SPEAKERS } from '../../shared/comparison-verdict.js';

/** The gates of a finished run, each on when its flag is given (DESIGN §15): WER, regression, latency, probes, failed requests. */
export type RunGates = EvaluationGates;

/** Evaluation states after which nothing changes (DESIGN §8.2); the schema's list, without loading TypeBox at start-up. */
export const FINAL_STATES = new Set(['completed', 'partial', 'failed', 'cancelled']);

export { duration } from '../core/progress.js';

/**
 * Utterances each provider should have finished since the watch began before an ETA is shown. The first
 * ones finish in a burst — a fast provider answers while a slow one has barely started — so an ETA from
 * them read "40s" for a run of 3 m 36 s (issue 30).
 */
export const ETA_AFTER_PER_PROVIDER = 5;

/**
 * Progress of one evaluation on stderr (DESIGN §7): on a terminal one line redrawn in place with
 * done/total, the rate since the watch began and the ETA; piped, a plain line every 10% or 10 s;
 * under --json, `{"event":"progress",…}` lines at the same cadence; nothing with --quiet.
 */
export class EvaluationProgress {
  private readonly run = new RunPace();
  private drawn = false;

  constructor(private readonly out: Output) {}

  /** Renders `ev` as seen at `nowMs`. */
  update(ev: EvaluationDetail, nowMs: number): void {
    if (this.out.quiet) return;
    const done = ev.completed_utterances;
    const final = FINAL_STATES.has(ev.status);
    const pace = this.run.pace(done, ev.total_utterances, nowMs, final, ETA_AFTER_PER_PROVIDER * Math.max(1, ev.providers.length));
    if (this.out.json) {
      if (this.run.due(ev.status, ev.progress, nowMs)) {
        this.out.event('progress', { evaluation_id: ev.evaluation_id, status: ev.status, progress: ev.progress, done, total: ev.total_utterances, ...paceFields(pace) });
      }
      return;
    }
    if (this.out.stderrTTY) {
      const c = this.out.errColor;
      const colour = ev.status === 'completed' ? c.green : ev.status === 'failed' || ev.status === 'cancelled' ? c.red : ev.status === 'partial' ? c.yellow : c.cyan;
      const eta = pace.etaSeconds !== undefined ? `  ETA ${duration(pace.etaSeconds)}` : '';
      const speed = pace.rate > 0 ? `  ${pace.rate.toFixed(1)} utt/s` : '';
      const line = `${ev.evaluation_id}  ${colour(bar(ev.progress, 100, 24))} ${String(ev.progress).padStart(3)}%  ${colour(ev.status.padEnd(10))} ${done}/${ev.total_utterances}${speed}${eta}`;
      this.out.stderr.write(`${this.drawn ? '\x1b[1A' : ''}\x1b[2K${line}\n`);
      this.drawn = true;
      return;
    }
    if (!this.run.due(ev.status, ev.progress, nowMs)) return;
    this.out.stderr.write(`${ev.evaluation_id}: ${ev.status} ${ev.progress}% (${done}/${ev.total_utterances}${paceText(pace, 'utt')})\n`);
  }
}

/** How long to wait between polls: quick at first, then every 5 s so a long run stays far below rate limits. */
export function pollInterval(elapsedMs: number): number {
  return elapsedMs < 10_000 ? 1_000 : elapsedMs < 60_000 ? 2_000 : 5_000;
}

/** How many 429 answers in a row the watch waits out before giving up. */
const MAX_RATE_LIMITED_WAITS = 5;

/**
 * Polls the evaluation until it reaches a final state. A 429 is waited out (its `Retry-After`, at most a
 * minute, a few times in a row) with a message, as DESIGN §7 asks of `--watch`.
 */
export async function watchEvaluation(
  fetch: () => Promise<EvaluationDetail>,
  options: { out: Output; progress: EvaluationProgress; now: () => number; sleep: (ms: number) => Promise<void> },
): Promise<EvaluationDetail> {
  const started = options.now();
  let limited = 0;
  for (;;) {
    let ev: EvaluationDetail;
    try {
      ev = await fetch();
      limited = 0;
    } catch (e) {
      if (!(e instanceof ApiRequestError) || e.status !== 429 || ++limited > MAX_RATE_LIMITED_WAITS) throw e;
      const wait = Math.min(60, Math.max(1, e.retryAfter ?? 5));
      options.out.info(`Rate limited while watching; retrying in ${wait} s`);
      options.out.event('rate_limited', { retry_after_seconds: wait });
      await options.sleep(wait * 1000);
      continue;
    }
    options.progress.update(ev, options.now());
    if (FINAL_STATES.has(ev.status)) return ev;
    await options.sleep(pollInterval(options.now() - started));
  }
}

/** The first gate flag given, as the user typed it (for messages about a run that cannot be gated yet). */
function firstGateFlag(gates: RunGates): string {
  const flags: [number | undefined, string][] = [
    [gates.maxWer, '--max-wer'],
    [gates.maxDer, '--max-der'],
    [gates.maxFinalLatency, '--max-final-latency'],
    [gates.maxHallucination, '--max-hallucination'],
    [gates.minEntityAccuracy, '--min-entity-accuracy'],
    [gates.maxRegression, '--max-regression'],
    [gates.maxFailureRate, '--max-failure-rate'],
  ];
  const [value, name] = flags.find(([v]) => v !== undefined)!;
  return `${name} ${value}`;
}

/** The headline of each kind of gate failure on stderr, the rows' lines below it. */
function failureHeadline(type: GateFailureType, n: number, gates: RunGates, baselineId: string | undefined): string {
  const rows = `${n} provider/condition row(s)`;
  switch (type) {
    case 'max-wer':
      return `${rows} exceed --max-wer ${gates.maxWer}:`;
    case 'max-final-latency':
      return `${rows} exceed --max-final-latency ${gates.maxFinalLatency} ms:`;
    case 'probes':
      return `${n} probe result(s) fail the gate:`;
    case 'max-regression':
      return `${rows} regressed beyond --max-regression ${gates.maxRegression}${baselineId ? ` against ${baselineId}` : ''}:`;
    case 'inconclusive':
      return `${rows} cannot be ruled out as regressions beyond --max-regression ${gates.maxRegression} (fewer than ${MIN_VERDICT_SPEAKERS} speakers):`;
    case 'not-compared':
      return `${rows} were not compared${baselineId ? ` with ${baselineId}` : ''}: --max-regression ${gates.maxRegression} cannot pass what the comparison did not measure:`;
    case 'failed-requests':
      return `${rows} have failed requests beyond --max-failure-rate ${gates.maxFailureRate ?? 0}:`;
    case 'max-der':
      return `${rows} fail --max-der ${gates.maxDer}:`;
  }
}

/**
 * The exit-7 error of a run's gate failures (DESIGN §8.7, §11.4, §15): a block per kind of failure, each
 * naming its rows; undefined when nothing failed.
 */
export function gateError(failures: readonly GateFailure[], gates: RunGates, context: { id: string; baselineId?: string }): CliError | undefined {
  if (failures.length === 0) return undefined;
  const order: GateFailureType[] = ['max-wer', 'max-der', 'max-final-latency', 'probes', 'max-regression', 'inconclusive', 'not-compared', 'failed-requests'];
  const blocks = order.flatMap((type) => {
    const mine = failures.filter((f) => f.type === type);
    return mine.length ? [`${failureHeadline(type, mine.length, gates, context.baselineId)}\n${mine.map((f) => `  ${f.line}`).join('\n')}`] : [];
  });
  const regression = failures.some((f) => f.type === 'max-regression' || f.type === 'inconclusive' || f.type === 'not-compared');
  const hint = context.baselineId ? `see \`voxctl eval compare ${context.baselineId} ${context.id}\`` : `see \`voxctl eval show ${context.id}\``;
  return new CliError(blocks.join('\n'), { exitCode: ExitCode.werGate, ...(regression ? { code: 'regression_gate_exceeded' } : {}), hint });
}

/**
 * The gates of a finished run (DESIGN §8.7, §15), with its comparison with a baseline when there is one:
 * exit 7 naming every offending row on stderr. A run that has no summary yet cannot be gated: that is
 * said, not passed.
 */
export function checkGate(ev: EvaluationDetail, gates: RunGates, compare?: EvaluationCompare): void {
  if (!anyGate(gates)) return;
  const flag = firstGateFlag(gates);
  if (!ev.summary) {
    throw new CliError(`${ev.evaluation_id} is ${ev.status}: ${flag.split(' ')[0]} gates a finished evaluation (completed or partial)`, {
      hint: `wait for it with \`voxctl eval show ${ev.evaluation_id} --watch ${flag}\``,
    });
  }
  if (gates.maxFinalLatency !== undefined && ev.mode !== 'streaming') {
    throw new CliError(`${ev.evaluation_id} is a batch evaluation: --max-final-latency gates a streaming one`, { hint: 'run it with `--mode streaming`' });
  }
  const { maxHallucination, minEntityAccuracy } = gates;
  if ((maxHallucination !== undefined && !ev.probes?.non_speech) || (minEntityAccuracy !== undefined && !ev.probes?.entities)) {
    const what = maxHallucination !== undefined && !ev.probes?.non_speech ? '--max-hallucination needs the non-speech probe' : '--min-entity-accuracy needs the entity probe';
    throw new CliError(`${ev.evaluation_id} has no such probe: ${what}`, { hint: 'run it with `--probe non-speech` or `--entities TYPE,…`' });
  }
  const error = gateError(gateFailures({ summary: ev.summary, compare: compare?.rows }, gates), gates, { id: ev.evaluation_id, baselineId: compare?.baseline_id });
  if (error) throw error;
}

/**
 * How a watched run ends (DESIGN §7, §8.7): the gate first — exit 7 naming every offending row — then
 * exit 6 for a run that ended failed, partial or cancelled.
 */
export function finishRun(ev: EvaluationDetail, gates: RunGates, compare?: EvaluationCompare): void {
  if (ev.summary) checkGate(ev, gates, compare);
  if (ev.status !== 'completed') {
    const why = ev.status === 'partial' ? ': some syntheses failed' : '';
    throw new CliError(`${ev.evaluation_id} ended ${ev.status}${why}`, { exitCode: ExitCode.jobFailed, hint: `see \`voxctl eval utterances ${ev.evaluation_id} --errors-only\`` });
  }
}
