/**
 * The server config file: `voxctl.config.json` in the data dir, or `--config`. It binds each of the spec's
 * nine STT tokens to an adapter (DESIGN §6). Validated once at start; every error quotes the bad key.
 * Secrets never live here: a binding names the environment variable that holds its key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPEC_PROVIDERS, LOCAL_PROVIDERS } from '../shared/schemas/stt.js';
import { LANGUAGE_OF } from './engines/stt/languages.js';
import { ADAPTERS, type AdapterKind, type ProviderBinding, type SphinxSettings, type SttBindings } from './engines/stt/bindings.js';

/** The validated config. */
export interface ServerConfig {
  /** Where it was read from (undefined: no file, defaults only). */
  file?: string;
  stt: SttBindings;
}

/** A config file that cannot be used; the message names the file and the offending key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Name of the file looked for in the data dir. */
export const CONFIG_FILE_NAME = 'voxctl.config.json';

const BINDING_KEYS = ['adapter', 'model', 'streaming_model', 'base_url', 'api_key_env', 'language', 'path', 'timeout_ms', 'timeout_per_audio_second_ms', 'poll_interval_ms', 'region', 'price_per_minute_usd'];
const SPHINX_KEYS = ['timeout_ms', 'max_concurrent', 'model_dir', 'binary', 'price_per_minute_usd'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_TIMEOUT_MS = 10 * 60_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and validates the config: `configPath` must exist when given; the data dir's file is optional. */
export function loadServerConfig(opts: { dataDir: string; configPath?: string }): ServerConfig {
  const file = opts.configPath ?? join(opts.dataDir, CONFIG_FILE_NAME);
  if (!existsSync(file)) {
    if (opts.configPath) throw new ConfigError(`Config file not found: ${file}`);
    return { stt: { providers: {}, localSphinx: {} } };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Invalid server config ${file}: not valid JSON (${(err as Error).message})`);
  }
  try {
    return { file, ...parseServerConfig(raw) };
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`Invalid server config ${file}: ${err.message}`);
    throw err;
  }
}

/** Validates a parsed config object (throws `ConfigError` quoting the offending key). */
export function parseServerConfig(raw: unknown): Omit<ServerConfig, 'file'> {
  if (!isObject(raw)) throw new ConfigError('the top level must be a JSON object');
  for (const key of Object.keys(raw)) {
    if (key !== 'stt' && key !== '$schema') throw new ConfigError(`unknown key "${key}" (expected "stt")`);
  }
  const stt = raw.stt ?? {};
  if (!isObject(stt)) throw new ConfigError('"stt" must be an object');
  for (const key of Object.keys(stt)) {
    if (key !== 'providers') throw new ConfigError(`unknown key "stt.${key}" (expected "stt.providers")`);
  }
  const providers = stt.providers ?? {};
  if (!isObject(providers)) throw new ConfigError('"stt.providers" must be an object');
  const out: ServerConfig['stt'] = { providers: {}, localSphinx: {} };
  for (const [token, value] of Object.entries(providers)) {
    const where = `stt.providers.${token}`;
    if ((LOCAL_PROVIDERS as readonly string[]).includes(token)) {
      out.localSphinx = parseSphinx(value, where);
    } else if ((SPEC_PROVIDERS as readonly string[]).includes(token)) {
      out.providers[token] = parseBinding(value, where);
    } else {
      throw new ConfigError(`unknown provider "${where}" (expected one of ${[...SPEC_PROVIDERS, ...LOCAL_PROVIDERS].join(', ')})`);
    }
  }
  return { stt: out };
}

function optString(o: Record<string, unknown>, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !v.trim()) throw new ConfigError(`"${where}.${key}" must be a non-empty string`);
  return v.trim();
}

function optInt(o: Record<string, unknown>, key: string, where: string, min: number, max: number): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ConfigError(`"${where}.${key}" must be an integer from ${min} to ${max}`);
  }
  return v;
}

/** `price_per_minute_usd`: a finite number ≥ 0, or absent. */
function optPrice(o: Record<string, unknown>, where: string): number | undefined {
  const v = o.price_per_minute_usd;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ConfigError(`"${where}.price_per_minute_usd" must be a number ≥ 0 (USD per minute of audio)`);
  return v;
}

function parseBinding(value: unknown, where: string): ProviderBinding {
  if (!isObject(value)) throw new ConfigError(`"${where}" must be an object with at least "adapter"`);
  for (const key of Object.keys(value)) {
    if (key === 'api_key' || key === 'key' || key === 'token') {
      throw new ConfigError(`"${where}.${key}": secrets are not read from the config file; put the key in an environment variable and name it in "api_key_env"`);
    }
    if (!BINDING_KEYS.includes(key)) throw new ConfigError(`unknown key "${where}.${key}" (allowed: ${BINDING_KEYS.join(', ')})`);
  }
  const adapter = value.adapter;
  if (typeof adapter !== 'string' || !(ADAPTERS as readonly string[]).includes(adapter)) {
    throw new ConfigError(`"${where}.adapter" must be one of ${ADAPTERS.join(', ')}`);
  }
  const binding: ProviderBinding = { adapter: adapter as AdapterKind };
  for (const key of ['model', 'streaming_model', 'language', 'region'] as const) {
    const v = optString(value, key, where);
    if (v !== undefined) binding[key] = v;
  }
  const baseUrl = optString(value, 'base_url', where);
  if (baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new ConfigError(`"${where}.base_url" must be an absolute http(s) URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`"${where}.base_url" must be an absolute http(s) URL`);
    binding.base_url = baseUrl.replace(/\/+$/, '');
  }
  const path = optString(value, 'path', where);
  if (path !== undefined) {
    if (!path.startsWith('/')) throw new ConfigError(`"${where}.path" must start with "/"`);
    if (binding.adapter !== 'openai') throw new ConfigError(`"${where}.path" applies to the openai adapter only`);
    binding.path = path;
  }
  const env = optString(value, 'api_key_env', where);
  if (env !== undefined) {
    if (!ENV_NAME.test(env)) throw new ConfigError(`"${where}.api_key_env" must be an environment variable name like OPENAI_API_KEY`);
    binding.api_key_env = env;
  }
  const timeout = optInt(value, 'timeout_ms', where, 1, MAX_TIMEOUT_MS);
  if (timeout !== undefined) binding.timeout_ms = timeout;
  const perSecond = optInt(value, 'timeout_per_audio_second_ms', where, 0, 60_000);
  if (perSecond !== undefined) binding.timeout_per_audio_second_ms = perSecond;
  const poll = optInt(value, 'poll_interval_ms', where, 1, 60_000);
  if (poll !== undefined) binding.poll_interval_ms = poll;
  const price = optPrice(value, where);
  if (price !== undefined) binding.price_per_minute_usd = price;
  checkVendorRules(binding, where);
  if (binding.adapter === 'local-sphinx') {
    for (const key of ['model', 'streaming_model', 'base_url', 'api_key_env', 'region', 'timeout_per_audio_second_ms'] as const) {
      if (binding[key] !== undefined) throw new ConfigError(`"${where}.${key}" does not apply to the local-sphinx adapter`);
    }
  } else if (binding.adapter !== 'openai' && binding.api_key_env === undefined) {
    throw new ConfigError(`"${where}.api_key_env" is required for the ${binding.adapter} adapter`);
  }
  if (binding.region !== undefined && binding.adapter !== 'azure') throw new ConfigError(`"${where}.region" applies to the azure adapter only`);
  if (binding.adapter === 'azure' && !binding.base_url && !binding.region) {
    throw new ConfigError(`"${where}" needs "region" or "base_url" for the azure adapter`);
  }
  return binding;
}

