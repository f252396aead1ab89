/**
 * How a provider token is shown to people (DESIGN §8.5) and what its results mean under a condition:
 * written once for the server's provider list, evaluation views and report, and the CLI's tables.
 */

/** What a provider token is bound to: its adapter and model when bound, or a label the service gave. */
export interface ProviderBindingInfo {
  id: string;
  adapter?: string | null;
  model?: string | null;
  label?: string | null;
}

/**
 * `stt-b · deepgram nova-3`: the token with its adapter and model. An adapter named like the token is not
 * repeated (`local-sphinx · en-us`); an unbound token is shown as itself. A label the service gives wins
 * (prefixed with the token when it does not start with it): the server and the CLI label alike.
 */
export function providerLabel(p: ProviderBindingInfo): string {
  if (p.label) return p.label.startsWith(p.id) ? p.label : `${p.id} · ${p.label}`;
  const parts = [p.adapter !== p.id ? p.adapter : null, p.model].filter((x): x is string => !!x);
  return parts.length > 0 ? `${p.id} · ${parts.join(' ')}` : p.id;
}

/**
 * Why `local-sphinx` gets telephone audio almost entirely wrong: its only model is wideband. Neither
 * Debian nor npm ships a narrowband (8 kHz) PocketSphinx model, so such audio is resampled to 16 kHz
 * (a windowed-sinc resampler), which cannot bring back the bands the line removed.
 */
export const SPHINX_NARROWBAND_NOTE =
  "PocketSphinx's US English model is trained on 16 kHz wideband speech: 8 kHz telephone audio (300-3400 Hz) is resampled " +
  'to 16 kHz before recognition, but the bands the line removed stay empty, so WER under telephone is near 100% ' +
  'whatever the voice. No narrowband (8 kHz) model is packaged for Debian or npm; compare telephone speech with hosted providers.';

/** The caveat of `adapter`'s results under `condition` (a canonical condition text), if any. */
export function conditionCaveat(adapter: string | null, condition: string): string | undefined {
  return adapter === 'local-sphinx' && condition === 'telephone' ? SPHINX_NARROWBAND_NOTE : undefined;
}

/** A standing note on an adapter, for provider listings. */
export function adapterNote(adapter: string | null): string | undefined {
  return adapter === 'local-sphinx' ? SPHINX_NARROWBAND_NOTE : undefined;
}
