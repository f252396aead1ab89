import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import type { ServerOptions } from '../../src/server/options.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import type { Clock } from '../../src/server/clock.js';
import { backendFor } from './postgres.js';
import { seedSqliteDataDir } from './sqlite-template.js';

/** A key every test server is bootstrapped with (VOXCTL_BOOTSTRAP_KEY semantics). */
export const TEST_KEY = 'vox_' + 'T'.repeat(40);

export interface TestServer {
  app: FastifyInstance;
  runtime: Runtime;
  /** `http://127.0.0.1:{port}` of the real listening server. */
  url: string;
  dataDir: string;
  /** The bootstrap user's full-scope key. */
  key: string;
  close(): Promise<void>;
}

/** Starts the real app on a temp data dir, listening on loopback (port 0), with the bootstrap key set. */
export async function startTestServer(
  opts: { options?: Partial<ServerOptions>; clock?: Clock; dataDir?: string; freshDatabase?: boolean } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'voxctl-test-'));
  // The project's backend: on PostgreSQL each data dir has its own database (see helpers/postgres.ts).
  const backend = await backendFor(dataDir);
  // On SQLite a copy of the run's migrated template (no migration at each start-up); `freshDatabase` migrates from nothing.
  if (!backend.databaseUrl && !opts.freshDatabase) seedSqliteDataDir(dataDir);
  const runtime = await createRuntime(
    {
      dataDir,
      ...backend,
      host: '127.0.0.1',
      port: 0,
      allowPrivateAudioUrls: false,
      bootstrapKey: TEST_KEY,
      logLevel: 'silent',
      ttsWorkers: 2,
      ...opts.options,
    },
    { clock: opts.clock },
  );
  const app = await buildApp(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    runtime,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    key: TEST_KEY,
    async close() {
      await app.close();
      await runtime.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
