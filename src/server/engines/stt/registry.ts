/**
 * Builds one adapter per provider id from the validated server config: the nine spec tokens as bound
 * (unbound → not configured), and `local-sphinx`, always PocketSphinx.
 */
import type { fetch as undiciFetch } from 'undici';
import { ALL_PROVIDERS, LOCAL_PROVIDERS } from '../../../shared/schemas/stt.js';
import type { ProviderBinding, SttBindings } from './bindings.js';
import type { StreamingCapability, SttAdapter } from './types.js';
import { adapterNote, providerLabel } from '../../../shared/providers.js';
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
import { TIMEOUTS, VENDOR_TABLE, type VendorKind } from './vendor-table.js';
import { createDeepgramStreaming } from './streaming/deepgram.js';
import { createAssemblyAiStreaming } from './streaming/assemblyai.js';
import { createSpeechmaticsStreaming } from './streaming/speechmatics.js';
import { createGladiaStreaming } from './streaming/gladia.js';
import { createRevAiStreaming } from './streaming/revai.js';
import { createElevenLabsStreaming } from './streaming/elevenlabs.js';
import { createOpenAiStreaming } from './streaming/openai.js';
import { createSphinxStreaming } from './streaming/local-sphinx.js';

/** Default per-provider timeout of synchronous vendors and local engines (DESIGN §4.11). */
export const DEFAULT_TIMEOUT_MS = TIMEOUTS.defaultMs;

