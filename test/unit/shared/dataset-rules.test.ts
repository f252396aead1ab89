import { describe, expect, it } from 'vitest';
import { validateDatasetCsv } from '../../../src/cli/dataset/csv.js';
import { parseDatasetCsv } from '../../../src/server/features/datasets/csv-dataset.js';
import { datasetRowReader } from '../../../src/shared/dataset-rules.js';

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** The service's first problem for `csv` (what its 400 says), or undefined when it accepts the file. */
async function serverProblem(csv: Buffer): Promise<string | undefined> {
  return parseDatasetCsv(once(csv), { speakerExists: () => true }).then(
    () => undefined,
    (err: Error) => err.message,
  );
}

/** The CLI's first problem for the same file. */
async function cliProblem(csv: Buffer): Promise<string | undefined> {
  return (await validateDatasetCsv(csv)).problems[0];
}

describe('dataset row rules shared by the CLI and the service', () => {
  // Each file puts its first problem after something that used to make the two sides disagree.
  const files: [string, string | Buffer][] = [
    ['CRLF inside a quoted field', 'text\r\n"two\r\nlines"\r\n"three\r\nmore\r\nlines"\r\n,\r\n'],
    ['a blank line and an embedded LF', 'text\n\n"a\nb"\n\n   \n'],
    ['an emoji-only row', 'text\nfine\n😀\n'],
    ['a malformed quote after a multi-line field', 'text\n"a\r\nb"\n"open\n'],
    ['invalid UTF-8 on line 3', Buffer.concat([Buffer.from('text\nok\nbad '), Buffer.from([0xff]), Buffer.from('\n')])],
  ];

  it.each(files)('reports the same first problem on the same line: %s', async (_name, csv) => {
    const bytes = Buffer.from(csv);
    const server = await serverProblem(bytes);
    const cli = await cliProblem(bytes);
    expect(server).toBeDefined();
    expect(cli).toBe(server);
  });

  it('numbers lines as the file has them, CRLF inside quotes counted once', () => {
    const reader = datasetRowReader();
    expect(reader.read(['text'], 'text\r\n').kind).toBe('header');
    expect(reader.read(['a\r\nb'], '"a\r\nb"\r\n')).toEqual({ kind: 'row', row: { line: 2, text: 'a\r\nb', speakerId: undefined } });
    expect(reader.read([''], '\r\n')).toEqual({ kind: 'skip' });
    expect(reader.read([' '], ' \r\n')).toEqual({ kind: 'problem', message: 'Line 5: text must not be empty', fatal: false });
    expect(reader.nextLine).toBe(6);
  });

  it('stops at the row limit and at a missing text column', () => {
    const reader = datasetRowReader({ maxRows: 1 });
    expect(reader.read(['speaker_id', 'TEXT '], '').kind).toBe('header');
    expect(reader.read(['spk', 'hi'], '').kind).toBe('row');
    expect(reader.read(['spk', 'hi'], '')).toEqual({ kind: 'problem', message: 'CSV exceeds 1 rows', fatal: true });
    expect(datasetRowReader().read(['speaker_id'], '')).toEqual({ kind: 'problem', message: "CSV is missing required column 'text'", fatal: true });
  });

  it('checks speakers only where the catalogue is known', () => {
    const reader = datasetRowReader({ speakerExists: (id) => id === 'spk_a' });
    reader.read(['text', 'speaker_id'], '');
    expect(reader.read(['hi', ' spk_a '], '')).toEqual({ kind: 'row', row: { line: 2, text: 'hi', speakerId: 'spk_a' } });
    expect(reader.read(['hi', 'spk_x'], '')).toEqual({ kind: 'problem', message: 'Line 3: Speaker not found: spk_x', fatal: false });
    const cli = datasetRowReader();
    cli.read(['text', 'speaker_id'], '');
    expect(cli.read(['hi', 'spk_x'], '').kind).toBe('row');
  });
});
