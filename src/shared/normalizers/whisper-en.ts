/**
 * The `whisper-en` normaliser (DESIGN §8.6): rule 12 plus the English rewrites that make a transcript
 * and its reference agree on form rather than content.
 */
import { normalizeText } from '../normalize.js';

/** Normalises English text for WER as DESIGN §8.6 says; pure, never throws, lower-case output. */
export function normalizeWhisperEn(text: string): string {
  return normalizeText(text);
}
