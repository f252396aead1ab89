// The stream deadline of DESIGN §17.5 as written: max(30, 2 × audio seconds ÷ pace) + 10 seconds.
import { describe, expect, test } from 'vitest';
import { STREAM_LIMITS, streamDeadlineMs } from '../../../../../../src/server/engines/stt/streaming/bounds.js';

describe('streamDeadlineMs', () => {
  test('is max(30, 2 × audio seconds ÷ pace) + 10 seconds', () => {
    expect(streamDeadlineMs(1.5, 1)).toBe(40_000);
    expect(streamDeadlineMs(15, 1)).toBe(40_000);
    expect(streamDeadlineMs(16, 1)).toBe(42_000);
    expect(streamDeadlineMs(20, 0.5)).toBe(90_000);
    expect(streamDeadlineMs(60, 4)).toBe(40_000);
    expect(streamDeadlineMs(120, 2)).toBe(130_000);
    expect(streamDeadlineMs(0, 1)).toBe(40_000);
  });

  test('takes other constants (a test lowers them), and the production ones are the written ones', () => {
    expect(streamDeadlineMs(1.5, 1, { minSeconds: 1, perAudioSecond: 2, graceSeconds: 2 })).toBe(5_000);
    expect(STREAM_LIMITS).toEqual({ deadline: { minSeconds: 30, perAudioSecond: 2, graceSeconds: 10 }, perUser: 4, retryAfterSeconds: 5, maxUnreadBytes: 1024 * 1024 });
  });
});
