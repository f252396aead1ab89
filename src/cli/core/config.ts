import { readFileSync } from 'node:fs';
import type Conf from 'conf';
import { join } from 'node:path';
import { usageError } from './errors.js';

/** A named target: where the service lives. The key is never stored here (keychain / key file). */
export interface Profile {
  base_url: string;
}

/** Settings `voxctl config get|set` reads and writes. */
export const CONFIG_KEYS = {
  speaker: 'default speaker of `tts say` and `batch submit`',
  output_format: 'default list output when stdout is a terminal: table | json | csv',
} as const;
export type ConfigKey = keyof typeof CONFIG_KEYS;

interface ConfigData {
  current_profile?: string;
  profiles: Record<string, Profile>;
  defaults: Partial<Record<ConfigKey, string>>;
}

/** The CLI's persistent settings (a conf store in the config dir): profiles, current profile, defaults. */
export interface ConfigStore {
  /** Path of the JSON file behind the store. */
  readonly path: string;
  profiles(): Record<string, Profile>;
  currentProfile(): string | undefined;
  setCurrentProfile(name: string | undefined): Promise<void>;
  addProfile(name: string, profile: Profile): Promise<void>;
  removeProfile(name: string): Promise<void>;
  get(key: ConfigKey): string | undefined;
  set(key: ConfigKey, value: string | undefined): Promise<void>;
  defaults(): Partial<Record<ConfigKey, string>>;
}

/** Checks a `config set/get` key, quoting the offending one. */
export function assertConfigKey(key: string): asserts key is ConfigKey {
  if (!(key in CONFIG_KEYS)) throw usageError(`Unknown config key '${key}'`, `valid keys: ${Object.keys(CONFIG_KEYS).join(', ')}`);
}

/** Checks a value for `key` before it is stored. */
export function validateConfigValue(key: ConfigKey, value: string): void {
  if (key === 'output_format' && !['table', 'json', 'csv'].includes(value)) {
    throw usageError(`output_format must be table, json or csv, got '${value}'`);
  }
  if (value.trim() === '') throw usageError(`${key} must not be empty`);
}

/** Checks a profile name and base URL, quoting the offending value. */
export function validateProfile(name: string, baseUrl: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) {
    throw usageError(`Invalid profile name '${name}'`, 'use letters, digits, dot, dash or underscore (max 64)');
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw usageError(`Invalid --base-url '${baseUrl}'`, 'give a full URL such as https://voxctl.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--base-url must be http(s), got '${baseUrl}'`);
}

/**
 * Opens the store in `configDir`. Reads parse the JSON file directly (conf pulls in ajv, which would
 * cost every command a third of a second); writes go through conf, loaded on first write.
 */
export async function openConfig(configDir: string): Promise<ConfigStore> {
  const path = join(configDir, 'config.json');
  const read = (): ConfigData => {
    try {
      const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<ConfigData>;
      return { current_profile: data.current_profile, profiles: data.profiles ?? {}, defaults: data.defaults ?? {} };
    } catch {
      return { profiles: {}, defaults: {} };
    }
  };
  let conf: Promise<Conf<ConfigData>> | undefined;
  const writer = () =>
    (conf ??= import('conf').then(
      ({ default: Conf }) =>
        new Conf<ConfigData>({ cwd: configDir, configName: 'config', projectName: 'voxctl', defaults: { profiles: {}, defaults: {} }, configFileMode: 0o600 }),
    ));
  return {
    path,
    profiles: () => ({ ...read().profiles }),
    currentProfile: () => read().current_profile,
    async setCurrentProfile(name) {
      const c = await writer();
      if (name === undefined) c.delete('current_profile');
      else c.set('current_profile', name);
    },
    async addProfile(name, profile) {
      (await writer()).set('profiles', { ...read().profiles, [name]: { base_url: profile.base_url } });
    },
    async removeProfile(name) {
      const c = await writer();
      const { [name]: _gone, ...rest } = read().profiles;
      c.set('profiles', rest);
      if (read().current_profile === name) c.delete('current_profile');
    },
    get: (key) => read().defaults[key],
    async set(key, value) {
      const { [key]: _old, ...rest } = read().defaults;
      (await writer()).set('defaults', value === undefined ? rest : { ...rest, [key]: value });
    },
    defaults: () => ({ ...read().defaults }),
  };
}
