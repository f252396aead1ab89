/**
 * How late the event loop ran while an evaluation's work ran in this process (DESIGN §15.4): every
 * request to a vendor is timed on that loop, so its delay is the most the service's own work can have
 * added to a latency it reports. One histogram per evaluation (perf_hooks' timer of RESOLUTION_MS),
 * recording only while a claim of it is in flight here.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** The timer's period: Node records the interval between its runs, so the lag is a sample less this. */
const RESOLUTION_MS = 10;

/** The event loop's delay in milliseconds, one decimal. */
export interface EventLoopLag {
  p50: number;
  p99: number;
}

interface Monitor {
  histogram: IntervalHistogram;
  claims: number;
}

/** Histograms of the event loop's delay per evaluation, driven by the claims of its work. */
export interface EventLoopLagMonitors {
  /** A claim of evaluation `id` started: its histogram records (made with its first claim here). */
  begin(id: string): void;
  /** A claim of `id` ended; with none of it left in flight the histogram pauses. */
  end(id: string): void;
  /** The lag measured for `id`, its histogram dropped; null when none of its work ran here (or it was taken). */
  take(id: string): EventLoopLag | null;
}

const ms = (ns: number): number => Math.round(Math.max(0, ns / 1e6 - RESOLUTION_MS) * 10) / 10;

/** The monitors of one evaluation runner. */
export function createEventLoopLagMonitors(): EventLoopLagMonitors {
  const monitors = new Map<string, Monitor>();
  return {
    begin(id) {
      let m = monitors.get(id);
      if (!m) monitors.set(id, (m = { histogram: monitorEventLoopDelay({ resolution: RESOLUTION_MS }), claims: 0 }));
      if (m.claims++ === 0) m.histogram.enable();
    },
    end(id) {
      const m = monitors.get(id);
      if (m && --m.claims === 0) m.histogram.disable();
    },
    take(id) {
      const m = monitors.get(id);
      if (!m) return null;
      monitors.delete(id);
      m.histogram.disable();
      // A histogram with no sample (a claim shorter than one period) says nothing.
      if (m.histogram.count === 0) return null;
      return { p50: ms(m.histogram.percentile(50)), p99: ms(m.histogram.percentile(99)) };
    },
  };
}
