/**
 * What the server config binds an STT token to: the adapters this folder implements, and the settings each
 * binding carries. The list lives with the adapters; `config.ts` reads and validates the file against it.
 */

/** Adapters a token can be bound to. */
export const ADAPTERS = ['openai', 'deepgram', 'assemblyai', 'google', 'azure', 'revai', 'speechmatics', 'elevenlabs', 'gladia', 'local-sphinx'] as const;
export type AdapterKind = (typeof ADAPTERS)[number];

/** One token's binding as written in the config file. */
export interface ProviderBinding {
  adapter: AdapterKind;
  /** Model the vendor is asked for (each adapter has a default). */
  model?: string;
  /** Model of live streams (DESIGN §13.1; default: `model`). */
  streaming_model?: string;
  /** Vendor API base (default: the vendor's public endpoint; required for self-hosted servers). */
  base_url?: string;
  /** Environment variable with the credential. */
  api_key_env?: string;
  /** Default language when a request names none (e.g. `en`, `en-US`). */
  language?: string;
  /** Endpoint path override (openai: `/inference` for whisper.cpp's server). */
  path?: string;
  /** Per-provider timeout: 60000 ms; job-based vendors (assemblyai, revai, speechmatics, gladia) 120000 ms plus `timeout_per_audio_second_ms`. */
  timeout_ms?: number;
  /** Added to `timeout_ms` per second of audio: job-based vendors 1000 unless `timeout_ms` is given, others 0. */
  timeout_per_audio_second_ms?: number;
  /** Pause between status polls of job-based vendors, default 3000 ms. */
  poll_interval_ms?: number;
  /** Azure region (`westeurope`): base URL `https://{region}.stt.speech.microsoft.com`. */
  region?: string;
  /** List price per minute of audio in USD (DESIGN §11.6): evaluations report cost with it; none is built in. */
  price_per_minute_usd?: number;
}

/** Settings of the always-present `local-sphinx` provider. */
export interface SphinxSettings {
  timeout_ms?: number;
  max_concurrent?: number;
  model_dir?: string;
  binary?: string;
  /** Cost per minute of audio in USD, when you want local-sphinx priced too (your own compute). */
  price_per_minute_usd?: number;
}

/** Every STT binding of a validated config: the registry builds one adapter per entry. */
export interface SttBindings {
  providers: Partial<Record<string, ProviderBinding>>;
  localSphinx: SphinxSettings;
}
