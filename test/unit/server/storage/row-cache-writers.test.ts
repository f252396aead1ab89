/**
 * The row cache (storage/repositories/row-cache.ts) is exact only because every statement of this service
 * that changes `users` or `api_keys` lives in their repositories, which drop or update the cached row on
 * the same handle (other processes are seen through `data_version` / `cache_epoch`). This scan fails
 * when SQL writing either table appears anywhere else in src/, or when a write names its table through a
 * template expression that has not been looked at (the leased queues' `${table}`, the evaluation tables'
 * bulk insert).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../../../src');
/** The only files allowed to write the cached tables. */
const CACHED_TABLE_WRITERS = new Set(['server/features/accounts/users-repository.ts', 'server/features/accounts/api-keys-repository.ts']);
/** Files whose writes name the table through `${…}`, checked by hand: none of them can name users or api_keys. */
const DYNAMIC_TABLE_WRITERS = new Set(['server/storage/repositories/leases.ts', 'server/features/evaluations/repository.ts', 'server/features/corpora/repository.ts']);
const WRITE = String.raw`\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE(?:\s+ONLY)?|DELETE\s+FROM(?:\s+ONLY)?|TRUNCATE(?:\s+TABLE)?(?:\s+ONLY)?|MERGE\s+INTO|ALTER\s+TABLE|DROP\s+TABLE(?:\s+IF\s+EXISTS)?)\s+`;
const CACHED_WRITE = new RegExp(`${WRITE}(?:public\\.)?"?(?:users|api_keys)"?\\b`, 'gi');
const DYNAMIC_WRITE = new RegExp(`${WRITE}\\$\\{`, 'gi');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `file:line: statement` for each match of `re` in the files of src/ not in `allowed`. */
function offenders(re: RegExp, allowed: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file).split('\\').join('/');
    // Migrations create and shape the tables before any cache exists.
    if (allowed.has(rel) || rel.startsWith('server/storage/migrations/')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(re)) found.push(`${rel}:${text.slice(0, m.index).split('\n').length}: ${m[0].trim()}`);
  }
  return found;
}

describe('writers of the cached tables (users, api_keys)', () => {
  it('only the users and api-keys repositories write them', () => {
    expect(offenders(CACHED_WRITE, CACHED_TABLE_WRITERS)).toEqual([]);
  });

  it('no write elsewhere names its table through a template expression', () => {
    expect(offenders(DYNAMIC_WRITE, DYNAMIC_TABLE_WRITERS)).toEqual([]);
  });

  it('the scan finds what it looks for (the repositories do write both tables)', () => {
    const all = offenders(CACHED_WRITE, new Set());
    expect(all.some((o) => o.startsWith('server/features/accounts/users-repository.ts') && /UPDATE users/i.test(o))).toBe(true);
    expect(all.some((o) => o.startsWith('server/features/accounts/api-keys-repository.ts') && /INSERT INTO api_keys/i.test(o))).toBe(true);
    expect('await db.run(`DELETE FROM api_keys WHERE id = ?`)'.match(CACHED_WRITE)).not.toBeNull();
    expect("db.run('UPDATE users_archive SET x = 1')".match(CACHED_WRITE)).toBeNull();
  });
});
