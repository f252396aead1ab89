import { Chalk, type ChalkInstance } from 'chalk';
import type { Writable } from 'node:stream';
import { csvCell } from '../../shared/csv-cells.js';
import { terminalText } from './safe-text.js';

/** A stream that may be a terminal (process.stdout, or a test's fake). */
export type OutStream = Writable & { isTTY?: boolean; columns?: number };

/**
 * Text the CLI styled itself (a coloured `ok`, an error code in red): tables and field lists print it as
 * it is, colour codes included, where any other text has its control characters shown as `�`. Whoever
 * builds one passes the data parts inside it through `terminalText` first.
 */
export class Styled {
  constructor(readonly text: string) {}
}

/** Marks the CLI's own styled text (`styled(out.color.green('ok'))`) for a table cell or field value. */
export const styled = (text: string): Styled => new Styled(text);

/** One column of a table/CSV: header and how to read the cell from a row. */
export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
}

/** How output is rendered, decided once per invocation from the global flags and the streams. */
export interface OutputOptions {
  stdout: OutStream;
  stderr: OutStream;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  noColor: boolean;
}

/**
 * Everything a command prints goes through here: data on stdout (json / csv / table / plain),
 * messages on stderr, colours only on a terminal without NO_COLOR.
 */
export class Output {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** Colours for stdout content. */
  readonly color: ChalkInstance;
  /** Colours for stderr messages. */
  readonly errColor: ChalkInstance;

  constructor(opts: OutputOptions) {
    this.stdout = opts.stdout;
    this.stderr = opts.stderr;
    this.json = opts.json;
    this.quiet = opts.quiet;
    this.verbose = opts.verbose;
    this.color = new Chalk({ level: !opts.noColor && !opts.json && opts.stdout.isTTY ? 1 : 0 });
    this.errColor = new Chalk({ level: !opts.noColor && opts.stderr.isTTY ? 1 : 0 });
  }

  /** stdout is a terminal (and not --json): human rendering, colours, interactivity. */
  get isTTY(): boolean {
    return Boolean(this.stdout.isTTY) && !this.json;
  }

  /** stderr is a terminal: spinners and progress bars may be drawn there. */
  get stderrTTY(): boolean {
    return Boolean(this.stderr.isTTY);
  }

  /** Writes raw text to stdout. */
  write(text: string): void {
    this.stdout.write(text);
  }

