import { parse, type CsvError, type Options } from 'csv-parse';
import { badRequest, type ApiError } from '../errors.js';
import { TEXT_MESSAGES, textProblem } from '../../shared/text-rules.js';

/** Most data rows one dataset may hold (DESIGN §4.10). */
export const MAX_DATASET_ROWS = 10_000;

/** One accepted data row; `line` is its 1-based CSV line (the header is line 1). */
export interface CsvDatasetRow {
  line: number;
  text: string;
  /** Trimmed cell, or undefined when empty/absent (a random speaker is assigned later). */
  speakerId: string | undefined;
}

/** What the parser checks against the outside world. */
export interface CsvDatasetOptions {
  speakerExists(id: string): boolean;
  maxRows?: number;
}

const LINE_BREAKS = /\r\n|\r|\n/g;
const countLineBreaks = (s: string): number => s.match(LINE_BREAKS)?.length ?? 0;

/** Short reasons for csv-parse's error codes (its own messages quote internals and option names). */
const REASONS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'unclosed quoted field',
  CSV_INVALID_CLOSING_QUOTE: 'unexpected character after a closing quote',
  INVALID_OPENING_QUOTE: 'quote inside an unquoted field',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'unexpected character after a closing quote',
  CSV_MAX_RECORD_SIZE: 'row longer than 65536 characters',
};

/**
 * Longest record, in characters. A text cell holds at most 2,000 code points; the cap keeps a hostile
 * one-line file of millions of fields from holding the event loop for seconds.
 */
const MAX_RECORD_CHARS = 65_536;

/**
 * Parses a dataset CSV as it streams in (UTF-8, optional BOM, LF or CRLF, RFC 4180 quotes with
 * embedded newlines; extra columns ignored) and validates every row. Throws the first problem in file
 * order as a 400 with the exact message of DESIGN §4.10; the source is always read to its end so the
 * request body is consumed. Line numbers are counted here, not taken from csv-parse, whose count
 * drifts on CRLF inside quoted fields.
 */
export async function parseDatasetCsv(source: AsyncIterable<Uint8Array>, opts: CsvDatasetOptions): Promise<CsvDatasetRow[]> {
  const maxRows = opts.maxRows ?? MAX_DATASET_ROWS;
  const rows: CsvDatasetRow[] = [];
  let failure: ApiError | undefined;
  let nextLine = 1;
  let header: { text: number; speaker: number } | undefined;
  const fail = (detail: string) => {
    failure ??= badRequest(detail);
  };

  const onRecord = (cells: string[], raw: string): void => {
    if (failure) return;
    const line = nextLine;
    nextLine += 1 + cells.reduce((n, c) => n + countLineBreaks(c), 0);
    // A blank line (not a quoted empty field) is skipped, as RFC 4180 readers commonly do.
    if (cells.length === 1 && cells[0] === '' && !raw.includes('"')) return;
    if (!header) {
      const names = cells.map((c) => c.trim().toLowerCase());
      const text = names.indexOf('text');
      if (text < 0) return fail("CSV is missing required column 'text'");
      header = { text, speaker: names.indexOf('speaker_id') };
      return;
    }
    if (rows.length >= maxRows) return fail(`CSV exceeds ${maxRows} rows`);
    const text = cells[header.text] ?? '';
    const problem = textProblem(text);
    if (problem === 'empty') return fail(`Line ${line}: text must not be empty`);
    if (problem) return fail(`Line ${line}: ${TEXT_MESSAGES[problem]}`);
    const speakerId = header.speaker >= 0 ? (cells[header.speaker] ?? '').trim() || undefined : undefined;
    if (speakerId !== undefined && !opts.speakerExists(speakerId)) return fail(`Line ${line}: Speaker not found: ${speakerId}`);
    rows.push({ line, text, speakerId });
  };

  const parser = parse({
    bom: true,
    relax_column_count: true,
    raw: true,
    max_record_size: MAX_RECORD_CHARS,
    // With `raw`, csv-parse hands over `{record, raw}` (its typings only know plain records).
    on_record: ((rec: { record: string[]; raw: string }) => {
      // csv-parse compares every record's length with the FIRST record's and, even when relaxed, builds
      // a CsvError (stack trace included) per mismatch: 16x slower on files whose rows have fewer or more
      // cells than the header. Resetting its record count makes each record its own reference.
      (parser.info as { records: number }).records = 0;
      onRecord(rec.record, rec.raw);
      return undefined;
    }) as unknown as Options['on_record'],
  });
  parser.resume();
  const finished = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('error', (err: CsvError) => {
      if (!failure) fail(`Malformed CSV at line ${nextLine}: ${REASONS[err.code] ?? 'invalid CSV'}`);
      resolve();
    });
  });

  const decoder = new TextDecoder('utf-8', { fatal: true });
  let decodedLines = 0;
  let parserOpen = true;
  const feed = (text: string) => {
    decodedLines += countLineBreaks(text);
    if (parserOpen && !failure) parser.write(text);
  };
  try {
    for await (const chunk of source) {
      if (failure) continue;
      try {
        feed(decoder.decode(chunk, { stream: true }));
      } catch {
        invalidUtf8(chunk);
      }
    }
  } catch (err) {
    // The source itself broke (e.g. the upload passed its size limit): nothing more to parse.
    parser.destroy();
    throw err;
  }
  if (!failure) {
    try {
      feed(decoder.decode());
    } catch {
      invalidUtf8(new Uint8Array(0));
    }
  }
  parserOpen = false;
  parser.end();
  await finished;

  function invalidUtf8(chunk: Uint8Array): void {
    const lenient = new TextDecoder('utf-8').decode(chunk);
    const bad = lenient.indexOf('\uFFFD');
    fail(`Malformed CSV at line ${1 + decodedLines + countLineBreaks(lenient.slice(0, bad < 0 ? 0 : bad))}: invalid UTF-8`);
  }

  if (failure) throw failure;
  if (!header) throw badRequest("CSV is missing required column 'text'");
  if (rows.length === 0) throw badRequest('CSV has no data rows');
  return rows;
}
