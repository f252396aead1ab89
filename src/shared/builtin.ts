import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A Node built-in module loaded as CommonJS, for the CLI's start-up path. An ESM import of a built-in
 * evaluates every one of its exports, and on Node 22 and later some are getters that load much more:
 * `node:http`'s WebSocket loads all of undici, `node:crypto`'s webcrypto its algorithms — 50–100 ms of a
 * command's start on Node 26. `require` reads only what the caller uses.
 */
export function builtin<T>(name: 'node:http' | 'node:https' | 'node:crypto'): T {
  return require(name) as T;
}
