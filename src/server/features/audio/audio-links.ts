/**
 * The signed audio URLs a response carries (DESIGN §6): under `--public-url`, or the origin the request
 * came to, signed at the moment of the answer. Bound once by the composition root, so a route asks for
 * the links of its request instead of assembling signer, clock and base itself.
 */
import type { Clock } from '../../clock.js';
import { requestBase, type UrlSigner } from './audio-urls.js';

/** The URL of one audio id, as one response gives it. */
export type AudioLinkFor = (audioId: string) => string;

/** Audio links per request. */
export interface AudioLinks {
  /** The links of a response to `request` (its protocol and host, when no public URL is set). */
  of(request: { protocol: string; host: string }): AudioLinkFor;
}

/** Binds the signer, the clock and the public URL (called once, by the composition root). */
export function createAudioLinks(deps: { urls: UrlSigner; clock: Clock; publicUrl: string | undefined }): AudioLinks {
  return {
    of(request) {
      const base = requestBase(deps.publicUrl, request);
      const now = deps.clock.now();
      return (audioId) => deps.urls.audio({ base, audioId, now });
    },
  };
}
