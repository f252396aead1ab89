import { parse, type CsvError, type Options } from 'csv-parse';
import { validationFailed, type DomainError } from '../../../shared/errors.js';
import { DATASET_LIMITS } from '../../../shared/constants.js';
import {
  countLineBreaks,
  DATASET_CSV_OPTIONS,
  DATASET_MESSAGES,
  datasetRowReader,
  invalidUtf8Line,
  malformedReason,
  type DatasetRow,
} from '../../../shared/dataset-rules.js';

/** Most data rows one dataset may hold (DESIGN §4.10). */
export const MAX_DATASET_ROWS = DATASET_LIMITS.rows;

/** One accepted data row; `line` is its 1-based CSV line (the header is line 1). */
export type CsvDatasetRow = DatasetRow;

/** What the parser checks against the outside world. */
export interface CsvDatasetOptions {
  speakerExists(id: string): boolean;
  maxRows?: number;
}

/**
 * Parses a dataset CSV as it streams in (UTF-8, optional BOM, LF or CRLF, RFC 4180 quotes with
 * embedded newlines; extra columns ignored) and validates every row. Throws the first problem in file
 * order as a 400 with the exact message of DESIGN §4.10; the source is always read to its end so the
 * request body is consumed. The row rules and line numbering are the shared ones the CLI also runs.
 */
export async function parseDatasetCsv(source: AsyncIterable<Uint8Array>, opts: CsvDatasetOptions): Promise<CsvDatasetRow[]> {
  const maxRows = opts.maxRows ?? MAX_DATASET_ROWS;
  const rows: CsvDatasetRow[] = [];
  let failure: DomainError | undefined;
  const reader = datasetRowReader({ speakerExists: opts.speakerExists, maxRows });
  const fail = (detail: string) => {
    failure ??= validationFailed(detail);
  };

  const onRecord = (cells: string[], raw: string): void => {
    if (failure) return;
    const outcome = reader.read(cells, raw);
    if (outcome.kind === 'problem') fail(outcome.message);
    else if (outcome.kind === 'row') rows.push(outcome.row);
  };

  const parser = parse({
    ...DATASET_CSV_OPTIONS,
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
      if (!failure) fail(DATASET_MESSAGES.malformed(reader.nextLine, malformedReason(err.code)));
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
    fail(DATASET_MESSAGES.malformed(invalidUtf8Line(new TextDecoder('utf-8').decode(chunk), decodedLines), 'invalid UTF-8'));
  }

  if (failure) throw failure;
  if (!reader.hasHeader) throw validationFailed(DATASET_MESSAGES.missingText);
  if (rows.length === 0) throw validationFailed(DATASET_MESSAGES.noRows);
  return rows;
}
