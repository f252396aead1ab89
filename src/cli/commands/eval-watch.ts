// Following a running evaluation (`--watch`): progress on stderr, polling, and how the watch ends —
// the `--max-wer` gate (exit 7) and unsuccessful runs (exit 6).
import type { EvaluationDetail, EvaluationSummaryRow } from '../../shared/schemas/evaluations.js';
import { ApiRequestError } from '../../client/errors.js';
import { CliError, ExitCode } from '../errors.js';
import type { Output } from '../output.js';
import { bar } from '../output.js';

/** Evaluation states after which nothing changes (DESIGN §8.2); the schema's list, without loading TypeBox at start-up. */
export const FINAL_STATES = new Set(['completed', 'partial', 'failed', 'cancelled']);

/** `75 s` → `1m 15s`; hours when needed. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * Progress of one evaluation on stderr: on a terminal a bar redrawn in place with done/total, the rate
 * since the watch began and the ETA; when piped, one plain line whenever the status or percentage changes.
 */
export class EvaluationProgress {
  private first?: { at: number; done: number };
  private drawn = false;
  private lastLine = '';

  constructor(private readonly out: Output) {}

  /** Renders `ev` as seen at `nowMs`. */
  update(ev: EvaluationDetail, nowMs: number): void {
    if (this.out.quiet) return;
    const done = ev.completed_utterances;
    this.first ??= { at: nowMs, done };
    const seconds = (nowMs - this.first.at) / 1000;
    const rate = seconds > 0 ? (done - this.first.done) / seconds : 0;
    if (this.out.stderrTTY) {
      const c = this.out.errColor;
      const colour = ev.status === 'completed' ? c.green : ev.status === 'failed' || ev.status === 'cancelled' ? c.red : ev.status === 'partial' ? c.yellow : c.cyan;
      const eta = rate > 0 && !FINAL_STATES.has(ev.status) ? `  ETA ${duration((ev.total_utterances - done) / rate)}` : '';
      const speed = rate > 0 ? `  ${rate.toFixed(1)} utt/s` : '';
      const line = `${ev.evaluation_id}  ${colour(bar(ev.progress, 100, 24))} ${String(ev.progress).padStart(3)}%  ${colour(ev.status.padEnd(10))} ${done}/${ev.total_utterances}${speed}${eta}`;
      this.out.stderr.write(`${this.drawn ? '\x1b[1A' : ''}\x1b[2K${line}\n`);
      this.drawn = true;
      return;
    }
    const line = `${ev.evaluation_id}: ${ev.status} ${ev.progress}% (${done}/${ev.total_utterances})`;
    if (line === this.lastLine) return;
    this.lastLine = line;
    this.out.stderr.write(line + '\n');
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
 * How a watched run ends (DESIGN §7, §8.7): the gate first — exit 7 naming every offending row — then
 * exit 6 for a run that ended failed, partial or cancelled.
 */
export function finishRun(ev: EvaluationDetail, maxWer: number | undefined): void {
  if (maxWer !== undefined && ev.summary) {
    const bad = gateFailures(ev.summary, maxWer);
    if (bad.length > 0) {
      const rows = bad.map((r) => `  ${r.provider} under ${r.condition}: WER ${r.wer === null ? 'n/a (nothing scored)' : r.wer.toFixed(4)}`);
      throw new CliError(`${bad.length} provider/condition row(s) exceed --max-wer ${maxWer}:\n${rows.join('\n')}`, {
        exitCode: ExitCode.werGate,
        hint: `see \`voxctl eval show ${ev.evaluation_id}\``,
      });
    }
  }
  if (ev.status !== 'completed') {
    const why = ev.status === 'partial' ? ': some syntheses failed' : '';
    throw new CliError(`${ev.evaluation_id} ended ${ev.status}${why}`, { exitCode: ExitCode.jobFailed, hint: `see \`voxctl eval utterances ${ev.evaluation_id} --errors-only\`` });
  }
}
