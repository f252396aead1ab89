import { createHmac, timingSafeEqual } from 'node:crypto';

/** Audio URLs are valid for 24 h (DESIGN §4.7). */
export const AUDIO_URL_TTL_SECONDS = 24 * 60 * 60;

/** Audio ids are `aud_`/`smp_` + url-safe chars: nothing that can climb out of the audio folder. */
export const AUDIO_ID_PATTERN = /^[a-z]{3}_[A-Za-z0-9_-]{6,80}$/;

const signature = (secret: Buffer, audioId: string, expires: number): string =>
  createHmac('sha256', secret).update(`${audioId}.${expires}`).digest('base64url');

/** `{base}/v1/audio/{id}.wav?expires={epoch}&sig={hmac}`, valid for 24 h from `now`. */
export function signAudioUrl(opts: { base: string; audioId: string; secret: Buffer; now: Date }): string {
  const expires = Math.floor(opts.now.getTime() / 1000) + AUDIO_URL_TTL_SECONDS;
  const base = opts.base.replace(/\/+$/, '');
  return `${base}/v1/audio/${opts.audioId}.wav?expires=${expires}&sig=${signature(opts.secret, opts.audioId, expires)}`;
}

/**
 * `signAudioUrl` that reuses each signature within the second it was made: a speakers page signs 20 sample
 * URLs per request, and an HMAC costs more than the rest of a row. Expiry has 1 s resolution, so a reused
 * signature is exactly the one a fresh HMAC would give; the memo is emptied every second.
 */
export function createAudioUrlSigner(secret: Buffer): (opts: { base: string; audioId: string; now: Date }) => string {
  let memoExpires = -1;
  const memo = new Map<string, string>();
  return ({ base, audioId, now }) => {
    const expires = Math.floor(now.getTime() / 1000) + AUDIO_URL_TTL_SECONDS;
    if (expires !== memoExpires) {
      memo.clear();
      memoExpires = expires;
    }
    let sig = memo.get(audioId);
    if (sig === undefined) {
      sig = signature(secret, audioId, expires);
      memo.set(audioId, sig);
    }
    return `${base.replace(/\/+$/, '')}/v1/audio/${audioId}.wav?expires=${expires}&sig=${sig}`;
  };
}

/** Result of checking a signed audio URL's query: ok, or why not (tampered → 403, expired → 410). */
export type AudioUrlCheck = 'ok' | 'tampered' | 'expired';

/** Checks `expires`/`sig` for `audioId` in constant time; a bad signature wins over expiry. */
export function verifyAudioSignature(opts: {
  audioId: string;
  expires: string | undefined;
  sig: string | undefined;
  secret: Buffer;
  now: Date;
}): AudioUrlCheck {
  if (!opts.expires || !opts.sig || !/^\d{1,12}$/.test(opts.expires)) return 'tampered';
  const expected = Buffer.from(signature(opts.secret, opts.audioId, Number(opts.expires)));
  const given = Buffer.from(opts.sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'tampered';
  return Number(opts.expires) * 1000 < opts.now.getTime() ? 'expired' : 'ok';
}

/** The base of URLs handed out: `--public-url`, else the scheme and Host of the request. */
export function requestBase(publicUrl: string | undefined, req: { protocol: string; host: string }): string {
  return publicUrl ? publicUrl.replace(/\/+$/, '') : `${req.protocol}://${req.host}`;
}
