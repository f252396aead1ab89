/**
 * MPEG audio frame walking. mpg123 resynchronises over anything, so it "decodes" noise (4 KB of random
 * bytes after an `FF FE` sync decode to a few hundred samples two times in three); a real MP3 instead
 * starts, after its ID3 tag, with frames whose headers chain exactly: each header's frame length leads to
 * the next header. Requiring such a chain refuses noise and keeps every encoder's output.
 */

/** Frames that must chain (fewer only when the file ends exactly after them). */
const CHAIN = 3;
/** How far past the ID3 tag the first frame may start (padding, stray bytes of a cut stream). */
const SEARCH_BYTES = 64 * 1024;

// Bitrates in kbit/s by [MPEG-1 ? 0 : 1][layer I, II, III][index]; index 0 (free format) is not accepted.
const BITRATES = [
  [
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  [
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
];
// Sample rates by version bits (00 = MPEG-2.5, 10 = MPEG-2, 11 = MPEG-1).
const RATES: Record<number, number[]> = { 0: [11025, 12000, 8000], 2: [22050, 24000, 16000], 3: [44100, 48000, 32000] };

interface FrameHeader {
  /** Version, layer and rate bits: every frame of one stream shares them. */
  kind: number;
  length: number;
}

/** The frame header at `i`, or undefined when the bytes there are not one. */
function frameAt(b: Uint8Array, i: number): FrameHeader | undefined {
  if (i + 4 > b.length || b[i] !== 0xff || ((b[i + 1] as number) & 0xe0) !== 0xe0) return undefined;
  const b1 = b[i + 1] as number;
  const b2 = b[i + 2] as number;
  const version = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  const rates = RATES[version];
  if (!rates || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const layer = 4 - layerBits; // 1, 2 or 3
  const mpeg1 = version === 3;
  const bitrate = (BITRATES[mpeg1 ? 0 : 1]![layer - 1]![bitrateIndex] as number) * 1000;
  const rate = rates[rateIndex] as number;
  const padding = (b2 >> 1) & 1;
  const length =
    layer === 1
      ? (Math.floor((12 * bitrate) / rate) + padding) * 4
      : Math.floor(((layer === 3 && !mpeg1 ? 72 : 144) * bitrate) / rate) + padding;
  return { kind: (b1 & 0xfe) * 4 + rateIndex, length };
}

/** Bytes taken by a leading ID3v2 tag (header, body and optional footer), 0 when there is none. */
export function id3v2Length(b: Uint8Array): number {
  if (b.length < 10 || b[0] !== 0x49 || b[1] !== 0x44 || b[2] !== 0x33) return 0;
  const size = (((b[6] as number) & 0x7f) << 21) | (((b[7] as number) & 0x7f) << 14) | (((b[8] as number) & 0x7f) << 7) | ((b[9] as number) & 0x7f);
  return 10 + size + ((b[5] as number) & 0x10 ? 10 : 0);
}

/** True when frames chain from `start`: CHAIN headers of one kind, or fewer ending exactly at the end. */
function chainsFrom(b: Uint8Array, start: number): boolean {
  const first = frameAt(b, start);
  if (!first) return false;
  let at = start;
  for (let n = 0; n < CHAIN; n++) {
    const frame = frameAt(b, at);
    if (!frame || frame.kind !== first.kind) return false;
    at += frame.length;
    if (at === b.length) return true;
  }
  return true;
}

/** True when `b` holds an MPEG audio stream: after any ID3v2 tag, a run of chained frame headers. */
export function hasMpegFrameChain(b: Uint8Array): boolean {
  const start = id3v2Length(b);
  const end = Math.min(b.length, start + SEARCH_BYTES);
  for (let i = start; i < end; i++) {
    if (b[i] === 0xff && chainsFrom(b, i)) return true;
  }
  return false;
}
