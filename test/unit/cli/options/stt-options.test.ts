import { describe, expect, it } from 'vitest';
import { CliError } from '../../../../src/cli/core/errors.js';
import { ALL_PROVIDERS } from '../../../../src/cli/core/stt-providers.js';
import { accuracyOptions, compareOptions, parseEntities, sttProviders, transcribeOptions } from '../../../../src/cli/stt/options.js';

// The options of `stt transcribe|compare|accuracy`, parsed from commander's flags without a program, a
// service or a disk: files are read through the reader each parser is given.
const files: Record<string, string> = { 'ref.txt': 'the cat sat', 'hyp.txt': 'the cat sad', 'empty.txt': '  ' };
const read = async (file: string) => {
  if (!(file in files)) throw new Error(`unexpected read of ${file}`);
  return files[file]!;
};
const scoring = { normalize: true, normalizer: 'basic' };

async function usage(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CliError);
  expect((e as CliError).exitCode).toBe(2);
  return (e as CliError).message;
}

describe('stt providers', () => {
  it("a list as given (duplicates dropped), 'all' as every token", () => {
    expect(sttProviders('stt-b, local-sphinx,stt-b')).toEqual(['stt-b', 'local-sphinx']);
    expect(sttProviders('all')).toEqual([...ALL_PROVIDERS]);
    expect(() => sttProviders('stt-zz')).toThrow('Unknown provider: stt-zz');
  });
});

describe('stt transcribe options', () => {
  it('providers, language, keyterms checked with the service rule, csv', () => {
    expect(transcribeOptions({ providers: 'stt-b', language: 'en', keyterm: ['Kubernetes', 'Grafana Loki'], csv: true })).toEqual({
      providers: ['stt-b'],
      language: 'en',
      keyterms: ['Kubernetes', 'Grafana Loki'],
      csv: true,
    });
    expect(transcribeOptions({ providers: 'stt-b' }).keyterms).toBeUndefined();
  });

  it('a bad provider is said before a bad keyterm', () => {
    expect(() => transcribeOptions({ providers: 'nope', keyterm: [''] })).toThrow('Unknown provider: nope');
  });
});

describe('stt compare options', () => {
  it('reads --reference-file through the reader', async () => {
    expect(await compareOptions({ providers: 'stt-b,stt-c', referenceFile: 'ref.txt', ...scoring }, read)).toEqual({
      providers: ['stt-b', 'stt-c'],
      language: undefined,
      keyterms: undefined,
      csv: undefined,
      reference: 'the cat sat',
      scoring,
    });
  });

  it('needs exactly one of --reference and --reference-file', async () => {
    expect(await usage(compareOptions({ providers: 'stt-b', ...scoring }, read))).toBe('stt compare needs --reference TEXT or --reference-file FILE');
    expect(await usage(compareOptions({ providers: 'stt-b', reference: 'x', referenceFile: 'ref.txt', ...scoring }, read))).toBe('Give --reference or --reference-file, not both');
  });

  it('checks the normaliser and the reference before any request, then the providers', async () => {
    expect(await usage(compareOptions({ providers: 'stt-b', reference: 'x', normalize: true, normalizer: 'nope' }, read))).toMatch(/nope/);
    expect(await usage(compareOptions({ providers: 'stt-b', referenceFile: 'empty.txt', ...scoring }, read))).toMatch(/reference/i);
    // The reference file's problem comes before a bad provider, as it always has.
    expect(await usage(compareOptions({ providers: 'nope', referenceFile: 'empty.txt', ...scoring }, read))).not.toMatch(/provider/);
  });
});

describe('stt accuracy options', () => {
  it('reference and hypothesis, inline or read, with the entities to look for', async () => {
    expect(await accuracyOptions({ referenceFile: 'ref.txt', hypothesis: 'the cat sad', alignment: true, entity: ['money=12.50'], ...scoring }, read)).toEqual({
      reference: 'the cat sat',
      hypothesis: 'the cat sad',
      scoring: { ...scoring, alignment: true, entities: [{ type: 'money', value: '12.50' }] },
    });
  });

  it('needs both texts; a malformed --entity is a usage error', async () => {
    expect(await usage(accuracyOptions({ reference: 'x', ...scoring }, read))).toBe('stt accuracy needs --reference and --hypothesis (or their -file forms)');
    expect(await usage(accuracyOptions({ reference: 'x', hypothesisFile: 'hyp.txt', entity: ['=12'], ...scoring }, read))).toBe("--entity takes type=value, got '=12'");
    expect(parseEntities(['date=2027-03-04', 'code=a=b'])).toEqual([
      { type: 'date', value: '2027-03-04' },
      { type: 'code', value: 'a=b' },
    ]);
  });
});
