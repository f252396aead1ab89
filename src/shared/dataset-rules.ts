/**
 * The row rules of a dataset CSV (DESIGN §4.10), written once for the service, which streams the
 * upload, and the CLI, which checks the file before sending it: header, line numbering, per-row text
 * and speaker checks, the row limit and the exact messages. Both feed csv-parse records to one reader,
 * so a file gets the same line numbers on both sides. No csv-parse import here: each side loads it.
 */
import { DATASET_LIMITS } from './constants.js';
import { TEXT_MESSAGES, textProblem } from './text-rules.js';

/** The exact messages of DESIGN §4.10 that are not about one line's text. */
export const DATASET_MESSAGES = {
  missingText: "CSV is missing required column 'text'",
  noRows: 'CSV has no data rows',
  tooBig: 'File exceeds 10 MB',
  tooManyRows: (max: number) => `CSV exceeds ${max} rows`,
  malformed: (line: number, reason: string) => `Malformed CSV at line ${line}: ${reason}`,
} as const;

/**
 * Longest record, in characters. A text cell holds at most 2,000 code points; the cap keeps a hostile
 * one-line file of millions of fields from holding the event loop for seconds.
 */
export const MAX_RECORD_CHARS = 65_536;

/** csv-parse options both sides use: UTF-8 with optional BOM, extra or missing cells allowed, raw text kept. */
export const DATASET_CSV_OPTIONS = { bom: true, relax_column_count: true, raw: true, max_record_size: MAX_RECORD_CHARS } as const;

/** Short reasons for csv-parse's error codes (its own messages quote internals and option names). */
const REASONS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'unclosed quoted field',
  CSV_INVALID_CLOSING_QUOTE: 'unexpected character after a closing quote',
  INVALID_OPENING_QUOTE: 'quote inside an unquoted field',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'unexpected character after a closing quote',
  CSV_MAX_RECORD_SIZE: `row longer than ${MAX_RECORD_CHARS} characters`,
};

/** The reason shown for a csv-parse error code. */
export function malformedReason(code: string | undefined): string {
  return (code && REASONS[code]) ?? 'invalid CSV';
}

const LINE_BREAKS = /\r\n|\r|\n/g;

/** Line breaks in `s`, CRLF counted once (csv-parse's own count drifts on CRLF inside quoted fields). */
export function countLineBreaks(s: string): number {
  return s.match(LINE_BREAKS)?.length ?? 0;
}

/** The 1-based line of the first U+FFFD in a leniently decoded text that failed strict UTF-8 decoding. */
export function invalidUtf8Line(lenient: string, linesBefore = 0): number {
  const bad = lenient.indexOf('\uFFFD');
  return 1 + linesBefore + countLineBreaks(lenient.slice(0, bad < 0 ? 0 : bad));
}

/** One accepted data row; `line` is its 1-based CSV line (the header is line 1). */
export interface DatasetRow {
  line: number;
  text: string;
  /** Trimmed cell, or undefined when empty/absent (a random speaker is assigned later). */
  speakerId: string | undefined;
}

/** What one record turned out to be; a `fatal` problem ends the file's checks (nothing after it is read). */
export type RecordOutcome = { kind: 'skip' } | { kind: 'header' } | { kind: 'row'; row: DatasetRow } | { kind: 'problem'; message: string; fatal: boolean };

/** Feeds csv-parse records in file order; knows the header, the line numbers and the rows seen. */
export interface DatasetRowReader {
  /** Checks one record (`cells` as parsed, `raw` its source text). */
  read(cells: string[], raw: string): RecordOutcome;
  /** The line the next record starts on (where a parse error is reported). */
  readonly nextLine: number;
  /** True once a header with a `text` column was read. */
  readonly hasHeader: boolean;
  /** Data rows seen so far, accepted or not. */
  readonly rows: number;
}

/** What the reader checks against the outside world; the CLI, which cannot see the catalogue, omits `speakerExists`. */
export interface DatasetRowReaderOptions {
  speakerExists?(id: string): boolean;
  /** Most data rows (default DESIGN's 10,000). */
  maxRows?: number;
}

/** A reader applying DESIGN §4.10's header, row and limit rules, numbering lines as the file has them. */
export function datasetRowReader(opts: DatasetRowReaderOptions = {}): DatasetRowReader {
  const maxRows = opts.maxRows ?? DATASET_LIMITS.rows;
  let nextLine = 1;
  let rows = 0;
  let header: { text: number; speaker: number } | undefined;

  const read = (cells: string[], raw: string): RecordOutcome => {
    const line = nextLine;
    nextLine += 1 + cells.reduce((n, c) => n + countLineBreaks(c), 0);
    // A blank line (not a quoted empty field) is skipped, as RFC 4180 readers commonly do.
    if (cells.length === 1 && cells[0] === '' && !raw.includes('"')) return { kind: 'skip' };
    if (!header) {
      const names = cells.map((c) => c.trim().toLowerCase());
      const text = names.indexOf('text');
      if (text < 0) return { kind: 'problem', message: DATASET_MESSAGES.missingText, fatal: true };
      header = { text, speaker: names.indexOf('speaker_id') };
      return { kind: 'header' };
    }
    if (rows >= maxRows) return { kind: 'problem', message: DATASET_MESSAGES.tooManyRows(maxRows), fatal: true };
    rows++;
    const text = cells[header.text] ?? '';
    const problem = textProblem(text);
    // DESIGN spells a dataset row's empty-text message in lower case.
    if (problem === 'empty') return { kind: 'problem', message: `Line ${line}: text must not be empty`, fatal: false };
    if (problem) return { kind: 'problem', message: `Line ${line}: ${TEXT_MESSAGES[problem]}`, fatal: false };
    const speakerId = header.speaker >= 0 ? (cells[header.speaker] ?? '').trim() || undefined : undefined;
    if (speakerId !== undefined && opts.speakerExists && !opts.speakerExists(speakerId)) {
      return { kind: 'problem', message: `Line ${line}: Speaker not found: ${speakerId}`, fatal: false };
    }
    return { kind: 'row', row: { line, text, speakerId } };
  };

  return {
    read,
    get nextLine() {
      return nextLine;
    },
    get hasHeader() {
      return header !== undefined;
    },
    get rows() {
      return rows;
    },
  };
}
