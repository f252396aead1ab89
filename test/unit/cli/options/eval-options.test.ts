import { describe, expect, it } from 'vitest';
import { CliError } from '../../../../src/cli/core/errors.js';
import { evalReportOptions, evalRunOptions, gatesOf, utterancesQuery } from '../../../../src/cli/eval/options.js';
import { conversationFrom, derOption, speakerSelection } from '../../../../src/cli/eval/request.js';

// The options of `eval run|utterances|report`, parsed from commander's flags without a program or a service.
const usage = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    return { message: (e as CliError).message, exit: (e as CliError).exitCode };
  }
  throw new Error('expected a usage error');
};

describe('eval run options', () => {
  it('creates and returns unless something needs the end of the run', () => {
    expect(evalRunOptions({ providers: 'stt-b' })).toEqual({ watch: false, dryRun: false, gates: gatesOf({}) });
  });

  it.each([
    ['--watch', { watch: true }],
    ['--report', { report: 'r.html' }],
    ['--max-wer', { maxWer: 0.3 }],
    ['--max-final-latency', { maxFinalLatency: 800 }],
    ['--max-hallucination', { maxHallucination: 0.1 }],
    ['--min-entity-accuracy', { minEntityAccuracy: 0.9 }],
    ['--max-regression', { maxRegression: 0, baseline: 'ev_base' }],
    ['--junit', { junit: 'j.xml' }],
    ['--markdown', { markdown: 's.md' }],
    ['--max-failure-rate', { maxFailureRate: 0.1 }],
  ])('%s follows the run to its end', (_flag, flags) => {
    expect(evalRunOptions({ providers: 'stt-b', ...flags }).watch).toBe(true);
  });

  it('carries the report, --force, the baseline, --dry-run and the gates', () => {
    const options = evalRunOptions({ providers: 'all', report: 'r.html', force: true, baseline: 'ev_1', dryRun: true, maxWer: 0.25, maxFailureRate: 0.05 });
    expect(options).toMatchObject({ report: 'r.html', force: true, baseline: 'ev_1', dryRun: true });
    expect(options.gates).toMatchObject({ maxWer: 0.25, maxFailureRate: 0.05 });
  });

  it('refuses --max-regression without --baseline, exit 2: nothing to regress from, the gate could only pass unmeasured (DESIGN §15)', () => {
    expect(usage(() => evalRunOptions({ providers: 'stt-b', maxRegression: 0.02 }))).toEqual({ message: '--max-regression needs --baseline on eval run', exit: 2 });
  });

  it('refuses --report - (the report would mix with the summary on stdout), exit 2', () => {
    expect(usage(() => evalRunOptions({ providers: 'stt-b', report: '-' }))).toEqual({ message: '--report - would mix the report with the summary on stdout', exit: 2 });
  });
});

describe('eval utterances query', () => {
  it('names the filters as the API does, the condition in canonical form', () => {
    expect(utterancesQuery({ provider: 'stt-b', condition: ' noise:5 ', group: 'Scottish', errorsOnly: true, determinableOnly: true })).toEqual({
      provider: 'stt-b',
      condition: 'noise:5',
      group: 'Scottish',
      errors_only: true,
      determinable_only: true,
    });
    expect(utterancesQuery({})).toEqual({ provider: undefined, condition: undefined, group: undefined });
  });

  it('a bad --condition is a usage error in the service words', () => {
    expect(usage(() => utterancesQuery({ condition: 'noise:99' })).exit).toBe(2);
  });
});

describe('eval report options', () => {
  it('-o FILE is saved (and may be opened); -o - goes to stdout', () => {
    expect(evalReportOptions({ out: 'r.html', open: true })).toEqual({ file: 'r.html', toStdout: false, open: true });
    expect(evalReportOptions({ out: '-', force: true })).toEqual({ file: '-', toStdout: true, open: false, force: true });
  });

  it('--open with -o - is a usage error', () => {
    expect(usage(() => evalReportOptions({ out: '-', open: true }))).toEqual({ message: '--open needs a saved file, not -o -', exit: 2 });
  });
});

describe('eval run --conversation, --overlap and --max-der (DESIGN §16.6)', () => {
  const refused = async (work: Promise<unknown>) => {
    const e = await work.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(CliError);
    return { message: (e as CliError).message, exit: (e as CliError).exitCode };
  };

  it('the bare flag is one call; calls[:turns[:speakers]] and --overlap fill the body as the API names them', async () => {
    expect(await conversationFrom({ conversation: true })).toEqual({ calls: 1 });
    expect(await conversationFrom({ conversation: '20' })).toEqual({ calls: 20 });
    expect(await conversationFrom({ conversation: '5:30:3', overlap: 0.2 })).toEqual({ calls: 5, turns: 30, speakers_per_call: 3, overlap: 0.2 });
    expect(await conversationFrom({})).toBeUndefined();
  });

  it('out of range is a usage error in the service words, before any request', async () => {
    expect(await refused(conversationFrom({ conversation: '201' }))).toEqual({ message: 'conversation.calls must be 1..200', exit: 2 });
    expect(await refused(conversationFrom({ conversation: '2:61' }))).toEqual({ message: 'conversation.turns must be 2..60', exit: 2 });
    expect(await refused(conversationFrom({ conversation: '2:12:5' }))).toEqual({ message: 'conversation.speakers_per_call must be 2..4', exit: 2 });
    expect(await refused(conversationFrom({ conversation: '2', overlap: 0.6 }))).toEqual({ message: 'conversation.overlap must be 0..0.5', exit: 2 });
    expect((await refused(conversationFrom({ conversation: '2x' }))).exit).toBe(2);
  });

  it('a conversation without chosen voices takes two of each gender (DESIGN §16.6 names none); other runs still must choose', async () => {
    expect(await speakerSelection({}, { conversation: true })).toEqual({ filter: {}, group_by: 'gender', per_group: 2 });
    expect(await speakerSelection({ seed: 7 }, { conversation: true })).toEqual({ filter: {}, group_by: 'gender', per_group: 2, seed: 7 });
    expect(await speakerSelection({ speaker: ['spk_a,spk_b'] }, { conversation: true })).toEqual({ ids: ['spk_a', 'spk_b'] });
    expect((await refused(speakerSelection({}))).message).toBe('Choose speakers with --speaker ID… or --filter key=value… --group-by G --per-group K');
  });

  it('--overlap needs --conversation, and a corpus takes no conversation', async () => {
    expect(await refused(conversationFrom({ overlap: 0.1 }))).toEqual({ message: '--overlap applies to --conversation', exit: 2 });
    expect(await refused(conversationFrom({ conversation: '3', corpus: 'cor_1' }))).toEqual({ message: 'conversation does not apply to a corpus', exit: 2 });
  });

  it('--max-der is a gate: it follows the run to its end and reaches the gates', () => {
    const options = evalRunOptions({ providers: 'stt-b', maxDer: 0.2 });
    expect(options.watch).toBe(true);
    expect(options.gates.maxDer).toBe(0.2);
    expect(derOption('0.25')).toBe(0.25);
    expect(usage(() => derOption('-1'))).toEqual({ message: "--max-der must be a number ≥ 0 (0.25 = 25% DER), got '-1'", exit: 2 });
  });
});
