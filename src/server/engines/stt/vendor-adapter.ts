/**
 * The skeleton every keyed vendor adapter shares, so that credential handling (not-configured errors,
 * readiness, secret scrubbing), the vendor's audio limits and its time budget are decided once rather
 * than nine times.
 */
import { FormData } from 'undici';
import type { SttAdapter, SttAudio, SttOutput } from './types.js';
import type { VendorContext } from './http.js';
import { checkLimits, contextOf, keyCheck, requireKey, withinBudget, type AdapterSettings } from './settings.js';
import { VENDOR_TABLE, type VendorKind } from './vendor-table.js';

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
}

/** How a vendor adapter presents itself; `model` defaults to the configured one (no vendor default). */
export interface VendorIdentity {
  /** Display name used in error messages. */
  vendor: string;
  /** Adapter kind, as bound in the server config. */
  adapter: VendorKind;
  model?: string | null;
}

/**
 * Builds an adapter whose credential is required: the key is checked before any work, so a missing
 * variable is always `provider_not_configured`, whatever else is wrong with the request.
 */
export function defineVendorAdapter(s: AdapterSettings, id: VendorIdentity, run: (audio: SttAudio, call: VendorCall) => Promise<SttOutput>): SttAdapter {
  return {
    adapter: id.adapter,
    model: id.model === undefined ? s.model : id.model,
    check: keyCheck(s, id.vendor),
    async transcribe(audio, opts) {
      const key = requireKey(s, id.vendor);
      checkLimits(audio, VENDOR_TABLE[id.adapter].limits, id.vendor);
      const language = opts.language ?? s.language;
      return withinBudget(s, audio, id.vendor, opts.signal, (signal) => run(audio, { key, ctx: contextOf(s, id.vendor), signal, language }));
    },
  };
}

/** A multipart body holding the audio as a WAV file under `field`, the upload shape most vendors take. */
export function wavForm(audio: SttAudio, field: string): FormData {
  const form = new FormData();
  form.append(field, new Blob([audio.wav], { type: 'audio/wav' }), 'audio.wav');
  return form;
}