  /** Prints the API object as-is, indented (`jq` and JSON.parse read it either way). */
  printJson(value: unknown): void {
    this.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** An informational message on stderr (suppressed by --quiet, and by --json: its stderr is JSON only). */
  info(message: string): void {
    if (!this.quiet && !this.json) this.stderr.write(message + '\n');
  }

  /** A success message on stderr (suppressed by --quiet and --json). */
  success(message: string): void {
    if (!this.quiet && !this.json) this.stderr.write(this.errColor.green('✓ ') + message + '\n');
  }

  /** A warning on stderr, always shown; under --json as a `{"warning":{"message"}}` line, so scripts still read JSON only. */
  warn(message: string): void {
    if (this.json) this.stderr.write(JSON.stringify({ warning: { message } }) + '\n');
    else this.stderr.write(this.errColor.yellow('Warning: ') + terminalText(message) + '\n');
  }

  /**
   * A machine-readable event on stderr under --json (`{"event":"progress",…}`), so every stderr line of
   * a `--json` run parses (DESIGN §7); nothing otherwise, or with --quiet.
   */
  event(name: string, fields: Record<string, unknown>): void {
    if (this.json && !this.quiet) this.stderr.write(JSON.stringify({ event: name, ...fields }) + '\n');
  }

  /** A debug line on stderr with --verbose (callers never pass secrets). */
  debug(message: string): void {
    if (!this.verbose) return;
    if (this.json) this.stderr.write(JSON.stringify({ debug: message }) + '\n');
    else this.stderr.write(this.errColor.dim(message) + '\n');
  }

  /**
   * Renders rows as a cli-table3 table on a terminal — fitted to its width, long cells (a transcript)
   * cut with an ellipsis (DESIGN §7) — or aligned plain columns when piped (never truncated). Either way
   * the data's control characters show as `�` (DESIGN §17.6): a table is read on a terminal, piped or not.
   */
  async table<T>(rows: readonly T[], columns: readonly Column<T>[]): Promise<void> {
    const values = rows.map((r) => columns.map((c) => c.get(r)));
    if (this.isTTY) {
      const { default: Table } = await import('cli-table3');
      // Line breaks (LF, CRLF) flattened first, so a CRLF reads as one space rather than a shown control
      // character; a lone CR, VT or FF is data and shows as � as it does piped (DESIGN §17.6).
      const oneLine = values.map((row) => row.map((v) => shownText(v, (t) => t.replace(/[ \t]*(?:\r?\n[ \t]*)+/g, ' '))));
      const natural = columns.map((c, i) => Math.max(visibleWidth(c.header), ...oneLine.map((r) => visibleWidth(r[i]!))) + 2);
      const colWidths = fitWidths(natural, (this.stdout.columns ?? 80) - (columns.length + 1));
      const table = new Table({ head: columns.map((c) => this.color.bold(c.header)), style: { head: [], border: [] }, colWidths, wordWrap: false });
      for (const row of oneLine) table.push(row);
      this.stdout.write(table.toString() + '\n');
      return;
    }
    const cells = values.map((row) => row.map((v) => shownText(v)));
    const headers = columns.map((c) => c.header.toUpperCase());
    const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => [...r[i]!].length)));
    const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
    this.stdout.write([line(headers), ...cells.map(line)].join('\n') + '\n');
  }

  /** Renders rows as RFC 4180 CSV with a header line: the data as it is, but no text cell a spreadsheet would run as a formula. */
  async csv<T>(rows: readonly T[], columns: readonly Column<T>[]): Promise<void> {
    const { stringify } = await import('csv-stringify/sync');
    this.stdout.write(
      stringify(
        // Numbers stay numbers (never prefixed); every text is judged by csvCell.
        rows.map((r) =>
          columns.map((c) => {
            const v = c.get(r);
            return typeof v === 'number' ? v : csvCell(cellText(v, ''));
          }),
        ),
        { header: true, columns: columns.map((c) => c.header) },
      ),
    );
  }

  /** Prints a list in the requested format: --json (the API object), --csv, or a table. */
  async list<T>(apiObject: unknown, rows: readonly T[], columns: readonly Column<T>[], opts: { csv?: boolean }): Promise<void> {
    if (this.json) return this.printJson(apiObject);
    if (opts.csv) return this.csv(rows, columns);
    return this.table(rows, columns);
  }

  /** Prints `key: value` lines for one object (human view), control characters of the values shown as `�`. */
  fields(entries: readonly [string, unknown][]): void {
    const width = Math.max(...entries.map(([k]) => k.length));
    for (const [k, v] of entries) this.stdout.write(`${this.color.bold(k.padEnd(width))}  ${shownText(v)}\n`);
  }
}

// Colour codes take no room on screen (built from the ESC code point: lint forbids control characters in literals).
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const visibleWidth = (s: string) => [...s.replace(ANSI, '')].length;

/**
 * Column widths (padding included) that fit `available` characters: columns narrower than a fair share
 * keep their width, the widest give up room first, none below 5. Returns `natural` when it fits.
 */
export function fitWidths(natural: readonly number[], available: number): number[] {
  const widths = [...natural];
  const total = () => widths.reduce((a, b) => a + b, 0);
  while (total() > available) {
    const widest = Math.max(...widths);
    if (widest <= 5) break;
    const i = widths.indexOf(widest);
    const second = Math.max(5, ...widths.filter((_, j) => j !== i));
    widths[i] = Math.max(second, widest - (total() - available), 5);
    if (widths[i] === widest) widths[i] = widest - 1;
  }
  return widths;
}

function cellText(v: unknown, empty = '-'): string {
  if (v instanceof Styled) return v.text;
  if (v === undefined || v === null || v === '') return empty;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A table cell or field value as a terminal shows it: the CLI's styled text as it is, data with its control characters as `�`. */
function shownText(v: unknown, layout: (text: string) => string = (t) => t): string {
  return v instanceof Styled ? layout(v.text) : terminalText(layout(cellText(v)));
}

/** A bar of `width` cells filled in proportion to used/limit, e.g. `████░░░░`. */
export function bar(used: number, limit: number, width = 30): string {
  const ratio = limit > 0 ? Math.min(1, Math.max(0, used / limit)) : 0;
  const filled = Math.round(ratio * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}
