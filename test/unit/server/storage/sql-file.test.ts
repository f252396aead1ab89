import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSqlFile } from '../../../../src/server/storage/migrations/sql-file.js';
import { listMigrations, readSqlFiles, sha256 } from '../../../../src/server/storage/migrations/known.js';
import { NEXT_MIGRATIONS } from '../../../../src/server/storage/migrations/next/index.js';

// The one format of every later migration (issue 32 item 3): one file for both dialects, differences in
// marked blocks; each dialect's SQL is what it runs, and its checksum the SHA-256 of that text.
const lines = (...l: string[]) => l.join('\n');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const folder = (files: Record<string, string>): URL => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-sql-files-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return pathToFileURL(`${dir}/`);
};

describe('a migration file', () => {
  const file = lines(
    '-- compatible: yes',
    '-- Why: notes on users.',
    'ALTER TABLE users ADD COLUMN note TEXT;',
    '-- sqlite:',
    'ALTER TABLE users ADD COLUMN weight REAL;',
    '-- postgres:',
    'ALTER TABLE users ADD COLUMN weight DOUBLE PRECISION;',
    'CREATE INDEX users_weight ON users (weight) WHERE weight IS NOT NULL;',
    '-- end',
    'CREATE INDEX users_note ON users (note);',
  );

  it("gives each dialect the shared lines and its own block's, without the markers", () => {
    const m = parseSqlFile('004-user-notes.sql', file);
    expect(m).toMatchObject({ name: 'user-notes', sequence: 4, compatible: true });
    expect(m.sql.sqlite).toBe(
      lines('-- compatible: yes', '-- Why: notes on users.', 'ALTER TABLE users ADD COLUMN note TEXT;', 'ALTER TABLE users ADD COLUMN weight REAL;', 'CREATE INDEX users_note ON users (note);'),
    );
    expect(m.sql.postgres).toBe(
      lines(
        '-- compatible: yes',
        '-- Why: notes on users.',
        'ALTER TABLE users ADD COLUMN note TEXT;',
        'ALTER TABLE users ADD COLUMN weight DOUBLE PRECISION;',
        'CREATE INDEX users_weight ON users (weight) WHERE weight IS NOT NULL;',
        'CREATE INDEX users_note ON users (note);',
      ),
    );
  });

  it('without markers is the same SQL on both dialects, with the same checksum', async () => {
    const text = lines('-- compatible: no', 'ALTER TABLE users DROP COLUMN name;');
    const known = (await Promise.all((['sqlite', 'postgres'] as const).map((d) => listMigrations(d, folder({ '001-drop-name.sql': text }))))).map((k) => k.at(-1)!);
    expect(known.map((m) => [m.name, m.format, m.compatible, m.checksum])).toEqual([
      ['drop-name', 'file', false, sha256(text)],
      ['drop-name', 'file', false, sha256(text)],
    ]);
    // Numbered after every published migration of the older formats, per dialect.
    expect(known.map((m) => m.version)).toEqual([6 + NEXT_MIGRATIONS.length + 1, 2 + NEXT_MIGRATIONS.length + 1]);
  });

  it.each([
    ['no compatibility', lines('ALTER TABLE users ADD COLUMN a TEXT;'), /declare `-- compatible: yes`/],
    ['a block left open', lines('-- compatible: yes', '-- sqlite:', 'SELECT 1;'), /:3: the `-- sqlite:` block is not closed by `-- end`/],
    ['a misspelt marker', lines('-- compatible: yes', 'SELECT 1;', '-- postgresql:', 'SELECT 2;', '-- end'), /:3: unknown marker `-- postgresql:`/],
    ['an end without a block', lines('-- compatible: yes', 'SELECT 1;', '-- end'), /:3: `-- end` closes no dialect block/],
    ['nothing for one dialect', lines('-- compatible: yes', '-- sqlite:', 'SELECT 1;', '-- end'), /nothing to run on postgres/],
  ])('is refused with %s', (_what, text, message) => {
    expect(() => parseSqlFile('001-x.sql', text)).toThrow(message);
  });

  it('is refused when misnamed', () => {
    expect(() => parseSqlFile('1-x.sql', '-- compatible: yes\nSELECT 1;')).toThrow(/named NNN-name\.sql/);
  });

  it('files are numbered 001, 002, … without gaps or repeats', () => {
    const ok = '-- compatible: yes\nSELECT 1;';
    expect(readSqlFiles(folder({ '002-b.sql': ok, '001-a.sql': ok, 'README.md': 'not a migration' })).map((m) => m.name)).toEqual(['a', 'b']);
    expect(() => readSqlFiles(folder({ '001-a.sql': ok, '003-c.sql': ok }))).toThrow(/003-c\.sql: expected number 002/);
    expect(() => readSqlFiles(folder({ '001-a.sql': ok, '001-b.sql': ok }))).toThrow(/001-b\.sql: expected number 002/);
  });

  it('is the format of every migration after the last text-per-dialect one (next/ is closed)', () => {
    expect(NEXT_MIGRATIONS.at(-1)?.name).toBe('migration-compatibility');
  });
});
