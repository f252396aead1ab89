import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { RequestCount } from './repositories/request-counters.js';

/**
 * An append-only file of day counts, the crash-safe half of the rate limiter's counters (DESIGN §4.14).
 *
 * Why not SQLite on every request: an upsert commit costs ~10 µs here under `synchronous=NORMAL` (a WAL
 * frame per commit and an fsync at every auto-checkpoint on the committing request), ~120-180 µs under
 * FULL, and a write + fdatasync ~300-480 µs. One `write(2)` of a ~45-byte line costs ~1.3 µs and puts the
 * bytes in the kernel's page cache before the response leaves, which is what a SIGKILL cannot take back;
 * the kernel writes them to disk later (power loss is covered no better than any commit under NORMAL).
 *
 * Each line carries the subject's absolute count after the request, so replaying is idempotent: folding
 * takes the maximum per (subject, day), and a crash between saving a fold and truncating the file
 * replays the same maxima again without counting anything twice.
 *
 * Lines are queued and written together by `write()`: the rate limiter writes once per event-loop turn,
 * one `write(2)` for every request of the turn, and holds their responses until then.
 */
export interface RequestJournal {
  /** Queues `subject`'s new absolute count for `day`, for the next `write()`. */
  append(subject: string, day: string, count: number): void;
  /** Writes the queued lines at the end of the file in one write (durable against SIGKILL on return). */
  write(): void;
  /** Empties the file once its counts are saved elsewhere (lines still queued are kept for `write()`). */
  truncate(): void;
  /** Writes what is queued and closes the file. */
  close(): void;
}

/** Opens (creating, 0600) the journal at `path` and returns it with the counts it holds from before. */
export function openRequestJournal(path: string): { journal: RequestJournal; pending: RequestCount[] } {
  const fd = openSync(path, 'a+', 0o600);
  const pending = parseJournal(readFileSync(fd, 'utf8'));
  let closed = false;
  let queued = '';
  const journal: RequestJournal = {
    append(subject, day, count) {
      queued += `${subject}\t${day}\t${count}\n`;
    },
    write() {
      if (queued === '') return;
      const lines = queued;
      // Dropped before writing: a failing disk must not make every later write repeat these lines.
      queued = '';
      // O_APPEND: the lines are written whole at the end even after a truncate.
      writeSync(fd, lines);
    },
    truncate() {
      ftruncateSync(fd, 0);
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        journal.write();
      } finally {
        closeSync(fd);
      }
    },
  };
  return { journal, pending };
}

/** The highest count per (subject, day) in journal text; a torn or foreign line is skipped. */
export function parseJournal(text: string): RequestCount[] {
  const max = new Map<string, RequestCount>();
  for (const line of text.split('\n')) {
    const m = /^([^\t]+)\t(\d{4}-\d{2}-\d{2})\t(\d+)$/.exec(line);
    if (!m) continue;
    const [, subject, day, n] = m as unknown as [string, string, string, string];
    const count = Number(n);
    const k = `${subject}\t${day}`;
    const seen = max.get(k);
    if (!seen || seen.count < count) max.set(k, { subject, day, count });
  }
  return [...max.values()];
}
