import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseDatasetCsv } from '../../../../../src/server/features/datasets/csv-dataset.js';
import { DomainError } from '../../../../../src/shared/errors.js';
import { statusOf } from '../../../../../src/server/plugins/errors.js';

const speakers = new Set(['spk_a', 'spk_b']);
const opts = { speakerExists: (id: string) => speakers.has(id) };

/** Feeds `input` in chunks of `size` bytes (to cross chunk boundaries mid-character and mid-quote). */
async function* chunks(input: string | Uint8Array, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function errorOf(input: string | Uint8Array, maxRows?: number, chunkSize = 7): Promise<string> {
  try {
    await parseDatasetCsv(chunks(input, chunkSize), { ...opts, maxRows });
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect(statusOf((err as DomainError).code)).toBe(400);
    return (err as DomainError).message;
  }
  throw new Error('expected a 400');
}

describe('parseDatasetCsv', () => {
  it('parses BOM, CRLF, quoted commas, quotes, embedded newlines and extra columns with true line numbers', async () => {
    const csv = '\ufefftext,extra,speaker_id\r\nHello,x,spk_a\r\n"a, ""quoted""\r\nline",y,\r\n\r\nlast one,z, spk_b \r\n';
    const rows = await parseDatasetCsv(chunks(csv, 3), opts);
    expect(rows).toEqual([
      { line: 2, text: 'Hello', speakerId: 'spk_a' },
      { line: 3, text: 'a, "quoted"\r\nline', speakerId: undefined },
      { line: 6, text: 'last one', speakerId: 'spk_b' },
    ]);
  });

  it('accepts a file without speaker_id column and a missing trailing newline', async () => {
    const rows = await parseDatasetCsv(chunks('TEXT\nhi\nthere'), opts);
    expect(rows.map((r) => [r.line, r.text, r.speakerId])).toEqual([
      [2, 'hi', undefined],
      [3, 'there', undefined],
    ]);
  });

  it('reports every documented error with its 1-based line', async () => {
    expect(await errorOf('name,speaker_id\nx,spk_a\n')).toBe("CSV is missing required column 'text'");
    expect(await errorOf('')).toBe("CSV is missing required column 'text'");
    expect(await errorOf('text,speaker_id\n')).toBe('CSV has no data rows');
    expect(await errorOf('text\nok\n   \n')).toBe('Line 3: text must not be empty');
    expect(await errorOf('text,speaker_id\nok,spk_a\n"",spk_a\n')).toBe('Line 3: text must not be empty');
    expect(await errorOf(`text\nok\n"multi\nline"\n${'x'.repeat(2001)}\n`)).toBe(
      'Line 5: Text exceeds maximum length of 2000 characters',
    );
    expect(await errorOf('text,speaker_id\nok,spk_a\nok,nobody\n')).toBe('Line 3: Speaker not found: nobody');
    expect(await errorOf('text\n' + 'row\n'.repeat(11), 10)).toBe('CSV exceeds 10 rows');
    expect(await errorOf('text\nok\n"never closed\nmore\n')).toBe('Malformed CSV at line 3: unclosed quoted field');
    expect(await errorOf('text\nok\n"abc"x\n')).toBe('Malformed CSV at line 3: unexpected character after a closing quote');
    const bad = new Uint8Array([...new TextEncoder().encode('text\nok\nfine\n'), 0xff, 0xfe, 0x0a]);
    expect(await errorOf(bad)).toBe('Malformed CSV at line 4: invalid UTF-8');
  });

  it('refuses a pathological record quickly', async () => {
    const input = 'text\n' + 'a,'.repeat(4_000_000);
    // Baseline in the same run: only reading and decoding the same 64 KiB chunks (the unavoidable part).
    const d0 = performance.now();
    const decoder = new TextDecoder();
    for await (const chunk of chunks(input, 65_536)) decoder.decode(chunk, { stream: true });
    const readMs = Math.max(performance.now() - d0, 10);
    const t0 = performance.now();
    // 64 KiB chunks, like a multipart stream; without the record cap this input takes seconds (> 100x).
    expect(await errorOf(input, undefined, 65_536)).toBe('Malformed CSV at line 2: row longer than 65536 characters');
    expect(performance.now() - t0).toBeLessThan(readMs * 30);
  });

  it('parses rows whose cell count differs from the header at full speed', async () => {
    // 10,000 rows of 3 cells under a 2-column header (a common export shape), against the same rows
    // under a 3-column header, timed in the same run: equal with the fix (0.5-1.1x measured), 4.8-7.7x
    // with a CsvError built per row.
    const body = 'hello there,spk_a,extra\n'.repeat(10_000);
    const timed = async (header: string) => {
      const t0 = performance.now();
      const rows = await parseDatasetCsv(chunks(header + body, 65_536), opts);
      return { rows, ms: performance.now() - t0 };
    };
    await timed('text,speaker_id,extra\n'); // warm up
    const matching = await timed('text,speaker_id,extra\n');
    const { rows, ms } = await timed('text,speaker_id\n');
    expect(rows).toHaveLength(10_000);
    expect(rows[9_999]).toEqual({ line: 10_001, text: 'hello there', speakerId: 'spk_a' });
    expect(ms, `${ms.toFixed(0)} ms against ${matching.ms.toFixed(0)} ms with a matching header`).toBeLessThan(Math.max(matching.ms, 20) * 3);
  });

  it('counts code points, not UTF-16 units, for the 2000 limit', async () => {
    // One letter among the emoji: a text of emoji alone has nothing to speak.
    const rows = await parseDatasetCsv(chunks(`text\na${'😀'.repeat(1999)}\n`), opts);
    expect(rows).toHaveLength(1);
    expect(await errorOf(`text\na${'😀'.repeat(2000)}\n`)).toBe('Line 2: Text exceeds maximum length of 2000 characters');
    expect(await errorOf(`text\nfine\n${'😀'.repeat(20)}\n`)).toBe('Line 3: Text has nothing to speak');
  });

  it('reports the first problem in file order', async () => {
    expect(await errorOf('text,speaker_id\n,spk_a\nok,nobody\n"open\n')).toBe('Line 2: text must not be empty');
  });

  it('never fails with anything but a 400 on random bytes and CSV shapes (fuzz)', async () => {
    const cell = fc.oneof(fc.string(), fc.constantFrom('', '"', '""', ',', '\n', '\r\n', 'spk_a', 'nobody', '\ufeff'));
    const csvShape = fc
      .tuple(fc.array(fc.array(cell, { maxLength: 4 }), { maxLength: 8 }), fc.constantFrom('\n', '\r\n'))
      .map(([rows, eol]) => rows.map((r) => r.join(',')).join(eol));
    const input = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      csvShape.map((s) => 'text,speaker_id\n' + s),
      csvShape,
    );
    await fc.assert(
      fc.asyncProperty(input, fc.integer({ min: 1, max: 16 }), async (data, size) => {
        try {
          const rows = await parseDatasetCsv(chunks(data, size), opts);
          expect(rows.length).toBeGreaterThan(0);
          for (const r of rows) expect(r.text.trim()).not.toBe('');
        } catch (err) {
          expect(err).toBeInstanceOf(DomainError);
          expect(statusOf((err as DomainError).code)).toBe(400);
        }
      }),
      { numRuns: 300 },
    );
  });
});
