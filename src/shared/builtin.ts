import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as V8 from 'node:v8';

const require = createRequire(import.meta.url);

/** The built-ins `builtin` loads, by name. */
interface Builtins {
  'node:crypto': typeof Crypto;
  'node:http': typeof Http;
  'node:https': typeof Https;
  'node:v8': typeof V8;
}

/**
 * A Node built-in module loaded as CommonJS, for the CLI's start-up path. An ESM import of a built-in
 * evaluates every one of its exports, and on Node 22 and later some are getters that load much more:
 * `node:http`'s WebSocket loads all of undici, `node:crypto`'s webcrypto its algorithms — 50–100 ms of a
 * command's start on Node 26. `require` reads only what the caller uses.
 */
export function builtin<K extends keyof Builtins>(name: K): Builtins[K] {
  return require(name) as Builtins[K];
}
