import { describe, expect, it } from 'vitest';
import { CliError } from '../../../../src/cli/core/errors.js';
import { sayOptions } from '../../../../src/cli/tts/options.js';

// The options of `tts say`, parsed from commander's flags without a program, a service or a terminal.
describe('tts say options', () => {
  it('TEXT is the text; without TEXT an empty text is refused later', () => {
    expect(sayOptions('Hello there', {}, true)).toEqual({ text: { from: 'argument', text: 'Hello there' }, textRequired: false });
    expect(sayOptions(undefined, {}, true)).toEqual({ text: { from: 'argument', text: '' }, textRequired: true });
  });

  it("'-' reads stdin, and so does no TEXT when stdin is not a terminal", () => {
    expect(sayOptions('-', {}, true).text).toEqual({ from: 'stdin' });
    expect(sayOptions(undefined, {}, false).text).toEqual({ from: 'stdin' });
    expect(sayOptions(undefined, {}, undefined).text).toEqual({ from: 'stdin' });
  });

  it('--file reads the file', () => {
    expect(sayOptions(undefined, { file: 'script.txt' }, false).text).toEqual({ from: 'file', file: 'script.txt' });
  });

  it('TEXT and --file together are a usage error (exit 2)', () => {
    expect(() => sayOptions('hi', { file: 'script.txt' }, true)).toThrow(CliError);
    try {
      sayOptions('hi', { file: 'script.txt' }, true);
    } catch (e) {
      expect((e as CliError).message).toBe('Give the text as an argument or with --file, not both');
      expect((e as CliError).exitCode).toBe(2);
    }
  });

  it('carries speaker, output, force, play, and the sample rate as a number', () => {
    expect(sayOptions('hi', { speaker: 'spk_1', out: 'x.wav', force: true, play: true, sampleRate: '16000' }, true)).toEqual({
      text: { from: 'argument', text: 'hi' },
      textRequired: false,
      speaker: 'spk_1',
      out: 'x.wav',
      force: true,
      play: true,
      sampleRate: 16000,
    });
  });
});
