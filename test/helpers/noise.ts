import { createHash } from 'node:crypto';

/** `length` bytes: `prefix`, then reproducible pseudo-random bytes from `seed` (SHA-256 in counter mode). */
export function noiseAfter(prefix: number[], length: number, seed: number): Buffer {
  const blocks: Buffer[] = [Buffer.from(prefix)];
  for (let i = 0, n = prefix.length; n < length; i++, n += 32) blocks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, length);
}
