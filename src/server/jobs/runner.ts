import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import type { ClaimedItem } from '../storage/repositories/jobs.js';
import { wavInput, writeAudioOnly, type AudioBlobStore } from '../services/audio-store.js';
import { claimItems, completeItem, failItem, itemAudioId, recoverQueue, type RefundFn } from './queue.js';
import { createLeaseKeeper, type WorkSharing } from './leases.js';

/** Mono PCM16 at a rate. */
export interface RenderedAudio {
  pcm: Int16Array;
  sampleRate: number;
}

/** Everything the runner works with, passed in (tests give their own synthesiser). */
export interface JobRunnerDeps {
  db: Db;
  blobs: AudioBlobStore;
  clock: Clock;
  /** Synthesises one item: resolves the speaker's voice, runs the engine, resamples to `sampleRate` when set. */
  render(item: { speakerId: string; text: string; sampleRate: number | null }): Promise<RenderedAudio>;
  refund: RefundFn;
  /** Items in flight at once; about twice the pool's workers keeps every worker busy. */
  concurrency: number;
  /** Unexpected errors of the runner itself (database trouble); default: ignored. */
  onError?(err: unknown): void;
  /** This instance's claims: its id, the lease length, and whether peers share the queue (PostgreSQL). */
  work: WorkSharing;
}

/** The background worker of the persistent queue. */
export interface JobRunner {
  /** Recovers after a crash and starts processing (resolves once recovered). */
  start(): Promise<void>;
  /** New work was queued: claim it now (no polling). */
  wake(): void;
  /** Stops claiming and waits for the items in flight; unfinished ones stay queued for the next start. */
  stop(): Promise<void>;
  /** Resolves when nothing is pending or in flight (tests, benchmarks). */
  idle(): Promise<void>;
}

/** Builds the runner over the SQLite queue (DESIGN §4.8, §4.9). */
export function createJobRunner(deps: JobRunnerDeps): JobRunner {
  const active = new Set<Promise<void>>();
  let stopped = false;
  let started = false;
  let idleWaiters: (() => void)[] = [];

  // One claim at a time: two overlapping claims would both count the free slots and take too many.
  let pumping: Promise<void> | undefined;
  let pumpAgain = false;
  let starting: Promise<void> | undefined;

  const report = (err: unknown) => deps.onError?.(err);
  // Renews this instance's leases while it works, polls for work its peers queued, hands leases back on stop.
  const leases = createLeaseKeeper({ db: deps.db, table: 'job_items', clock: deps.clock, work: deps.work, poll: () => pump(), onError: report });

  const notifyIdle = () => {
    if (active.size > 0 || pumping !== undefined) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  async function claimAndRun(): Promise<void> {
    do {
      pumpAgain = false;
      if (stopped) return;
      let claimed: ClaimedItem[];
      try {
        claimed = await claimItems(deps.db, deps.concurrency - active.size, deps.clock.now(), leases.lease());
      } catch (err) {
        report(err);
        return;
      }
      for (const item of claimed) {
        const task: Promise<void> = runItem(item).finally(() => {
          active.delete(task);
          pump();
          notifyIdle();
        });
        active.add(task);
      }
    } while (pumpAgain);
  }

  function pump(): void {
    if (stopped || !started || !deps.work.claims) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = claimAndRun().finally(() => {
      pumping = undefined;
      notifyIdle();
    });
  }

  async function runItem(item: ClaimedItem): Promise<void> {
    let audio;
    try {
      const out = await deps.render({ speakerId: item.speaker_id, text: item.text, sampleRate: item.sample_rate });
      if (out.pcm.length === 0) throw new Error('Synthesis produced no audio');
      audio = await writeAudioOnly(
        deps.blobs,
        wavInput(out.pcm, out.sampleRate, { id: itemAudioId(item.job_id, item.idx), userId: item.user_id, kind: 'tts', now: deps.clock.now() }),
      );
    } catch (err) {
      // Shutting down (the pool closes under us): leave the item `processing`; the next start requeues it.
      if (stopped) return;
      try {
        await failItem(deps.db, item, failureMessage(err), deps.clock.now(), deps.refund, deps.work.owner);
      } catch (dbErr) {
        report(dbErr);
      }
      return;
    }
    try {
      await completeItem(deps.db, item, audio, deps.clock.now(), deps.work.owner);
    } catch (err) {
      report(err);
    }
  }

  return {
    start() {
      // Nothing is claimed before recovery has requeued what a crash left `processing` (one instance per
      // data dir); instances sharing a queue leave that to the leases.
      starting ??= (deps.work.shared ? Promise.resolve() : recoverQueue(deps.db, deps.blobs).then(() => undefined)).then(
        () => {
          started = true;
          leases.start();
          pump();
        },
        (err: unknown) => {
          starting = undefined;
          throw err;
        },
      );
      return starting;
    },
    wake: pump,
    async stop() {
      stopped = true;
      // A claim in progress adds its items to `active` before it settles.
      await pumping;
      await Promise.allSettled([...active]);
      // Whatever is still ours (work cut off by the shutdown) goes back to the queue for a peer or the next start.
      await leases.stop();
    },
    idle() {
      if (active.size === 0 && pumping === undefined) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

/** The `error` a failed item shows: the reason, without stack or internal paths. */
function failureMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.startsWith('Speaker not found') ? msg : `Synthesis failed: ${msg.split('\n')[0]!.slice(0, 300)}`;
}
