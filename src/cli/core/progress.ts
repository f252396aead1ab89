import type { Job } from '../../shared/schemas/tts.js';
import type { VoxClient } from '../../client/index.js';
import type { HandlerContext } from './context.js';
import type { Output } from './output.js';
import { retryAfter429 } from './retry.js';
import { bar } from './output.js';

/** Job states after which nothing changes. */
export const TERMINAL = new Set(['completed', 'failed', 'partial']);

/** When piped (or under --json), a progress line at most every this many percent… */
export const PIPED_STEP_PERCENT = 10;
/** …or when this long has passed since the last one, so a slow run still shows it is alive. */
export const PIPED_INTERVAL_MS = 10_000;

/** `75 s` → `1m 15s`; hours when needed. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Rate since the watch began and the time left at that rate. */
export interface Pace {
  /** Units per second (0 until something was done). */
  rate: number;
  /** Seconds left, or undefined while the rate is unknown or the run is over. */
  etaSeconds: number | undefined;
}

/**
 * Pace of one watched run and when a non-terminal report of it is due (DESIGN §7): the first report,
 * a status change, each new step of PIPED_STEP_PERCENT, or PIPED_INTERVAL_MS since the last report —
 * so 216 utterances print a dozen lines, not one per poll.
 */
export class RunPace {
  private first?: { at: number; done: number };
  private last?: { status: string; step: number; at: number };

  /**
   * The pace after `done` of `total` at `nowMs`; `final` runs have no ETA, nor a run that has done fewer
   * than `minDone` units since the watch began (a rate measured on the first one or two is a guess).
   */
  pace(done: number, total: number, nowMs: number, final: boolean, minDone = 1): Pace {
    this.first ??= { at: nowMs, done };
    const seconds = (nowMs - this.first.at) / 1000;
    const measured = Math.max(0, done - this.first.done);
    const rate = seconds > 0 ? measured / seconds : 0;
    return { rate, etaSeconds: rate > 0 && !final && measured >= minDone ? Math.max(0, total - done) / rate : undefined };
  }

  /** True when a report is due at `nowMs` (and records it as made). */
  due(status: string, percent: number, nowMs: number): boolean {
    const step = Math.floor(percent / PIPED_STEP_PERCENT);
    const l = this.last;
    if (l && l.status === status && l.step === step && nowMs - l.at < PIPED_INTERVAL_MS) return false;
    this.last = { status, step, at: nowMs };
    return true;
  }
}

/** The plain text of a pace: `, 2.0 utt/s, ETA 1m 10s` (empty while unknown and once the run is over). */
export function paceText(p: Pace, unit: string): string {
  if (p.rate <= 0 || p.etaSeconds === undefined) return '';
  return `, ${p.rate.toFixed(1)} ${unit}/s, ETA ${duration(p.etaSeconds)}`;
}

/** The `--json` progress event's pace fields. */
export function paceFields(p: Pace): { rate_per_second: number; eta_seconds: number | null } {
  return { rate_per_second: Math.round(p.rate * 100) / 100, eta_seconds: p.etaSeconds === undefined ? null : Math.round(p.etaSeconds) };
}

/**
 * Draws one progress bar per job on stderr. On a terminal the block is redrawn in place with the rate
 * and ETA; piped, a plain line every 10% or 10 s; under --json, `{"event":"progress",…}` lines at the
 * same cadence (DESIGN §7); nothing with --quiet.
 */
export class JobProgress {
  private drawn = 0;
  private readonly paces = new Map<string, RunPace>();

  constructor(
    private readonly out: Output,
    private readonly now: () => number = () => Date.now(),
  ) {}

  private paceOf(id: string): RunPace {
    let p = this.paces.get(id);
    if (!p) this.paces.set(id, (p = new RunPace()));
    return p;
  }

  /** Renders the current state of `jobs`. */
  update(jobs: readonly Job[]): void {
    if (this.out.quiet) return;
    const at = this.now();
    const rows = jobs.map((j) => {
      const done = j.completed_items + j.failed_items;
      const run = this.paceOf(j.job_id);
      return { j, done, run, pace: run.pace(done, j.total_items, at, TERMINAL.has(j.status)) };
    });
    if (this.out.json) {
      for (const { j, done, run, pace } of rows) {
        if (!run.due(j.status, j.progress, at)) continue;
        this.out.event('progress', { job_id: j.job_id, status: j.status, progress: j.progress, done, total: j.total_items, failed: j.failed_items, ...paceFields(pace) });
      }
      return;
    }
    if (this.out.stderrTTY) {
      const c = this.out.errColor;
      const lines = rows.map(({ j, done, pace }) => {
        const colour = j.status === 'completed' ? c.green : j.status === 'failed' ? c.red : j.status === 'partial' ? c.yellow : c.cyan;
        const speed = pace.rate > 0 ? `  ${pace.rate.toFixed(1)} items/s` : '';
        const eta = pace.etaSeconds !== undefined ? `  ETA ${duration(pace.etaSeconds)}` : '';
        return `${j.job_id}  ${colour(bar(j.progress, 100, 24))} ${String(j.progress).padStart(3)}%  ${colour(j.status.padEnd(10))} ${done}/${j.total_items}${j.failed_items ? c.red(` (${j.failed_items} failed)`) : ''}${speed}${eta}`;
      });
      if (this.drawn > 0) this.out.stderr.write(`\x1b[${this.drawn}A`);
      this.out.stderr.write(lines.map((l) => `\x1b[2K${l}\n`).join(''));
      this.drawn = lines.length;
      return;
    }
    for (const { j, done, run, pace } of rows) {
      if (!run.due(j.status, j.progress, at)) continue;
      this.out.stderr.write(`${j.job_id}: ${j.status} ${j.progress}% (${done}/${j.total_items}${paceText(pace, 'items')})\n`);
    }
  }
}

/** Polls `fetch` for every id until all are terminal, reporting each round to `progress`. */
export async function watchJobs(
  ids: readonly string[],
  fetch: (id: string) => Promise<Job>,
  options: { progress: JobProgress; sleep: (ms: number) => Promise<void>; intervalMs?: number },
): Promise<Job[]> {
  for (;;) {
    const jobs = await Promise.all(ids.map(fetch));
    options.progress.update(jobs);
    if (jobs.every((j) => TERMINAL.has(j.status))) return jobs;
    await options.sleep(options.intervalMs ?? 500);
  }
}

/** GET of a job for `--watch` polling, waiting out a 429 (Retry-After, bounded) instead of failing the watch. */
export const pollJob = (ctx: HandlerContext, client: VoxClient, out: Output) => (id: string) => retryAfter429(ctx, out, () => client.getJob(id));
