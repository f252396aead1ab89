/** Limits the service applies to dataset CSVs (DESIGN §4.10), checked locally before uploading. */
export const DATASET_LIMITS = { bytes: 10 * 1024 * 1024, rows: 10_000, textCodePoints: 2000 } as const;

/** Checks a dataset CSV the way the service will, returning every problem (empty when valid). */
export async function validateDatasetCsv(data: Buffer): Promise<{ problems: string[]; rows: number }> {
  const problems: string[] = [];
  if (data.length > DATASET_LIMITS.bytes) return { problems: ['File exceeds 10 MB'], rows: 0 };
  const { parse } = await import('csv-parse/sync');
  let header: string[] | undefined;
  let rows = 0;
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(data, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_records_with_error: true,
      on_skip: (err: { lines?: number; message: string } | undefined) => {
        if (err) problems.push(`Malformed CSV at line ${err.lines ?? '?'}: ${err.message.replace(/^Invalid [^:]*: /, '')}`);
      },
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (e) {
    const err = e as { lines?: number; message: string };
    return { problems: [`Malformed CSV at line ${err.lines ?? 1}: ${err.message}`], rows: 0 };
  }
  for (const { record, info } of records) {
    if (!header) {
      header = record.map((c) => c.trim().toLowerCase());
      if (!header.includes('text')) return { problems: ["CSV is missing required column 'text'"], rows: 0 };
      continue;
    }
    if (record.length === 1 && record[0] === '') continue;
    rows++;
    const text = record[header.indexOf('text')] ?? '';
    if (text.trim() === '') problems.push(`Line ${info.lines}: text must not be empty`);
    else if ([...text].length > DATASET_LIMITS.textCodePoints) problems.push(`Line ${info.lines}: Text exceeds maximum length of 2000 characters`);
  }
  if (!header) return { problems: ["CSV is missing required column 'text'"], rows: 0 };
  if (rows === 0 && problems.length === 0) problems.push('CSV has no data rows');
  if (rows > DATASET_LIMITS.rows) problems.push('CSV exceeds 10000 rows');
  return { problems, rows };
}
