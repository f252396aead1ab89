import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);
const changelog = readFileSync(new URL('CHANGELOG.md', ROOT), 'utf8');
const version = (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version: string }).version;
const MIGRATIONS = new URL('src/server/storage/migrations/sql/', ROOT);

/** The upgrade-notes section of the version's CHANGELOG section. */
function section(of: string): string {
  const start = changelog.indexOf(`\n## ${of}\n`);
  if (start < 0) return '';
  const next = changelog.indexOf('\n## ', start + 1);
  return changelog.slice(start, next < 0 ? undefined : next);
}

describe('CHANGELOG.md (DESIGN §14.17)', () => {
  it('has a section for the version package.json says, newest first, with upgrade notes', () => {
    const versions = [...changelog.matchAll(/^## (\d+\.\d+\.\d+)$/gm)].map((m) => m[1]);
    expect(versions[0]).toBe(version);
    expect(section(version)).toContain('### Upgrade notes');
  });

  it('names every migration of the one format, with its versions and whether it is compatible, as the file declares', () => {
    const files = readdirSync(MIGRATIONS).filter((f) => /^\d{3}-.+\.sql$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const [, number, name] = /^(\d{3})-(.+)\.sql$/.exec(file)!;
      const row = changelog.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, `no upgrade-notes row for ${file}`).toBeDefined();
      // The first file of the one format is SQLite 17 and PostgreSQL 13 (sql/README.md); each next one adds 1.
      const n = Number(number);
      const cells = row!.split('|').map((c) => c.trim());
      expect(cells[2]).toBe(String(16 + n));
      expect(cells[3]).toBe(String(12 + n));
      const compatible = /^-- compatible: yes$/m.test(readFileSync(new URL(file, MIGRATIONS), 'utf8'));
      expect(cells.at(-2)).toBe(compatible ? 'yes' : 'no');
    }
  });
});
