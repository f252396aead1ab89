import { describe, expect, it } from 'vitest';
import { parseRttm, parseStm, StmFormatError, writeRttm, writeStm } from '../../../../src/shared/conversations/index.js';

describe('RTTM and STM (DESIGN §16.2, §16.5)', () => {
  it('writes the NIST lines with 3 decimals, in order of start, and reads them back', () => {
    const rttm = writeRttm('call-1', [
      { speaker: 'S2', start: 1.5, end: 2.25 },
      { speaker: 'S1', start: 0.1, end: 1.2346 },
    ]);
    expect(rttm).toBe('SPEAKER call-1 1 0.100 1.135 <NA> <NA> S1 <NA> <NA>\nSPEAKER call-1 1 1.500 0.750 <NA> <NA> S2 <NA> <NA>\n');
    expect(parseRttm(rttm).get('call-1')).toEqual([
      { speaker: 'S1', start: 0.1, end: 0.1 + 1.135 },
      { speaker: 'S2', start: 1.5, end: 2.25 },
    ]);
    expect(writeRttm('call-1', [{ speaker: 'speaker 0', start: 0, end: 1 }])).toContain(' speaker_0 ');
  });

  it('writes STM and parses labels, comments and bad lines', () => {
    const stm = writeStm('call-2', [{ speaker: 'S1', start: 0.25, end: 1.5, words: 'hello  there\n' }]);
    expect(stm).toBe('call-2 1 S1 0.250 1.500 hello there\n');
    const parsed = parseStm(';; a comment\ncall-2 A agent 0.25 1.5 <o,f0,male> hello there\n\ncall-2 A customer 1.6 2 \n');
    expect(parsed).toEqual([
      { file: 'call-2', channel: 'A', speaker: 'agent', start: 0.25, end: 1.5, label: '<o,f0,male>', words: 'hello there' },
      { file: 'call-2', channel: 'A', speaker: 'customer', start: 1.6, end: 2, label: null, words: '' },
    ]);
    expect(() => parseStm('call-2 A agent 2 1 words')).toThrow(StmFormatError);
    expect(() => parseStm('call-2 A agent')).toThrow('STM line 1');
  });
});
