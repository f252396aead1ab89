import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Keyring from '@napi-rs/keyring';

/** The OS keychain's service name; the account is the profile name (DESIGN §5). */
export const KEYCHAIN_SERVICE = 'voxctl';
/** Keychain calls give up after this long (DESIGN §7). */
export const KEYCHAIN_TIMEOUT_MS = 3000;

/** Where a stored key lives. */
export type Storage = 'keychain' | 'file';

/** Result of reading a key: the key (if any), where it was found, and why the keychain failed (if it did). */
export interface StoredKey {
  key: string | undefined;
  storage: Storage | undefined;
  /** Set when the keychain could not be reached (error or timeout); the file was consulted instead. */
  keychainError?: string;
}

/** Stores API keys per profile: OS keychain first, a 0600 file in the config dir as the fallback. */
export interface KeyStore {
  /** Path of the fallback file. */
  readonly filePath: string;
  get(profile: string): Promise<StoredKey>;
  /** Stores the key; returns where it went (and the keychain failure, when it fell back to the file). */
  set(profile: string, key: string, options?: { insecure?: boolean }): Promise<{ storage: Storage; keychainError?: string }>;
  /** Removes the key from both places; true when something was removed. */
  delete(profile: string): Promise<{ removed: boolean; keychainError?: string }>;
  /**
   * THE keychain probe: `doctor` and `auth status` both ask it, so they give one answer. Reachable means
   * keys can be kept there — reading `profile`'s entry must work, and when it holds no key a probe entry
   * must be written, read back and removed (a Secret Service may answer reads yet refuse every write, as
   * without a D-Bus session or an unlocked collection). A keychain call that failed earlier in this
   * process is the answer too. Undefined when reachable, else the reason. Asked once per process.
   */
  probe(profile: string): Promise<string | undefined>;
}

/** The slice of @napi-rs/keyring's AsyncEntry we use (lets consumers pass another backend). */
export interface KeychainBackend {
  getPassword(profile: string, signal: AbortSignal): Promise<string | null>;
  setPassword(profile: string, key: string, signal: AbortSignal): Promise<void>;
  deletePassword(profile: string, signal: AbortSignal): Promise<boolean>;
}

/**
 * The OS keychain via @napi-rs/keyring, loaded on first use (it is a native module) and with `require`:
 * it is CommonJS, and an ESM import would have Node lex its source for export names first.
 */
export function napiKeychain(): KeychainBackend {
  const entry = async (profile: string) => {
    const { AsyncEntry } = createRequire(import.meta.url)('@napi-rs/keyring') as typeof Keyring;
    return new AsyncEntry(KEYCHAIN_SERVICE, profile);
  };
  return {
    getPassword: async (profile, signal) => (await entry(profile)).getPassword(signal),
    setPassword: async (profile, key, signal) => (await entry(profile)).setPassword(key, signal),
    deletePassword: async (profile, signal) => (await entry(profile)).deletePassword(signal),
  };
}

// The native call may ignore the signal while blocked on D-Bus: race it against a timer as well.
async function withTimeout<T>(fn: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${ms / 1000} s`));
    }, ms);
  });
  try {
    return await Promise.race([fn(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

/** The keychain account of the probe's round trip (never a profile's: profiles cannot start with `__`). */
export const PROBE_ACCOUNT = '__voxctl_probe__';

/** Builds the key store over `backend` with its fallback file `{configDir}/credentials.json`. */
export function createKeyStore(options: { configDir: string; backend?: KeychainBackend; timeoutMs?: number }): KeyStore {
  const backend = options.backend ?? napiKeychain();
  const ms = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  const filePath = join(options.configDir, 'credentials.json');
  // The first keychain failure of this process, and the probe's answer once asked.
  let failed: string | undefined;
  let probed: Promise<string | undefined> | undefined;
  const fail = (e: unknown) => {
    const why = reason(e);
    failed ??= why;
    return why;
  };

  const readFile = (): Record<string, string> => {
    if (!existsSync(filePath)) return {};
    try {
      const parsed = JSON.parse(readFileSync(filePath, 'utf8')) as { keys?: Record<string, string> };
      return parsed.keys ?? {};
    } catch {
      return {};
    }
  };
  const writeFile = (keys: Record<string, string>) => {
    mkdirSync(options.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(filePath, JSON.stringify({ keys }, null, 2) + '\n', { mode: 0o600 });
    chmodSync(filePath, 0o600);
  };

  return {
    filePath,
    async get(profile) {
      let keychainError: string | undefined;
      try {
        const key = await withTimeout((s) => backend.getPassword(profile, s), ms);
        if (key) return { key, storage: 'keychain' };
      } catch (e) {
        keychainError = fail(e);
      }
      const key = readFile()[profile];
      return { key, storage: key ? 'file' : undefined, keychainError };
    },
    async set(profile, key, opts = {}) {
      let keychainError: string | undefined;
      if (!opts.insecure) {
        try {
          await withTimeout((s) => backend.setPassword(profile, key, s), ms);
          // A key saved in the file earlier must not shadow the keychain one later.
          const keys = readFile();
          if (profile in keys) {
            delete keys[profile];
            writeFile(keys);
          }
          return { storage: 'keychain' };
        } catch (e) {
          keychainError = fail(e);
        }
      }
      writeFile({ ...readFile(), [profile]: key });
      return { storage: 'file', keychainError };
    },
    async delete(profile) {
      let removed = false;
      let keychainError: string | undefined;
      try {
        removed = await withTimeout((s) => backend.deletePassword(profile, s), ms);
      } catch (e) {
        keychainError = fail(e);
      }
      const keys = readFile();
      if (profile in keys) {
        delete keys[profile];
        writeFile(keys);
        removed = true;
      }
      return { removed, keychainError };
    },
    probe(profile) {
      probed ??= (async () => {
        try {
          if (await withTimeout((s) => backend.getPassword(profile, s), ms)) return failed;
          const token = `probe-${process.pid}-${Date.now()}`;
          await withTimeout((s) => backend.setPassword(PROBE_ACCOUNT, token, s), ms);
          const back = await withTimeout((s) => backend.getPassword(PROBE_ACCOUNT, s), ms);
          await withTimeout((s) => backend.deletePassword(PROBE_ACCOUNT, s), ms);
          if (back !== token) return failed ?? 'a key written to the keychain could not be read back';
          return failed;
        } catch (e) {
          return fail(e);
        }
      })();
      return probed;
    },
  };
}
