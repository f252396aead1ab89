/**
 * Builds one adapter per provider id from the validated server config: the nine spec tokens as bound
 * (unbound → not configured), and `local-sphinx`, always PocketSphinx.
 */
import type { fetch as undiciFetch } from 'undici';
import { ALL_PROVIDERS, LOCAL_PROVIDERS } from '../../../shared/schemas/stt.js';
import type { AdapterKind, ProviderBinding, ServerConfig } from '../../config.js';
import type { SttAdapter } from './types.js';
import type { AdapterSettings } from './settings.js';
import { createLocalSphinxAdapter } from './local-sphinx.js';
import { createOpenAiAdapter } from './openai.js';
import { createDeepgramAdapter } from './deepgram.js';
import { createAssemblyAiAdapter } from './assemblyai.js';
import { createGoogleAdapter } from './google.js';
import { createAzureAdapter } from './azure.js';
import { createRevAiAdapter } from './revai.js';
import { createSpeechmaticsAdapter } from './speechmatics.js';
import { createElevenLabsAdapter } from './elevenlabs.js';
import { createGladiaAdapter } from './gladia.js';

/** Default per-provider timeout (DESIGN §4.11). */
export const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_POLL_MS = 1000;

/** Public endpoints of the vendors (a binding's `base_url` replaces them). */
const DEFAULT_BASE: Record<Exclude<AdapterKind, 'local-sphinx' | 'azure'>, string> = {
  openai: 'https://api.openai.com',
  deepgram: 'https://api.deepgram.com',
  assemblyai: 'https://api.assemblyai.com',
  google: 'https://speech.googleapis.com',
  revai: 'https://api.rev.ai',
  speechmatics: 'https://asr.api.speechmatics.com',
  elevenlabs: 'https://api.elevenlabs.io',
  gladia: 'https://api.gladia.io',
};

/** The hosted-vendor adapter of each kind; exported so the contract tests build exactly what the registry binds. */
export const VENDOR_FACTORIES: Record<Exclude<AdapterKind, 'local-sphinx'>, (s: AdapterSettings) => SttAdapter> = {
  openai: createOpenAiAdapter,
  deepgram: createDeepgramAdapter,
  assemblyai: createAssemblyAiAdapter,
  google: createGoogleAdapter,
  azure: createAzureAdapter,
  revai: createRevAiAdapter,
  speechmatics: createSpeechmaticsAdapter,
  elevenlabs: createElevenLabsAdapter,
  gladia: createGladiaAdapter,
};

/** A provider that can be called: its adapter and its own timeout. */
export interface BoundProvider {
  adapter: SttAdapter;
  timeoutMs: number;
}

/** State of one provider as `GET /v1/stt/providers` and `/health` report it (no secrets). */
export interface ProviderState {
  id: string;
  adapter: string | null;
  model: string | null;
  state: 'ready' | 'not_configured' | 'unavailable';
  detail?: string;
}

/** Every provider id of the API and what it is bound to. */
export interface SttRegistry {
  /** The bound provider `id`, or undefined when the config does not bind it. */
  get(id: string): BoundProvider | undefined;
  /** State of every provider id, in the API's order. */
  states(): ProviderState[];
}

/** Builds the registry; `env` is read on every call (keys can be set without a restart). */
export function createSttRegistry(config: ServerConfig, deps: { env?: () => NodeJS.ProcessEnv; fetch?: typeof undiciFetch } = {}): SttRegistry {
  const env = deps.env ?? (() => process.env);
  const sphinxCfg = config.stt.localSphinx;
  const sphinx: BoundProvider = {
    adapter: createLocalSphinxAdapter({
      binary: sphinxCfg.binary,
      modelDir: sphinxCfg.model_dir,
      maxConcurrent: sphinxCfg.max_concurrent,
      timeoutMs: sphinxCfg.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    }),
    timeoutMs: sphinxCfg.timeout_ms ?? DEFAULT_TIMEOUT_MS,
  };
  const bound = new Map<string, BoundProvider>();
  for (const id of LOCAL_PROVIDERS) bound.set(id, sphinx);
  for (const [id, binding] of Object.entries(config.stt.providers)) {
    if (!binding) continue;
    const timeoutMs = binding.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    if (binding.adapter === 'local-sphinx') bound.set(id, { adapter: sphinx.adapter, timeoutMs });
    else bound.set(id, { adapter: VENDOR_FACTORIES[binding.adapter](settingsOf(binding, env, deps.fetch)), timeoutMs });
  }
  return {
    get: (id) => bound.get(id),
    states: () =>
      ALL_PROVIDERS.map((id): ProviderState => {
        const p = bound.get(id);
        if (!p) return { id, adapter: null, model: null, state: 'not_configured', detail: 'not bound to an adapter in the server config' };
        const check = p.adapter.check();
        const base = { id, adapter: p.adapter.adapter, model: p.adapter.model };
        if (check.ok) return { ...base, state: 'ready' };
        // A vendor whose key variable is unset is "not configured"; a missing local engine is "unavailable".
        return { ...base, state: p.adapter.adapter === 'local-sphinx' ? 'unavailable' : 'not_configured', detail: check.detail };
      }),
  };
}

function settingsOf(b: ProviderBinding, env: () => NodeJS.ProcessEnv, fetch: typeof undiciFetch | undefined): AdapterSettings {
  const baseUrl =
    b.base_url ?? (b.adapter === 'azure' ? `https://${b.region}.stt.speech.microsoft.com` : DEFAULT_BASE[b.adapter as keyof typeof DEFAULT_BASE]);
  const name = b.api_key_env;
  return {
    baseUrl,
    model: b.model ?? null,
    language: b.language,
    path: b.path,
    pollIntervalMs: b.poll_interval_ms ?? DEFAULT_POLL_MS,
    apiKeyEnv: name,
    apiKey: () => (name ? env()[name] || undefined : undefined),
    fetch,
  };
}

/** `/health`'s view: ready → ok; otherwise the state as-is. */
export function sttHealthOf(registry: SttRegistry): Record<string, 'ok' | 'unavailable' | 'not_configured'> {
  return Object.fromEntries(registry.states().map((s) => [s.id, s.state === 'ready' ? 'ok' : s.state]));
}
