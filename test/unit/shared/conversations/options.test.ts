import { describe, expect, it } from 'vitest';
import { checkConversation, parseConversationFlag } from '../../../../src/shared/conversations/index.js';

describe('checkConversation (DESIGN §16.1)', () => {
  it('applies the defaults', () => {
    expect(checkConversation({ calls: 20 })).toEqual({ calls: 20, turns: 12, speakersPerCall: 2, gapMs: [200, 800], overlap: 0 });
    expect(checkConversation({ calls: 1, turns: 60, speakers_per_call: 4, gap_ms: [0, 5000], overlap: 0.5 })).toEqual({ calls: 1, turns: 60, speakersPerCall: 4, gapMs: [0, 5000], overlap: 0.5 });
  });

  it.each([
    [{ calls: 0 }, 'conversation.calls must be 1..200'],
    [{ calls: 201 }, 'conversation.calls must be 1..200'],
    [{}, 'conversation.calls must be 1..200'],
    [{ calls: 2, turns: 1 }, 'conversation.turns must be 2..60'],
    [{ calls: 2, turns: 2.5 }, 'conversation.turns must be 2..60'],
    [{ calls: 2, speakers_per_call: 5 }, 'conversation.speakers_per_call must be 2..4'],
    [{ calls: 2, gap_ms: [900, 800] }, 'conversation.gap_ms must be [min, max] with 0 <= min <= max <= 5000'],
    [{ calls: 2, gap_ms: [0, 5001] }, 'conversation.gap_ms must be [min, max] with 0 <= min <= max <= 5000'],
    [{ calls: 2, gap_ms: 300 }, 'conversation.gap_ms must be [min, max] with 0 <= min <= max <= 5000'],
    [{ calls: 2, overlap: 0.6 }, 'conversation.overlap must be 0..0.5'],
    [{ calls: 2, overlap: '0.1' }, 'conversation.overlap must be 0..0.5'],
  ])('%j → 400 naming the field', (body, message) => {
    expect(() => checkConversation(body)).toThrow(message);
  });

  it('reads --conversation calls[:turns[:speakers]]', () => {
    expect(parseConversationFlag('20')).toEqual({ calls: 20 });
    expect(parseConversationFlag('20:8:3')).toEqual({ calls: 20, turns: 8, speakers_per_call: 3 });
    expect(parseConversationFlag('')).toEqual({ calls: 1 });
    expect(() => parseConversationFlag('3x')).toThrow("--conversation must be calls[:turns[:speakers]], got '3x'");
    expect(() => parseConversationFlag('1:2:3:4')).toThrow('--conversation must be');
  });
});
