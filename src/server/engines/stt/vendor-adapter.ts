/**
 * The skeleton every keyed vendor adapter shares, so that credential handling (not-configured errors,
 * readiness, secret scrubbing), the vendor's audio limits and its time budget are decided once rather
 * than nine times.
 */
import type { FormData } from 'undici';
import { SttError, type SttAdapter, type SttAudio, type SttOutput } from './types.js';
import type { VendorContext } from './http.js';
import { checkLimits, contextOf, keyCheck, requireKey, withinBudget, type AdapterSettings } from './settings.js';
import { VENDOR_TABLE, type KeytermSpec, type VendorKind } from './vendor-table.js';

/** What one call of a vendor adapter works with once its credential is known. */
export interface VendorCall {
  key: string;
  ctx: VendorContext;
  signal: AbortSignal;
  /**
   * The request's language, else the binding's default. Undefined asks the vendor to detect it where it
   * can (Deepgram only with `detect_language=true`); Google, Azure and Speechmatics need one and get
   * `en-US` / `en`.
   */
  language: string | undefined;
  /** Terms to boost, within the vendor's bounds; undefined when none were asked for (or the adapter cannot boost). */
  keyterms: readonly string[] | undefined;
  /** Speaker labels asked for (DESIGN §16.3): only when the caller wants them and the adapter reads them. */
  diarize: boolean;
}

/** How a vendor adapter presents itself; `model` defaults to the configured one (no vendor default). */
export interface VendorIdentity {
  /** Display name used in error messages. */
  vendor: string;
  /** Adapter kind, as bound in the server config. */
  adapter: VendorKind;
  model?: string | null;
  /** Whether this binding's model takes the vendor's boosting parameter (default: the vendor has one). */
  supportsKeyterms?: boolean;
  /** Whether the adapter asks for and reads speaker labels (DESIGN §16.3; default false). */
  supportsDiarization?: boolean;
}

/**
 * Builds an adapter whose credential is required: the key is checked before any work, so a missing
 * variable is always `provider_not_configured`, whatever else is wrong with the request.
 */
export function defineVendorAdapter(s: AdapterSettings, id: VendorIdentity, run: (audio: SttAudio, call: VendorCall) => Promise<SttOutput>): SttAdapter {
  const spec = VENDOR_TABLE[id.adapter].keyterms;
  const supportsKeyterms = spec !== null && id.supportsKeyterms !== false;
  return {
    adapter: id.adapter,
    model: id.model === undefined ? s.model : id.model,
    supportsKeyterms,
    supportsDiarization: id.supportsDiarization === true,
    check: keyCheck(s, id.vendor),
    async transcribe(audio, opts) {
      const key = requireKey(s, id.vendor);
      const diarize = id.supportsDiarization === true && opts.diarize === true;
      const table = VENDOR_TABLE[id.adapter];
      checkLimits(audio, (diarize && table.diarizationLimits) || table.limits, id.vendor);
      const keyterms = supportsKeyterms && spec && opts.keyterms?.length ? checkKeyterms(opts.keyterms, spec, id.vendor) : undefined;
      const language = opts.language ?? s.language;
      return withinBudget(s, audio, id.vendor, opts.signal, (signal) => run(audio, { key, ctx: contextOf(s, id.vendor, opts.timing), signal, language, keyterms, diarize }));
    },
  };
}

/**
 * The terms when the vendor takes every one of them; otherwise the `upstream_error` the vendor would
 * answer, raised before any upload so that a refused term costs nothing.
 */
export function checkKeyterms(terms: readonly string[], spec: KeytermSpec, vendor: string): readonly string[] {
  for (const term of terms) {
    const words = term.split(/\s+/).filter(Boolean);
    const refuse = (why: string) => new SttError('upstream_error', `${vendor} cannot take the keyterm "${term}": ${why}`);
    if (spec.maxChars !== undefined && [...term].length > spec.maxChars) throw refuse(`at most ${spec.maxChars} characters`);
    if (spec.maxWords !== undefined && words.length > spec.maxWords) throw refuse(`at most ${spec.maxWords} words`);
    if (spec.maxWordChars !== undefined && words.some((w) => [...w].length > spec.maxWordChars!)) throw refuse(`words of at most ${spec.maxWordChars} characters`);
    if (spec.refused?.pattern.test(term)) throw refuse(`no ${spec.refused.what}`);
    if (spec.needsLetter && !/\p{L}/u.test(term)) throw refuse('at least one letter');
  }
  return terms;
}

/**
 * A multipart body holding the audio as a WAV file under `field`, the upload shape most vendors take.
 * undici's own FormData (its fetch sends no other kind), loaded with the first upload: a server that never
 * calls a vendor never pays for undici.
 */
export async function wavForm(audio: Pick<SttAudio, 'wav'>, field: string): Promise<FormData> {
  const { FormData } = await import('undici');
  const form = new FormData();
  form.append(field, new Blob([audio.wav], { type: 'audio/wav' }), 'audio.wav');
  return form;
}
