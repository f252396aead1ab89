import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layer rules of eslint.config.js, run through ESLint's API on source text placed at a path inside src/:
// each wrong arrow must fail lint, and the arrow the layers allow must pass.
const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x;\n`, { filePath });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' || m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const wrong: [string, string, string][] = [
  ['storage → engines', 'src/server/storage/repositories/speakers.ts', "import { x } from '../../engines/tts/catalogue.js';"],
  ['storage → services', 'src/server/storage/db.ts', "import { x } from '../services/users.js';"],
  ['routes → storage', 'src/server/routes/jobs/index.ts', "import { x } from '../../storage/repositories/jobs.js';"],
  ['engines → storage', 'src/server/engines/tts/catalogue.ts', "import { x } from '../../storage/db.js';"],
  ['audio → services', 'src/server/audio/decode.ts', "import { x } from '../services/uploads.js';"],
  ['evaluations → billing', 'src/server/evaluations/report-html.ts', "import { x } from '../billing/page.js';"],
  ['billing → evaluations', 'src/server/billing/page.ts', "import { x } from '../evaluations/views.js';"],
  ['services → routes', 'src/server/services/jobs.ts', "import { x } from '../routes/jobs/index.js';"],
  ['services → plugins', 'src/server/services/jobs.ts', "import { x } from '../plugins/auth.js';"],
  ['services → routes, from a concern folder', 'src/server/services/jobs/jobs.ts', "import { x } from '../../routes/jobs/index.js';"],
  ['services → evaluations, from a concern folder', 'src/server/services/stt/transcription.ts', "import { x } from '../../evaluations/create.js';"],
  ['services → billing (no services ↔ billing cycle)', 'src/server/services/quota.ts', "import { x } from '../billing/service.js';"],
  ['shared → server', 'src/shared/normalize.ts', "import { x } from '../server/errors.js';"],
  ['shared → cli', 'src/shared/schemas/common.ts', "import { x } from '../../cli/errors.js';"],
  ['client → cli', 'src/client/client.ts', "import { x } from '../cli/errors.js';"],
  ['cli → server (static)', 'src/cli/commands/tts.ts', "import { x } from '../../server/errors.js';"],
  ['cli → server (lazy, not an entry point)', 'src/cli/commands/tts.ts', "const { x } = await import('../../server/start.js');"],
  ['serve → a server module other than start', 'src/cli/commands/serve.ts', "const { x } = await import('../../server/app.js');"],
  ['admin → a server module other than its entry', 'src/cli/commands/admin.ts', "const { x } = await import('../../server/storage/db.js');"],
  ['better-sqlite3 value import outside the driver seam', 'src/server/storage/db.ts', "import x from 'better-sqlite3';"],
  // Background work: work/ runs the features' items; only the composition root reaches it.
  ['work → plugins', 'src/server/work/index.ts', "import { x } from '../plugins/auth.js';"],
  ['work → billing', 'src/server/work/index.ts', "import { x } from '../billing/service.js';"],
  ['evaluations → work (work runs evaluations, not the reverse)', 'src/server/evaluations/finish.ts', "import { x } from '../work/loop.js';"],
  ['work → routes', 'src/server/work/loop.ts', "import { x } from '../routes/jobs/index.js';"],
  ['services → work', 'src/server/services/jobs.ts', "import { x } from '../work/loop.js';"],
  ['routes → work', 'src/server/routes/jobs/index.ts', "import { x } from '../../work/loop.js';"],
  ['routes → engines', 'src/server/routes/stt/index.ts', "import { x } from '../../engines/stt/registry.js';"],
  ['routes → storage by way of ../server/', 'src/server/routes/jobs/index.ts', "import { x } from '../../../server/storage/db.js';"],
  ['storage → work, three folders down', 'src/server/storage/migrations/postgres/001-initial.ts', "import { x } from '../../../work/loop.js';"],
  // Plugins: HTTP glue over services.
  ['plugins → storage', 'src/server/plugins/auth.ts', "import { x } from '../storage/repositories/keys.js';"],
  ['plugins → routes', 'src/server/plugins/auth.ts', "import { x } from '../routes/keys/index.js';"],
  // The top of src/server: wiring files import down; nothing imports them back.
  ['engines → config (the adapter list lives in engines/stt)', 'src/server/engines/stt/registry.ts', "import type { x } from '../../config.js';"],
  ['services → runtime', 'src/server/services/jobs.ts', "import type { x } from '../runtime.js';"],
  ['evaluations → start', 'src/server/evaluations/runner.ts', "import { x } from '../start.js';"],
  ['a leaf (clock) → runtime', 'src/server/clock.ts', "import { x } from './runtime.js';"],
  ['a leaf (errors) → storage', 'src/server/errors.ts', "import { x } from './storage/db.js';"],
  ['config → storage', 'src/server/config.ts', "import { x } from './storage/db.js';"],
  ['app → storage', 'src/server/app.ts', "import { x } from './storage/db.js';"],
  ['app → services', 'src/server/app.ts', "import { x } from './services/jobs.js';"],
  ['runtime → routes', 'src/server/runtime.ts', "import { x } from './routes/jobs/index.js';"],
  ['runtime → plugins', 'src/server/runtime.ts', "import { x } from './plugins/auth.js';"],
  ['runtime → app', 'src/server/runtime.ts', "import { x } from './app.js';"],
  ['start → storage', 'src/server/start.ts', "import { x } from './storage/db.js';"],
  ['server → cli', 'src/server/start.ts', "import { x } from '../cli/main.js';"],
  ['server → client', 'src/server/services/jobs.ts', "import { x } from '../../client/index.js';"],
];

const allowed: [string, string, string][] = [
  ['storage → shared', 'src/server/storage/repositories/users.ts', "import { x } from '../../../shared/schemas/users.js';"],
  ['routes → services', 'src/server/routes/jobs/index.ts', "import { x } from '../../services/jobs.js';"],
  ['cli → client', 'src/cli/commands/tts.ts', "import { x } from '../../client/index.js';"],
  ['cli → server types', 'src/cli/commands/serve.ts', "import type { x } from '../../server/options.js';"],
  ['serve starts the server lazily', 'src/cli/commands/serve.ts', "const { x } = await import('../../server/start.js');"],
  ['admin loads its server entry lazily', 'src/cli/commands/admin.ts', "const { x } = await import('../../server/admin.js');"],
  ['the driver seam loads better-sqlite3', 'src/server/storage/sqlite-driver.ts', "import x from 'better-sqlite3';"],
  ['a type import of better-sqlite3', 'src/server/storage/db.ts', "import type x from 'better-sqlite3';"],
  ['work → evaluations (a work kind runs a feature\'s items by its rules)', 'src/server/work/evaluation-syntheses.ts', "import { x } from '../evaluations/finish.js';"],
  ['work → services', 'src/server/work/batch-items.ts', "import { x } from '../services/synthesis.js';"],
  ['work → services, storage, engines', 'src/server/work/loop.ts', "import { x } from '../services/audio-store.js';\nimport { y } from '../storage/db.js';\nimport { z } from '../engines/tts/types.js';\nexport const w = y + z;"],
  ['plugins → services', 'src/server/plugins/auth.ts', "import { x } from '../services/keys.js';"],
  ['routes → the evaluations feature', 'src/server/routes/evaluations/index.ts', "import { x } from '../../evaluations/service.js';"],
  ['a route module beside another (routes/jobs is not jobs/)', 'src/server/routes/evaluations/index.ts', "import { x } from '../jobs/index.js';"],
  ['any layer → a leaf at the top (clock, errors)', 'src/server/services/jobs.ts', "import type { x } from '../clock.js';\nimport { y } from '../errors.js';\nexport const w = y;"],
  ['config → engines/stt', 'src/server/config.ts', "import { x } from './engines/stt/bindings.js';"],
  ['app → routes/jobs (a route folder, not jobs/)', 'src/server/app.ts', "import { x } from './routes/jobs/index.js';"],
  ['app → plugins and the runtime type', 'src/server/app.ts', "import { x } from './plugins/auth.js';\nimport type { y } from './runtime.js';\nexport type W = y;"],
  ['runtime → work and evaluations', 'src/server/runtime.ts', "import { x } from './work/loop.js';\nimport { z } from './evaluations/service.js';\nexport const w = [x, z];"],
  ['start → app and runtime', 'src/server/start.ts', "import { x } from './app.js';\nimport { y } from './runtime.js';\nexport const w = y;"],
];

describe('layer rules (eslint.config.js)', () => {
  it.each(wrong)('%s fails lint', async (_name, filePath, code) => {
    expect(await layerErrors(filePath, code)).toHaveLength(1);
  });

  it.each(allowed)('%s passes', async (_name, filePath, code) => {
    expect(await layerErrors(filePath, code)).toEqual([]);
  });

  it('every folder of src/server has a zone (a new folder must be placed in the table of eslint.config.js)', async () => {
    const folders = readdirSync('src/server', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.length).toBeGreaterThan(5);
    for (const folder of folders) {
      // No folder may import the composition root: a folder without a zone would let it through.
      expect(await layerErrors(`src/server/${folder}/probe.ts`, "import { x } from '../runtime.js';"), folder).toHaveLength(1);
    }
  });

  it('the server never writes to the console (it logs through runtime.logger)', async () => {
    const lint = async (filePath: string) =>
      (await eslint.lintText("export const f = (): void => console.error('x');\n", { filePath }))[0]!.messages.filter((m) => m.ruleId === 'no-restricted-properties');
    expect(await lint('src/server/work/index.ts')).toHaveLength(1);
    expect(await lint('src/cli/main.ts')).toEqual([]);
  });
});
