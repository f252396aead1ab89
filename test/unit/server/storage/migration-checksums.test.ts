import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { knownMigrations, sha256 } from '../../../../src/server/storage/migrations/known.js';
import { HISTORICAL_CHECKSUMS, PUBLISHED_CHECKSUMS } from '../../../../src/server/storage/migrations/checksums.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/old-schemas/postgres/', import.meta.url));

// DESIGN §14.1: a published migration never changes. This list is the committed record; a failure here
// means a published migration was edited (write a new one instead) or a new one lacks its line.
describe.each(['sqlite', 'postgres'] as const)('checksums of the %s migrations', (dialect) => {
  it('match the committed list, version by version', async () => {
    const known = await knownMigrations(dialect);
    const code = Object.fromEntries(known.map((m) => [m.version, m.checksum]));
    const missing = known.filter((m) => PUBLISHED_CHECKSUMS[dialect][m.version] === undefined);
    expect(missing.map((m) => `${m.version}: '${m.checksum}', // ${m.name}`), 'add these lines to PUBLISHED_CHECKSUMS in checksums.ts').toEqual([]);
    expect(code).toEqual(PUBLISHED_CHECKSUMS[dialect]);
  });

  it('number the migrations 1..n with unique names', async () => {
    const known = await knownMigrations(dialect);
    expect(known.map((m) => m.version)).toEqual(known.map((_, i) => i + 1));
    expect(new Set(known.map((m) => m.name)).size).toBe(known.length);
  });

  it('are stable: recording a legacy migration twice gives the same checksum', async () => {
    const [a, b] = await Promise.all([knownMigrations(dialect), knownMigrations(dialect)]);
    expect(a.map((m) => m.checksum)).toEqual(b.map((m) => m.checksum));
  });
});

describe('earlier texts of PostgreSQL migration 2 (edited in place before checksums existed)', () => {
  it('are exactly the texts kept as fixtures from the commits that published them', () => {
    const fixtures = readdirSync(FIXTURES).filter((f) => f.startsWith('002-scale-out@')).sort();
    expect(fixtures).toEqual(['002-scale-out@21aa4a4.sql', '002-scale-out@229f8ec.sql', '002-scale-out@43e9102.sql']);
    const sums = fixtures.map((f) => sha256(readFileSync(FIXTURES + f, 'utf8')));
    expect([...(HISTORICAL_CHECKSUMS.postgres[2] ?? [])].sort()).toEqual([...sums].sort());
  });

  it('differ from the current text, which is a one-statement migration checksummed as its SQL', async () => {
    const current = (await knownMigrations('postgres'))[1]!;
    expect(HISTORICAL_CHECKSUMS.postgres[2]).not.toContain(current.checksum);
  });
});