/** The hosted-vendor adapter of each kind; exported so the contract tests build exactly what the registry binds. */
export const VENDOR_FACTORIES: Record<VendorKind, (s: AdapterSettings) => SttAdapter> = {
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

/**
 * The live (WebSocket) capability of each vendor kind that has one (DESIGN §13.1); a factory may decline
 * a binding (undefined: openai without a `streaming_model`, since OpenAI-compatible servers rarely speak
 * the Realtime API).
 */
export const STREAMING_FACTORIES: Partial<Record<VendorKind, (s: AdapterSettings, binding: { customBase: boolean }) => StreamingCapability | undefined>> = {
  deepgram: createDeepgramStreaming,
  assemblyai: createAssemblyAiStreaming,
  speechmatics: createSpeechmaticsStreaming,
  gladia: createGladiaStreaming,
  revai: createRevAiStreaming,
  elevenlabs: createElevenLabsStreaming,
  openai: createOpenAiStreaming,
};

/**
 * A provider that can be called: its adapter and its own timeout. An adapter whose budget grows with the
 * audio enforces that budget itself; `timeoutMs` is then the ceiling no budget exceeds.
 */
export interface BoundProvider {
  adapter: SttAdapter;
  timeoutMs: number;
  /** What each second of audio adds to `timeoutMs` (the local recogniser without a fixed timeout_ms); absent: 0. */
  timeoutPerAudioSecondMs?: number;
  /** The binding's default language, when it names one (recorded in an evaluation's setup). */
  language?: string;
  /** The binding's `price_per_minute_usd`, when it has one. */
  pricePerMinuteUsd?: number;
  /** Its live recognition, when the adapter streams. */
  streaming?: StreamingCapability;
}

/** State of one provider as `GET /v1/stt/providers` and `/health` report it (no secrets). */
export interface ProviderState {
  id: string;
  adapter: string | null;
  model: string | null;
  /** `stt-b · deepgram nova-3` (DESIGN §8.5). */
  label: string;
  state: 'ready' | 'not_configured' | 'unavailable';
  detail?: string;
  price_per_minute_usd?: number;
  /** What results of this adapter mean (e.g. PocketSphinx on telephone audio). */
  note?: string;
  /** Whether it can be used for streaming recognition (§13.1). */
  streaming: boolean;
}

/** Every provider id of the API and what it is bound to. */
export interface SttRegistry {
  /** The bound provider `id`, or undefined when the config does not bind it. */
  get(id: string): BoundProvider | undefined;
  /** State of every provider id, in the API's order. */
  states(): ProviderState[];
  /** Ends what the adapters keep running between requests (the local recogniser's warm decoders). */
  close(): Promise<void>;
}

/** Builds the registry; `env` is read on every call (keys can be set without a restart). */
export function createSttRegistry(config: { stt: SttBindings }, deps: { env?: () => NodeJS.ProcessEnv; fetch?: typeof undiciFetch } = {}): SttRegistry {
  const env = deps.env ?? (() => process.env);
  const sphinxCfg = config.stt.localSphinx;
  // Without a fixed timeout_ms the local recogniser's budget grows with the audio (a call runs minutes).
  const sphinxPerSecond = sphinxCfg.timeout_ms === undefined ? TIMEOUTS.localPerAudioSecondMs : 0;
  const sphinxOptions = {
    binary: sphinxCfg.binary,
    modelDir: sphinxCfg.model_dir,
    maxConcurrent: sphinxCfg.max_concurrent,
    timeoutMs: sphinxCfg.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    timeoutPerAudioSecondMs: sphinxPerSecond,
    ...(sphinxCfg.price_per_minute_usd !== undefined ? { pricePerMinuteUsd: sphinxCfg.price_per_minute_usd } : {}),
  };
  const sphinx: BoundProvider = {
    adapter: createLocalSphinxAdapter(sphinxOptions),
    timeoutMs: sphinxCfg.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    timeoutPerAudioSecondMs: sphinxPerSecond,
    streaming: createSphinxStreaming(sphinxOptions),
    ...(sphinxCfg.price_per_minute_usd !== undefined ? { pricePerMinuteUsd: sphinxCfg.price_per_minute_usd } : {}),
  };
  const bound = new Map<string, BoundProvider>();
  for (const id of LOCAL_PROVIDERS) bound.set(id, sphinx);
  for (const [id, binding] of Object.entries(config.stt.providers)) {
    if (!binding) continue;
    const extras = {
      ...(binding.language !== undefined ? { language: binding.language } : {}),
      ...(binding.price_per_minute_usd !== undefined ? { pricePerMinuteUsd: binding.price_per_minute_usd } : {}),
    };
    if (binding.adapter === 'local-sphinx') {
      const perSecond = binding.timeout_ms === undefined ? { timeoutPerAudioSecondMs: sphinxPerSecond } : {};
      bound.set(id, { adapter: sphinx.adapter, timeoutMs: binding.timeout_ms ?? DEFAULT_TIMEOUT_MS, ...perSecond, ...extras, ...(sphinx.streaming ? { streaming: sphinx.streaming } : {}) });
      continue;
    }
    const settings = settingsOf(binding, binding.adapter, env, deps.fetch);
    const scaled = (settings.timeoutPerAudioSecondMs ?? 0) > 0;
    const live = STREAMING_FACTORIES[binding.adapter]?.(settings, { customBase: binding.base_url !== undefined });
    bound.set(id, {
      adapter: VENDOR_FACTORIES[binding.adapter](settings),
      timeoutMs: scaled ? TIMEOUTS.maxMs : (settings.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      ...extras,
      ...(live ? { streaming: live } : {}),
    });
  }
  return {
    get: (id) => bound.get(id),
    close: async () => {
      await Promise.all([...new Set([...bound.values()].map((p) => p.adapter))].map((a) => a.close?.()));
    },
    states: () =>
      ALL_PROVIDERS.map((id): ProviderState => {
        const p = bound.get(id);
        if (!p) return { id, adapter: null, model: null, label: id, state: 'not_configured', detail: 'not bound to an adapter in the server config', streaming: false };
        const check = p.adapter.check();
        const info = { id, adapter: p.adapter.adapter, model: p.adapter.model };
        const note = adapterNote(info.adapter);
        const base = {
          ...info,
          label: providerLabel(info),
          streaming: p.streaming !== undefined,
          ...(note ? { note } : {}),
          ...(p.pricePerMinuteUsd !== undefined ? { price_per_minute_usd: p.pricePerMinuteUsd } : {}),
        };
        if (check.ok) return { ...base, state: 'ready' };
        // A vendor whose key variable is unset is "not configured"; a missing local engine is "unavailable".
        return { ...base, state: p.adapter.adapter === 'local-sphinx' ? 'unavailable' : 'not_configured', detail: check.detail };
      }),
  };
}

/**
 * Whether `id` can be called at all: bound by the config and, for a hosted vendor, with its credential
 * set (`GET /v1/stt/providers` says `not_configured` otherwise). A local engine that is bound but missing
 * is configured, only unavailable.
 */
export function isProviderConfigured(registry: SttRegistry, id: string): boolean {
  const state = registry.states().find((s) => s.id === id);
  return state !== undefined && state.state !== 'not_configured';
}

/** `label` of every provider id (`stt-b · deepgram nova-3`), for views and the report. */
export function providerLabelOf(registry: SttRegistry): (id: string) => string {
  const labels = new Map(registry.states().map((s) => [s.id, s.label]));
  return (id) => labels.get(id) ?? id;
}

/**
 * A binding's adapter settings with the vendor's defaults. Job-based vendors poll every 3 s and get a
 * budget that grows with the audio, unless the binding fixes `timeout_ms` without a per-second share.
 */
export function settingsOf(b: ProviderBinding, kind: VendorKind, env: () => NodeJS.ProcessEnv, fetch?: typeof undiciFetch): AdapterSettings {
  const spec = VENDOR_TABLE[kind];
  const baseUrl = b.base_url ?? (kind === 'azure' ? `https://${b.region}.stt.speech.microsoft.com` : (spec.defaultBase as string));
  const perSecond = b.timeout_per_audio_second_ms ?? (spec.polling && b.timeout_ms === undefined ? TIMEOUTS.jobPerAudioSecondMs : 0);
  const name = b.api_key_env;
  return {
    baseUrl,
    model: b.model ?? null,
    streamingModel: b.streaming_model ?? null,
    language: b.language,
    path: b.path,
    pollIntervalMs: b.poll_interval_ms ?? TIMEOUTS.jobPollMs,
    timeoutMs: b.timeout_ms ?? (spec.polling ? TIMEOUTS.jobBaseMs : DEFAULT_TIMEOUT_MS),
    timeoutPerAudioSecondMs: perSecond,
    apiKeyEnv: name,
    apiKey: () => (name ? env()[name] || undefined : undefined),
    fetch,
  };
}

/** `/health`'s view: ready → ok; otherwise the state as-is. */
export function sttHealthOf(registry: SttRegistry): Record<string, 'ok' | 'unavailable' | 'not_configured'> {
  return Object.fromEntries(registry.states().map((s) => [s.id, s.state === 'ready' ? 'ok' : s.state]));
}
