import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRequestJournal, parseJournal } from '../../../../src/server/storage/request-journal.js';

describe('request journal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-journal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the highest count per user and day, skipping torn and foreign lines', () => {
    const text = ['usr_a\t2025-03-10\t1', 'usr_a\t2025-03-10\t3', 'usr_a\t2025-03-10\t2', 'usr_a\t2025-03-09\t7', 'usr_b\t2025-03-10\t5', 'garbage', 'usr_c\t2025-03', 'usr_b\t2025-03-10\t4'].join('\n');
    expect(parseJournal(text).sort((x, y) => (x.subject + x.day).localeCompare(y.subject + y.day))).toEqual([
      { subject: 'usr_a', day: '2025-03-09', count: 7 },
      { subject: 'usr_a', day: '2025-03-10', count: 3 },
      { subject: 'usr_b', day: '2025-03-10', count: 5 },
    ]);
  });

  it('returns what a previous process left, writes queued lines whole after a truncate, and is private (0600)', () => {
    const path = join(dir, 'requests.journal');
    writeFileSync(path, 'usr_a\t2025-03-10\t4\n');
    const { journal, pending } = openRequestJournal(path);
    expect(pending).toEqual([{ subject: 'usr_a', day: '2025-03-10', count: 4 }]);
    journal.append('usr_a', '2025-03-10', 5);
    journal.truncate();
    journal.append('usr_b', '2025-03-10', 1);
    // Queued, not written: the limiter writes a turn's lines together.
    expect(readFileSync(path, 'utf8')).toBe('');
    journal.write();
    expect(readFileSync(path, 'utf8')).toBe('usr_a\t2025-03-10\t5\nusr_b\t2025-03-10\t1\n');
    journal.write();
    journal.append('usr_a', '2025-03-10', 6);
    // Closing writes what is still queued.
    journal.close();
    expect(readFileSync(path, 'utf8')).toBe('usr_a\t2025-03-10\t5\nusr_b\t2025-03-10\t1\nusr_a\t2025-03-10\t6\n');
    const fresh = join(dir, 'fresh.journal');
    openRequestJournal(fresh).journal.close();
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
  });
});
