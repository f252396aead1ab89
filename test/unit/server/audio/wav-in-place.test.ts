/** A corpus's decoded audio is stored as WAV without a second copy of its samples (issue 33's benchmark). */
import { describe, expect, it } from 'vitest';
import { encodeWav, parseWav, pcm16WithWavRoom, wavAroundPcm } from '../../../../src/server/audio/wav.js';

describe('wavAroundPcm', () => {
  it('writes the header into the room before samples made with it: the same bytes as encodeWav, no copy', () => {
    const pcm = pcm16WithWavRoom(5);
    pcm.set([1, -2, 3, -32768, 32767]);
    const wav = wavAroundPcm(pcm, 16000);
    expect(wav.buffer).toBe(pcm.buffer);
    expect(wav.equals(encodeWav(Int16Array.from(pcm), 16000))).toBe(true);
    expect(parseWav(new Uint8Array(wav))).toMatchObject({ sampleRate: 16000, channels: 1, frames: 5 });
  });

  it('copies any other samples, leaving the bytes before a view alone', () => {
    const whole = Int16Array.from({ length: 40 }, (_, i) => i + 1);
    const view = whole.subarray(30);
    const wav = wavAroundPcm(view, 8000);
    expect(wav.buffer).not.toBe(whole.buffer);
    expect(wav.equals(encodeWav(Int16Array.from(view), 8000))).toBe(true);
    expect(Array.from(whole.subarray(0, 30))).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });
});
