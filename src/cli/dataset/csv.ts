import { DATASET_LIMITS } from '../../shared/constants.js';
import type { Options } from 'csv-parse/sync';
import { DATASET_CSV_OPTIONS, DATASET_MESSAGES, datasetRowReader, invalidUtf8Line, malformedReason } from '../../shared/dataset-rules.js';

/**
 * Checks a dataset CSV with the service's own row rules (shared/dataset-rules), returning every problem
 * found before the first fatal one (empty when valid), and the characters its rows would charge.
 * Speakers are left to the service, which knows the catalogue.
 */
export async function validateDatasetCsv(data: Buffer): Promise<{ problems: string[]; rows: number; characters: number }> {
  if (data.length > DATASET_LIMITS.bytes) return { problems: [DATASET_MESSAGES.tooBig], rows: 0, characters: 0 };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return { problems: [DATASET_MESSAGES.malformed(invalidUtf8Line(data.toString('utf8')), 'invalid UTF-8')], rows: 0, characters: 0 };
  }
  const { parse } = await import('csv-parse/sync');
  const reader = datasetRowReader();
  const problems: string[] = [];
  let stopped = false;
  // What generating the audio charges: the rows' text code points (DESIGN §4.10).
  let characters = 0;
  try {
    parse(text, {
      ...DATASET_CSV_OPTIONS,
      // Records are checked as they are parsed, so the lines before a malformed one are still reported.
      on_record: (rec: { record: string[]; raw: string }) => {
        if (stopped) return undefined;
        const outcome = reader.read(rec.record, rec.raw);
        if (outcome.kind === 'row') characters += [...outcome.row.text].length;
        if (outcome.kind === 'problem') {
          problems.push(outcome.message);
          stopped = outcome.fatal;
        }
        return undefined;
      },
    } as unknown as Options);
  } catch (e) {
    if (!stopped) problems.push(DATASET_MESSAGES.malformed(reader.nextLine, malformedReason((e as { code?: string }).code)));
    stopped = true;
  }
  if (!stopped && !reader.hasHeader) problems.push(DATASET_MESSAGES.missingText);
  else if (!stopped && reader.rows === 0) problems.push(DATASET_MESSAGES.noRows);
  return { problems, rows: reader.rows, characters };
}
