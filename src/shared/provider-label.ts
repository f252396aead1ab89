/** What names a provider token's binding: the adapter (vendor) and model, or a label the service gives. */
export interface ProviderDescription {
  id: string;
  adapter?: string | null;
  model?: string | null;
  label?: string | null;
}

/**
 * `stt-b · deepgram nova-3`: the token with the vendor and model it is bound to (DESIGN §8.5), so a
 * reader never has to look up what `stt-b` was; the bare token when it is bound to nothing. A label
 * the service gives wins (prefixed with the token when it does not start with it).
 */
export function providerLabel(p: ProviderDescription): string {
  if (p.label) return p.label.startsWith(p.id) ? p.label : `${p.id} · ${p.label}`;
  const binding = [p.adapter === p.id ? null : p.adapter, p.model].filter((x): x is string => Boolean(x));
  return binding.length ? `${p.id} · ${binding.join(' ')}` : p.id;
}
