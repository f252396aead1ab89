/**
 * fsyncs of a batch's files started as each file is written, a few at a time, so that the batch's `sync`
 * finds most of them done: a corpus of a thousand files spent a quarter of a second in fsyncs after its
 * last file was decoded, where the decoding of the others could have hidden them.
 */

/** What `take` hands back: the file's fsync, begun or done (undefined when none was started). */
export interface EarlySyncs {
  /** Queues an fsync of `path`; it starts once fewer than the limit are running. */
  schedule(path: string): void;
  /**
   * The fsync of `path` if one started: awaited, it rejects with the fsync's error. A queued one that has
   * not started is dropped, so the caller syncs the file itself. Forgets `path` either way.
   */
  take(path: string): Promise<void> | undefined;
  /** Forgets `path` (its file was removed): a queued fsync is dropped, a started one ends unobserved. */
  forget(path: string): void;
}

/**
 * Early fsyncs through `syncFile`, at most `atOnce` running. An fsync's error is kept for `take`: after a
 * failed writeback the kernel reports the error to one fsync, so a second fsync of the file would pass.
 */
export function createEarlySyncs(syncFile: (path: string) => Promise<void>, atOnce: number): EarlySyncs {
  const queued = new Set<string>();
  const started = new Map<string, Promise<void>>();
  let running = 0;

  const pump = (): void => {
    for (const path of queued) {
      if (running >= atOnce) return;
      queued.delete(path);
      running++;
      const synced = syncFile(path);
      started.set(path, synced);
      // Observed here so a file nobody takes (its upload failed) raises no unhandled rejection.
      synced.catch(() => undefined).finally(() => {
        running--;
        pump();
      });
    }
  };

  return {
    schedule(path) {
      queued.add(path);
      pump();
    },
    take(path) {
      queued.delete(path);
      const synced = started.get(path);
      started.delete(path);
      return synced;
    },
    forget(path) {
      queued.delete(path);
      started.delete(path);
    },
  };
}
