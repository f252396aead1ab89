/** Container formats the service accepts for transcription and uploads (DESIGN §4.7, §4.11). */
export type AudioFormat = 'wav' | 'mp3' | 'm4a';

/** ISO BMFF brands of audio-capable MP4 files (iTunes M4A/M4B, generic mp4/iso, DASH, QuickTime). */
const MP4_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'mp41', 'mp42', 'isom', 'iso2', 'iso4', 'iso5', 'iso6', 'dash', 'qt  ', 'MSNV', 'F4A ']);

/** True when `b[i..i+4]` is a plausible MPEG-1/2/2.5 audio frame header (layer I-III, valid rate fields). */
function isMpegFrame(b: Uint8Array, i: number): boolean {
  if (i + 4 > b.length) return false;
  const b1 = b[i + 1] as number;
  const b2 = b[i + 2] as number;
  if (b[i] !== 0xff || (b1 & 0xe0) !== 0xe0) return false;
  const version = (b1 >> 3) & 0x3; // 01 is reserved
  const layer = (b1 >> 1) & 0x3; // 00 is reserved (and is what AAC ADTS headers carry)
  const bitrate = b2 >> 4; // 1111 is invalid
  const rate = (b2 >> 2) & 0x3; // 11 is reserved
  return version !== 1 && layer !== 0 && bitrate !== 0xf && rate !== 3;
}

/**
 * Names the container of `buf` from its first bytes, never from a file name or Content-Type (both lie):
 * RIFF/WAVE; an ID3v2 tag or an MPEG audio frame sync; an `ftyp` box with an M4A/MP4 brand.
 */
export function sniffAudioFormat(buf: Uint8Array): AudioFormat | undefined {
  const ascii = (from: number, to: number) => Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1', from, to);
  if (buf.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (buf.length >= 12 && ascii(4, 8) === 'ftyp' && MP4_BRANDS.has(ascii(8, 12))) return 'm4a';
  if (buf.length >= 10 && ascii(0, 3) === 'ID3') return 'mp3';
  // A bare MPEG stream (no tag): the header's reserved-value checks keep ADTS AAC and noise out.
  if (isMpegFrame(buf, 0)) return 'mp3';
  return undefined;
}
