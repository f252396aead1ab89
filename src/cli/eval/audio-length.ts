// How long a local recording is, read from its header alone — for `eval run --corpus FOLDER --dry-run`,
// which prices audio minutes without uploading or decoding anything. WAV and FLAC state their length in
// their first bytes; MP3, OGG and M4A do not (a VBR MP3 must be scanned frame by frame), so their length
// is left to the caller's estimate.
import { open } from 'node:fs/promises';

/** Bytes read from the start of a file: WAV chunks before `data` (LIST, bext) rarely take more. */
const HEAD_BYTES = 64 * 1024;

/** The seconds of PCM audio a RIFF/WAVE header declares, or undefined when it cannot tell. */
export function wavSeconds(head: Buffer): number | undefined {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let byteRate: number | undefined;
  for (let at = 12; at + 8 <= head.length; ) {
    const id = head.toString('latin1', at, at + 4);
    const size = head.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 16 <= head.length) byteRate = head.readUInt32LE(at + 16);
    // A streamed WAV declares 0 or 0xFFFFFFFF as its data size: its length is unknown from the header.
    if (id === 'data') return byteRate && size > 0 && size < 0xffffffff ? size / byteRate : undefined;
    at += 8 + size + (size % 2); // chunks are padded to an even size
  }
  return undefined;
}

/** The seconds a FLAC STREAMINFO block declares (total samples ÷ sample rate), or undefined when unknown. */
export function flacSeconds(head: Buffer): number | undefined {
  // `fLaC`, then the first metadata block, which is always STREAMINFO: its header (4 bytes) and 34 bytes.
  if (head.length < 42 || head.toString('latin1', 0, 4) !== 'fLaC' || (head[4]! & 0x7f) !== 0) return undefined;
  const rate = (head[18]! << 12) | (head[19]! << 4) | (head[20]! >> 4);
  const samples = (head[21]! & 0x0f) * 2 ** 32 + head.readUInt32BE(22);
  return rate > 0 && samples > 0 ? samples / rate : undefined;
}

/** The length in seconds of the WAV or FLAC file at `path`, or undefined for other formats and unreadable headers. */
export async function headerSeconds(path: string): Promise<number | undefined> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(head, 0, HEAD_BYTES, 0);
    const bytes = head.subarray(0, bytesRead);
    return wavSeconds(bytes) ?? flacSeconds(bytes);
  } finally {
    await file.close();
  }
}
