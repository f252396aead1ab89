import type { Output } from './output.js';
import { bar } from './output.js';

/** `1536` → `1.5 KB`; decimal units, as file managers show sizes. */
export function bytesText(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/**
 * Progress of an upload by bytes on stderr (DESIGN §7): on a terminal a bar redrawn in place with bytes,
 * rate and percentage; under --json one `{"event":"progress",…}` line now and then; otherwise, and with
 * --quiet, nothing. Redraws at most every `intervalMs`.
 */
export class UploadProgress {
  private lastDraw = -Infinity;
  private drawn = false;
  private readonly started: number;

  constructor(
    private readonly out: Output,
    private readonly label: string,
    private readonly total: number | undefined,
    private readonly now: () => number = () => Date.now(),
    private readonly intervalMs = 200,
  ) {
    this.started = now();
  }

  /** `sent` bytes have been handed over; `final` draws even inside the interval. */
  update(sent: number, final = false): void {
    if (this.out.quiet) return;
    const t = this.now();
    if (!final && t - this.lastDraw < (this.out.json ? 1000 : this.intervalMs)) return;
    this.lastDraw = t;
    const total = this.total !== undefined ? Math.max(this.total, sent) : undefined;
    const percent = total ? Math.min(100, Math.floor((100 * sent) / total)) : undefined;
    if (this.out.json) {
      this.out.stderr.write(JSON.stringify({ event: 'progress', phase: 'upload', bytes_sent: sent, bytes_total: total ?? null, percent: percent ?? null }) + '\n');
      return;
    }
    if (!this.out.stderrTTY) return;
    const seconds = (t - this.started) / 1000;
    const rate = seconds > 0 ? `  ${bytesText(sent / seconds)}/s` : '';
    const shown = percent === undefined ? bytesText(sent) : `${this.out.errColor.cyan(bar(percent, 100, 24))} ${String(percent).padStart(3)}%  ${bytesText(sent)} / ${bytesText(total!)}`;
    this.out.stderr.write(`${this.drawn ? '\x1b[1A' : ''}\x1b[2K${this.label}  ${shown}${rate}\n`);
    this.drawn = true;
  }
}
