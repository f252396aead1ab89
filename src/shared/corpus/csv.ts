/**
 * An audiofolder `metadata.csv` as records with the file line each starts on. csv-parse is loaded on first
 * use, so the CLI pays for it only when it checks a corpus.
 */
import { countLineBreaks, malformedReason } from '../dataset-rules.js';

/** One CSV record and its 1-based first line (the header is line 1). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/** A CSV that csv-parse refuses: where and why. */
export class MalformedCsvError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`malformed CSV at line ${line}: ${reason}`);
    this.name = 'MalformedCsvError';
  }
}

/** Longest record in characters: a reference holds at most 10,000 code points, metadata a few more. */
const MAX_RECORD_CHARS = 1024 * 1024;

/**
 * Parses `text` (RFC 4180, optional BOM, ragged rows allowed). Blank lines are dropped but counted, so
 * every record keeps the line it has in the file.
 */
export async function parseCsvRecords(text: string): Promise<CsvRecord[]> {
  const { parse } = await import('csv-parse/sync');
  let parsed: { record: string[]; raw: string }[];
  try {
    parsed = parse(text, { bom: true, relax_column_count: true, raw: true, max_record_size: MAX_RECORD_CHARS }) as unknown as { record: string[]; raw: string }[];
  } catch (err) {
    const e = err as { code?: string; lines?: number };
    throw new MalformedCsvError(e.lines ?? 1, malformedReason(e.code));
  }
  const out: CsvRecord[] = [];
  let line = 1;
  for (const { record, raw } of parsed) {
    const start = line;
    line += 1 + record.reduce((n, c) => n + countLineBreaks(c), 0);
    if (record.length === 1 && record[0] === '' && !raw.includes('"')) continue;
    out.push({ line: start, cells: record });
  }
  return out;
}

/** Characters handed to the parser at a time: each slice is parsed in one go, the event loop runs between. */
const SLICE_CHARS = 64 * 1024;

/** `text` in slices that never split a surrogate pair. */
function* slices(text: string): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + SLICE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield text.slice(at, end);
    at = end;
  }
}

/**
 * The records of `text` as `parseCsvRecords` gives them, parsed slice by slice (the event loop runs between
 * slices) and handed over one at a time, so a caller that stops early never parses or holds the rest.
 */
export async function* csvRecords(text: string): AsyncGenerator<CsvRecord> {
  const { parse } = await import('csv-parse');
  const { Readable } = await import('node:stream');
  const parser = Readable.from(slices(text), { objectMode: false }).pipe(
    parse({ bom: true, relax_column_count: true, raw: true, max_record_size: MAX_RECORD_CHARS }),
  );
  let line = 1;
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      const start = line;
      line += 1 + record.reduce((n, c) => n + countLineBreaks(c), 0);
      if (record.length === 1 && record[0] === '' && !raw.includes('"')) continue;
      yield { line: start, cells: record };
    }
  } catch (err) {
    const e = err as { code?: string; lines?: number };
    throw new MalformedCsvError(e.lines ?? 1, malformedReason(e.code));
  } finally {
    parser.destroy();
  }
}
