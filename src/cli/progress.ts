import type { Job } from '../shared/schemas/tts.js';
import type { VoxClient } from '../client/index.js';
import type { HandlerContext } from './context.js';
import type { Output } from './output.js';
import { retryAfter429 } from './retry.js';
import { bar } from './output.js';

/** Job states after which nothing changes. */
export const TERMINAL = new Set(['completed', 'failed', 'partial']);

/**
 * Draws one progress bar per job on stderr. On a terminal the block is redrawn in place; otherwise
 * one line is printed whenever a job's status changes (never with --quiet).
 */
export class JobProgress {
  private drawn = 0;
  private readonly last = new Map<string, string>();

  constructor(private readonly out: Output) {}

  /** Renders the current state of `jobs`. */
  update(jobs: readonly Job[]): void {
    if (this.out.quiet || this.out.json) return;
    if (this.out.stderrTTY) {
      const c = this.out.errColor;
      const lines = jobs.map((j) => {
        const colour = j.status === 'completed' ? c.green : j.status === 'failed' ? c.red : j.status === 'partial' ? c.yellow : c.cyan;
        const done = j.completed_items + j.failed_items;
        return `${j.job_id}  ${colour(bar(j.progress, 100, 24))} ${String(j.progress).padStart(3)}%  ${colour(j.status.padEnd(10))} ${done}/${j.total_items}${j.failed_items ? c.red(` (${j.failed_items} failed)`) : ''}`;
      });
      if (this.drawn > 0) this.out.stderr.write(`\x1b[${this.drawn}A`);
      this.out.stderr.write(lines.map((l) => `\x1b[2K${l}\n`).join(''));
      this.drawn = lines.length;
      return;
    }
    for (const j of jobs) {
      const state = `${j.status} ${j.progress}`;
      if (this.last.get(j.job_id) === state) continue;
      this.last.set(j.job_id, state);
      this.out.stderr.write(`${j.job_id}: ${j.status} ${j.progress}% (${j.completed_items + j.failed_items}/${j.total_items})\n`);
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
