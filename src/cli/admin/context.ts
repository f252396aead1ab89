import type { CliEnv } from '../core/env.js';

// Its own module so that admin.ts and schema.ts both name it without importing each other.

/** What the admin commands use of the handler context. */
export interface AdminContext {
  env: CliEnv;
  stdout: { write(chunk: string): unknown };
}
