import { createHmac } from 'node:crypto';
import { AUDIO_URL_TTL_SECONDS, verifyAudioSignature, type AudioUrlCheck } from '../services/audio-urls.js';

/**
 * What a report URL signs, in the audio URLs' scheme: `{subject}.{expires}` under the server secret. The
 * prefix and its dot (no audio id has a dot) keep report and audio signatures from standing in for each other.
 */
const subject = (evaluationId: string): string => `evaluation-report.${evaluationId}`;

/** `{base}/v1/evaluations/{id}/report.html?expires={epoch}&sig={hmac}`, valid 24 h like audio URLs (DESIGN §8.5). */
export function signReportUrl(opts: { base: string; evaluationId: string; secret: Buffer; now: Date }): string {
  const expires = Math.floor(opts.now.getTime() / 1000) + AUDIO_URL_TTL_SECONDS;
  const sig = createHmac('sha256', opts.secret).update(`${subject(opts.evaluationId)}.${expires}`).digest('base64url');
  return `${opts.base.replace(/\/+$/, '')}/v1/evaluations/${opts.evaluationId}/report.html?expires=${expires}&sig=${sig}`;
}

/** Checks a report URL's `expires`/`sig` as audio URLs are checked: a bad signature wins over expiry. */
export function verifyReportSignature(opts: { evaluationId: string; expires: string | undefined; sig: string | undefined; secret: Buffer; now: Date }): AudioUrlCheck {
  return verifyAudioSignature({ ...opts, audioId: subject(opts.evaluationId) });
}
