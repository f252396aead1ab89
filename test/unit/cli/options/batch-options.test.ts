import { describe, expect, it } from 'vitest';
import { listOptions, submitOptions } from '../../../../src/cli/batch/options.js';

// The options of `batch submit|list`, parsed from commander's flags without a program or a service.
describe('batch submit options', () => {
  it("FILE is read from disk, '-' from stdin", () => {
    expect(submitOptions('lines.csv', {}).input).toEqual({ from: 'file', file: 'lines.csv' });
    expect(submitOptions('-', {}).input).toEqual({ from: 'stdin' });
  });

  it('submits and returns unless --watch or --download (which needs the end)', () => {
    expect(submitOptions('a.csv', {}).watch).toBe(false);
    expect(submitOptions('a.csv', { watch: true }).watch).toBe(true);
    expect(submitOptions('a.csv', { download: 'out/' }).watch).toBe(true);
  });

  it('--download carries --force and --skip-existing; without it they download nothing', () => {
    expect(submitOptions('a.csv', { download: 'out/', force: true, skipExisting: false }).download).toEqual({ dir: 'out/', force: true, skipExisting: false });
    expect(submitOptions('a.csv', { force: true }).download).toBeUndefined();
  });

  it('the default speaker and the sample rate as a number', () => {
    expect(submitOptions('a.csv', { speaker: 'spk_1', sampleRate: '8000' })).toMatchObject({ speaker: 'spk_1', sampleRate: 8000 });
    expect(submitOptions('a.csv', {})).not.toHaveProperty('sampleRate');
  });
});

describe('batch list options', () => {
  it('one page with --limit/--offset, or every page from --offset with --all', () => {
    expect(listOptions({ status: 'completed', limit: 5, offset: 10 })).toEqual({ status: 'completed', paging: { all: false, limit: 5, offset: 10 } });
    expect(listOptions({ all: true, limit: 5 })).toEqual({ status: undefined, paging: { all: true, offset: 0 } });
    expect(listOptions({ all: true, offset: 40 }).paging).toEqual({ all: true, offset: 40 });
  });
});
