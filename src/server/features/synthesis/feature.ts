/** The synthesis feature as the text-to-speech route uses it (DESIGN §4.6). */
import type { SynthesizeRequest, SynthesizeResponse } from '../../../shared/schemas/tts.js';
import type { AudioLinkFor } from '../audio/index.js';
import { synthesizeForUser, type SynthesisDeps } from './synthesis.js';

/** What the text-to-speech route calls. */
export interface SynthesisFeature {
  /** Synthesises one text for `userId` (validated, characters reserved first) and answers with its link. */
  synthesize(userId: string, request: SynthesizeRequest, link: AudioLinkFor): Promise<SynthesizeResponse>;
}

/**
 * Binds synthesis to the service's collaborators (called once, by the composition root). `deps` is read
 * per request: a test may swap the TTS pool of a running service.
 */
export function createSynthesisFeature(deps: () => SynthesisDeps): SynthesisFeature {
  return {
    async synthesize(userId, request, link) {
      const { audio, characters } = await synthesizeForUser(deps(), { userId, speakerId: request.speaker_id, text: request.text, sampleRate: request.sample_rate });
      return { audio_url: link(audio.id), duration_seconds: audio.duration_seconds, characters_used: characters };
    },
  };
}
