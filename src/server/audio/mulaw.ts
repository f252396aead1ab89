/**
 * G.711 µ-law companding: 16-bit linear PCM to 8-bit logarithmic codes and back, the segment encoding of
 * the ITU recommendation (bias 0x84, 14-bit magnitude clipped at 32635), as telephone networks apply it.
 */

const BIAS = 0x84;
const CLIP = 32635;

/** The µ-law code of one 16-bit sample. */
export function linearToMulaw(sample: number): number {
  let s = sample | 0;
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** The 16-bit sample a µ-law code stands for. */
export function mulawToLinear(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

// Every 16-bit sample maps through 256 codes: two small tables make the round trip a lookup.
let roundTrip: Int16Array | undefined;

/** Each sample encoded to µ-law and decoded again: the quantisation a G.711 call adds. */
export function mulawRoundTrip(pcm: Int16Array): Int16Array {
  if (!roundTrip) {
    roundTrip = new Int16Array(65536);
    for (let s = -32768; s < 32768; s++) roundTrip[s & 0xffff] = mulawToLinear(linearToMulaw(s));
  }
  const table = roundTrip;
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = table[pcm[i]! & 0xffff]!;
  return out;
}