/** What a vendor cannot take, refused here rather than answered by the vendor with an error on every request. */
function checkVendorRules(binding: ProviderBinding, where: string): void {
  if (binding.adapter === 'gladia' && binding.model !== undefined) {
    throw new ConfigError(`"${where}.model" does not apply to the gladia adapter: Gladia's pre-recorded API has no model choice`);
  }
  const rule = binding.adapter in LANGUAGE_OF ? LANGUAGE_OF[binding.adapter as keyof typeof LANGUAGE_OF] : undefined;
  if (rule && binding.language !== undefined && rule.map(binding.language) === undefined) {
    throw new ConfigError(`"${where}.language": ${rule.vendor} does not support "${binding.language}"; give ${rule.hint}`);
  }
}

function parseSphinx(value: unknown, where: string): SphinxSettings {
  if (!isObject(value)) throw new ConfigError(`"${where}" must be an object`);
  for (const key of Object.keys(value)) {
    if (key === 'adapter' && value.adapter === 'local-sphinx') continue;
    if (!SPHINX_KEYS.includes(key)) throw new ConfigError(`unknown key "${where}.${key}" (local-sphinx is always PocketSphinx; allowed: ${SPHINX_KEYS.join(', ')})`);
  }
  const out: SphinxSettings = {};
  const timeout = optInt(value, 'timeout_ms', where, 1, MAX_TIMEOUT_MS);
  if (timeout !== undefined) out.timeout_ms = timeout;
  const max = optInt(value, 'max_concurrent', where, 1, 64);
  if (max !== undefined) out.max_concurrent = max;
  const dir = optString(value, 'model_dir', where);
  if (dir !== undefined) out.model_dir = dir;
  const binary = optString(value, 'binary', where);
  if (binary !== undefined) out.binary = binary;
  const price = optPrice(value, where);
  if (price !== undefined) out.price_per_minute_usd = price;
  return out;
}
