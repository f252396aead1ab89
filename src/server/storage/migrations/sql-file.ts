import type { Dialect } from '../sql/types.js';

/**
 * A migration of the one format every migration after `next/` is written in (issue 32 item 3): one file
 * `sql/NNN-name.sql`, written once for both dialects, where they differ in marked blocks:
 *
 * ```sql
 * -- compatible: yes                       (required: DESIGN §14.13, `yes` only for additions)
 * ALTER TABLE evaluations ADD COLUMN note TEXT;   -- both dialects
 * -- sqlite:
 * ALTER TABLE evaluations ADD COLUMN lag REAL;
 * -- postgres:
 * ALTER TABLE evaluations ADD COLUMN lag DOUBLE PRECISION;
 * -- end
 * ```
 *
 * A dialect's SQL is the file's lines with the other dialect's blocks and the marker lines left out; its
 * checksum (DESIGN §14.1) is the SHA-256 of that text, so a change that leaves what a dialect runs as it
 * was (moving a marker) keeps that dialect's checksum, and any other change is refused once published.
 */
export interface SqlFileMigration {
  /** From the file name: `001-add-notes.sql` → `add-notes`. */
  name: string;
  /** The NNN of the file name: its place among the migrations of this format, from 1. */
  sequence: number;
  compatible: boolean;
  sql: Readonly<Record<Dialect, string>>;
}

/** A file of the format that cannot be read as one; says the file and line. */
export class SqlFileError extends Error {
  constructor(file: string, line: number | undefined, problem: string) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${problem}`);
    this.name = 'SqlFileError';
  }
}

const FILE_NAME = /^(\d{3})-([a-z0-9]+(?:-[a-z0-9]+)*)\.sql$/;
const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];
/** Any `-- word:` line alone: a marker, or a misspelt one (refused rather than read as a comment that runs on both). */
const MARKER_LIKE = /^--\s*([A-Za-z]+)\s*:\s*$/;
const COMPATIBLE = /^--\s*compatible:\s*(yes|no)\s*$/;
const END = /^--\s*end\s*$/;

/** Whether `file` is named as a migration of this format. */
export const isSqlFileName = (file: string): boolean => FILE_NAME.test(file);

/** Reads one migration file of the format: its name, sequence, compatibility and each dialect's SQL. */
export function parseSqlFile(file: string, text: string): SqlFileMigration {
  const named = FILE_NAME.exec(file);
  if (!named) throw new SqlFileError(file, undefined, 'a migration file is named NNN-name.sql (lower-case name, words joined by -)');
  const lines = text.split('\n');
  const out: Record<Dialect, string[]> = { sqlite: [], postgres: [] };
  let block: Dialect | undefined;
  let compatible: boolean | undefined;
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    const flag = COMPATIBLE.exec(trimmed);
    if (flag) {
      if (compatible !== undefined) throw new SqlFileError(file, i + 1, '`-- compatible:` is declared twice');
      compatible = flag[1] === 'yes';
    }
    if (END.test(trimmed)) {
      if (block === undefined) throw new SqlFileError(file, i + 1, '`-- end` closes no dialect block');
      block = undefined;
      return;
    }
    const marker = MARKER_LIKE.exec(trimmed)?.[1];
    if (marker !== undefined) {
      if (!DIALECTS.includes(marker as Dialect)) throw new SqlFileError(file, i + 1, `unknown marker \`-- ${marker}:\` (the markers are -- sqlite:, -- postgres:, -- end)`);
      if (block === marker) throw new SqlFileError(file, i + 1, `\`-- ${marker}:\` inside its own block`);
      block = marker as Dialect;
      return;
    }
    for (const d of DIALECTS) if (block === undefined || block === d) out[d].push(line);
  });
  if (block !== undefined) throw new SqlFileError(file, lines.length, `the \`-- ${block}:\` block is not closed by \`-- end\``);
  if (compatible === undefined) throw new SqlFileError(file, undefined, 'declare `-- compatible: yes` (only adds tables, nullable columns, indexes) or `-- compatible: no` (DESIGN §14.13)');
  const sql = { sqlite: out.sqlite.join('\n'), postgres: out.postgres.join('\n') };
  for (const d of DIALECTS) if (!hasStatement(sql[d])) throw new SqlFileError(file, undefined, `nothing to run on ${d}`);
  return { name: named[2]!, sequence: Number(named[1]), compatible, sql };
}

/** Whether the text holds anything but comments and white space. */
function hasStatement(sql: string): boolean {
  return sql.split('\n').some((line) => {
    const t = line.trim();
    return t !== '' && !t.startsWith('--');
  });
}
