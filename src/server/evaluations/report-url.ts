import { createHmac, timingSafeEqual } from 'node:crypto';
import { AUDIO_URL_TTL_SECONDS, type AudioUrlCheck } from '../services/audio-urls.js';

// A domain prefix: a report signature can never be replayed as an audio signature, nor the reverse.
const signature = (secret: Buffer, evaluationId: string, expires: number): string =>
  createHmac('sha256', secret).update(`evaluation-report.${evaluationId}.${expires}`).digest('base64url');

/** `{base}/v1/evaluations/{id}/report.html?expires={epoch}&sig={hmac}`, valid 24 h like audio URLs (DESIGN §8.5). */
export function signReportUrl(opts: { base: string; evaluationId: string; secret: Buffer; now: Date }): string {
  const expires = Math.floor(opts.now.getTime() / 1000) + AUDIO_URL_TTL_SECONDS;
  const base = opts.base.replace(/\/+$/, '');
  return `${base}/v1/evaluations/${opts.evaluationId}/report.html?expires=${expires}&sig=${signature(opts.secret, opts.evaluationId, expires)}`;
}

/** Checks a report URL's `expires`/`sig` in constant time; a bad signature wins over expiry. */
export function verifyReportSignature(opts: {
  evaluationId: string;
  expires: string | undefined;
  sig: string | undefined;
  secret: Buffer;
  now: Date;
}): AudioUrlCheck {
  if (!opts.expires || !opts.sig || !/^\d{1,12}$/.test(opts.expires)) return 'tampered';
  const expected = Buffer.from(signature(opts.secret, opts.evaluationId, Number(opts.expires)));
  const given = Buffer.from(opts.sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'tampered';
  return Number(opts.expires) * 1000 < opts.now.getTime() ? 'expired' : 'ok';
}
