import { createHmac, timingSafeEqual } from 'node:crypto';

/** Audio URLs are valid for 24 h (DESIGN §4.7); report URLs likewise (DESIGN §8.5). */
export const AUDIO_URL_TTL_SECONDS = 24 * 60 * 60;

/** Audio ids are `aud_`/`smp_` + url-safe chars: nothing that can climb out of the audio folder. */
export const AUDIO_ID_PATTERN = /^[a-z]{3}_[A-Za-z0-9_-]{6,80}$/;

/** Result of checking a signed URL's query: ok, or why not (tampered → 403, expired → 410). */
export type AudioUrlCheck = 'ok' | 'tampered' | 'expired';

/** A signed URL's query as received (either may be missing). */
export interface SignedQuery {
  expires: string | undefined;
  sig: string | undefined;
  now: Date;
}

/** The server's one signer of URLs that work without a key: audio files and evaluation reports. */
export interface UrlSigner {
  /** The `expires` of a URL signed at `now`: URLs of one subject signed within one second are identical. */
  expiresAt(now: Date): number;
  /** `{base}/v1/audio/{id}.wav?expires={epoch}&sig={hmac}`, valid for 24 h from `now`. */
  audio(opts: { base: string; audioId: string; now: Date }): string;
  /** Checks an audio URL's `expires`/`sig` in constant time; a bad signature wins over expiry. */
  verifyAudio(opts: SignedQuery & { audioId: string }): AudioUrlCheck;
  /** `{base}/v1/evaluations/{id}/report.html?expires={epoch}&sig={hmac}`, valid for 24 h from `now`. */
  report(opts: { base: string; evaluationId: string; now: Date }): string;
  /** Checks a report URL as audio URLs are checked. */
  verifyReport(opts: SignedQuery & { evaluationId: string }): AudioUrlCheck;
}

/**
 * What a report URL signs: `{subject}.{expires}` like an audio id. The prefix and its dot (no audio id has a
 * dot) keep report and audio signatures from standing in for each other.
 */
const reportSubject = (evaluationId: string): string => `evaluation-report.${evaluationId}`;

const expiryOf = (now: Date): number => Math.floor(now.getTime() / 1000) + AUDIO_URL_TTL_SECONDS;
const trimBase = (base: string): string => base.replace(/\/+$/, '');

/**
 * Builds the signer over the server secret (HMAC-SHA256). Audio signatures are reused within the second
 * they were made: a speakers page signs 20 sample URLs per request, and an HMAC costs more than the rest of
 * a row. Expiry has 1 s resolution, so a reused signature is exactly the one a fresh HMAC would give; the
 * memo is emptied every second.
 */
export function createUrlSigner(secret: Buffer): UrlSigner {
  const signature = (subject: string, expires: number): string => createHmac('sha256', secret).update(`${subject}.${expires}`).digest('base64url');
  let memoExpires = -1;
  const memo = new Map<string, string>();
  const audioSignature = (audioId: string, expires: number): string => {
    if (expires !== memoExpires) {
      memo.clear();
      memoExpires = expires;
    }
    let sig = memo.get(audioId);
    if (sig === undefined) memo.set(audioId, (sig = signature(audioId, expires)));
    return sig;
  };
  const verify = (subject: string, q: SignedQuery): AudioUrlCheck => {
    if (!q.expires || !q.sig || !/^\d{1,12}$/.test(q.expires)) return 'tampered';
    const expected = Buffer.from(signature(subject, Number(q.expires)));
    const given = Buffer.from(q.sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'tampered';
    return Number(q.expires) * 1000 < q.now.getTime() ? 'expired' : 'ok';
  };
  return {
    expiresAt: expiryOf,
    audio({ base, audioId, now }) {
      const expires = expiryOf(now);
      return `${trimBase(base)}/v1/audio/${audioId}.wav?expires=${expires}&sig=${audioSignature(audioId, expires)}`;
    },
    verifyAudio: (q) => verify(q.audioId, q),
    report({ base, evaluationId, now }) {
      const expires = expiryOf(now);
      return `${trimBase(base)}/v1/evaluations/${evaluationId}/report.html?expires=${expires}&sig=${signature(reportSubject(evaluationId), expires)}`;
    },
    verifyReport: (q) => verify(reportSubject(q.evaluationId), q),
  };
}

/** The base of URLs handed out: `--public-url`, else the scheme and Host of the request. */
export function requestBase(publicUrl: string | undefined, req: { protocol: string; host: string }): string {
  return publicUrl ? publicUrl.replace(/\/+$/, '') : `${req.protocol}://${req.host}`;
}
