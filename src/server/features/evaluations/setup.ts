/**
 * The recorded setup of an evaluation (DESIGN §11.1): what produced its numbers — this voxctl's version,
 * the normaliser, what each provider token was bound to, the conditions and the seed — taken when the
 * evaluation is created, so a later change of the server config shows up in a comparison.
 */
import type { EvaluationProviderSetup, EvaluationSetup } from '../../../shared/schemas/evaluations.js';
import type { Normalizer } from '../../../shared/normalizers/index.js';
import { VERSION } from '../../../shared/version.js';
import { isProviderConfigured, providerLabelOf, type SttRegistry } from '../../engines/stt/registry.js';

/** What a provider token is bound to now, with its list price (null: unpriced). */
export interface ProviderDescription extends EvaluationProviderSetup {
  pricePerMinuteUsd: number | null;
}

/** Looks up what a token is bound to; an unbound token has null adapter and model. */
export type DescribeProvider = (token: string) => ProviderDescription;

/** The describer over the server's STT registry. */
export function describeFrom(registry: Pick<SttRegistry, 'get'>): DescribeProvider {
  return (token) => {
    const bound = registry.get(token);
    return {
      adapter: bound?.adapter.adapter ?? null,
      model: bound?.adapter.model ?? null,
      language: bound?.language ?? null,
      pricePerMinuteUsd: bound?.pricePerMinuteUsd ?? null,
    };
  };
}

/** Whether a token can be called (bound, and with its credential): an evaluation never runs to fail it (§8.1). */
export function configuredFrom(registry: SttRegistry): (provider: string) => boolean {
  return (provider) => isProviderConfigured(registry, provider);
}

/** Whether a provider token's binding has a streaming adapter (DESIGN §13.1). */
export function streamingFrom(registry: SttRegistry): (provider: string) => boolean {
  return (provider) => Boolean(registry.get(provider)?.streaming);
}

/** Each token's label under the server's current bindings (`stt-b · deepgram nova-3`, DESIGN §8.5). */
export const labelsFrom = (registry: SttRegistry): ((provider: string) => string) => providerLabelOf(registry);

/** The setup to record and each provider's price, for an evaluation about to be stored. */
export function recordSetup(input: {
  providers: readonly string[];
  conditions: readonly string[];
  normalizer: Pick<Normalizer, 'name' | 'version'>;
  seed: number;
  describe?: DescribeProvider;
  version?: string;
}): { setup: EvaluationSetup; prices: Record<string, number | null> } {
  const providers: Record<string, EvaluationProviderSetup> = {};
  const prices: Record<string, number | null> = {};
  for (const token of input.providers) {
    const d = input.describe?.(token) ?? { adapter: null, model: null, language: null, pricePerMinuteUsd: null };
    providers[token] = { adapter: d.adapter, model: d.model, language: d.language };
    prices[token] = d.pricePerMinuteUsd;
  }
  return {
    setup: {
      voxctl_version: input.version ?? VERSION,
      normalizer: { name: input.normalizer.name, version: input.normalizer.version },
      providers,
      conditions: [...input.conditions],
      seed: input.seed,
    },
    prices,
  };
}
