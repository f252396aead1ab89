// Following a running evaluation (`--watch`): progress on stderr, polling, and how the watch ends —
// the `--max-wer` gate (exit 7) and unsuccessful runs (exit 6).
import type { EvaluationDetail, EvaluationSummaryRow } from '../../shared/schemas/evaluations.js';
import { ApiRequestError } from '../../client/errors.js';
import { CliError, ExitCode } from '../errors.js';
import type { Output } from '../output.js';
import { bar } from '../output.js';
import { duration, paceFields, paceText, RunPace } from '../progress.js';
import { failsFinalLatency, finalLatencyLine } from '../../shared/streaming/summary.js';
import { probeGateLines } from '../../shared/probe-gates.js';

/** The gates of a finished run, each on when its flag is given: WER, streaming latency, the probes. */
export interface RunGates {
  maxWer?: number;
  maxFinalLatency?: number;
  maxHallucination?: number;
  minEntityAccuracy?: number;
}

/** Evaluation states after which nothing changes (DESIGN §8.2); the schema's list, without loading TypeBox at start-up. */
export const FINAL_STATES = new Set(['completed', 'partial', 'failed', 'cancelled']);

export { duration } from '../progress.js';

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
    const pace = this.run.pace(done, ev.total_utterances, nowMs, final);
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

/**
 * The CI gate: the group-`all` rows whose WER exceeds `maxWer` — a row where nothing could be scored
 * (WER null) fails too, since a provider that transcribed nothing must not pass.
 */
export function gateFailures(summary: readonly EvaluationSummaryRow[], maxWer: number): EvaluationSummaryRow[] {
  return summary.filter((r) => r.group === 'all' && (r.wer === null || r.wer > maxWer));
}

/**
 * The `--max-wer` gate (DESIGN §8.7): exit 7 naming every offending row on stderr. A run that has no
 * summary yet cannot be gated: that is said, not passed.
 */
export function checkGate(ev: EvaluationDetail, gates: RunGates): void {
  const { maxWer, maxFinalLatency, maxHallucination, minEntityAccuracy } = gates;
  if (maxWer === undefined && maxFinalLatency === undefined && maxHallucination === undefined && minEntityAccuracy === undefined) return;
  const flag =
    maxWer !== undefined
      ? `--max-wer ${maxWer}`
      : maxFinalLatency !== undefined
        ? `--max-final-latency ${maxFinalLatency}`
        : maxHallucination !== undefined
          ? `--max-hallucination ${maxHallucination}`
          : `--min-entity-accuracy ${minEntityAccuracy}`;
  if (!ev.summary) {
    throw new CliError(`${ev.evaluation_id} is ${ev.status}: ${flag.split(' ')[0]} gates a finished evaluation (completed or partial)`, {
      hint: `wait for it with \`voxctl eval show ${ev.evaluation_id} --watch ${flag}\``,
    });
  }
  if (maxFinalLatency !== undefined && ev.mode !== 'streaming') {
    throw new CliError(`${ev.evaluation_id} is a batch evaluation: --max-final-latency gates a streaming one`, { hint: 'run it with `--mode streaming`' });
  }
  const blocks: string[] = [];
  const bad = maxWer === undefined ? [] : gateFailures(ev.summary, maxWer);
  if (bad.length > 0) {
    const rows = bad.map((r) => `  ${r.provider} under ${r.condition}: WER ${r.wer === null ? 'n/a (nothing scored)' : r.wer.toFixed(4)}`);
    blocks.push(`${bad.length} provider/condition row(s) exceed --max-wer ${maxWer}:\n${rows.join('\n')}`);
  }
  const slow = ev.summary.filter((r) => failsFinalLatency(r, maxFinalLatency));
  if (slow.length > 0) {
    blocks.push(`${slow.length} provider/condition row(s) exceed --max-final-latency ${maxFinalLatency} ms:\n${slow.map((r) => `  ${finalLatencyLine(r, maxFinalLatency!)}`).join('\n')}`);
  }
  const probeLines = ev.summary.flatMap((r) => probeGateLines(r, { maxHallucination, minEntityAccuracy }));
  if (probeLines.length > 0) blocks.push(`${probeLines.length} probe result(s) fail the gate:\n${probeLines.map((l) => `  ${l}`).join('\n')}`);
  if ((maxHallucination !== undefined && !ev.probes?.non_speech) || (minEntityAccuracy !== undefined && !ev.probes?.entities)) {
    const what = maxHallucination !== undefined && !ev.probes?.non_speech ? '--max-hallucination needs the non-speech probe' : '--min-entity-accuracy needs the entity probe';
    throw new CliError(`${ev.evaluation_id} has no such probe: ${what}`, { hint: 'run it with `--probe non-speech` or `--entities TYPE,…`' });
  }
  if (blocks.length === 0) return;
  throw new CliError(blocks.join('\n'), { exitCode: ExitCode.werGate, hint: `see \`voxctl eval show ${ev.evaluation_id}\`` });
}

/**
 * How a watched run ends (DESIGN §7, §8.7): the gate first — exit 7 naming every offending row — then
 * exit 6 for a run that ended failed, partial or cancelled.
 */
export function finishRun(ev: EvaluationDetail, gates: RunGates): void {
  if (ev.summary) checkGate(ev, gates);
  if (ev.status !== 'completed') {
    const why = ev.status === 'partial' ? ': some syntheses failed' : '';
    throw new CliError(`${ev.evaluation_id} ended ${ev.status}${why}`, { exitCode: ExitCode.jobFailed, hint: `see \`voxctl eval utterances ${ev.evaluation_id} --errors-only\`` });
  }
}
