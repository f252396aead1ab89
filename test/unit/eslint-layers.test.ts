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
  ['shared → server', 'src/shared/normalize.ts', "import { x } from '../server/errors.js';"],
  ['shared → cli', 'src/shared/schemas/common.ts', "import { x } from '../../cli/errors.js';"],
  ['client → cli', 'src/client/client.ts', "import { x } from '../cli/errors.js';"],
  ['cli → server (static)', 'src/cli/tts/tts.ts', "import { x } from '../../server/errors.js';"],
  ['cli → server (lazy, not an entry point)', 'src/cli/tts/tts.ts', "const { x } = await import('../../server/start.js');"],
  ['serve → a server module other than start', 'src/cli/serve/serve.ts', "const { x } = await import('../../server/app.js');"],
  ['admin → a server module other than its entry', 'src/cli/admin/admin.ts', "const { x } = await import('../../server/storage/db.js');"],
  // The CLI: entry → a command group (src/cli/<group>/) → core/; a group never reaches another group.
  ['a cli group → another group', 'src/cli/batch/batch.ts', "import { x } from '../tts/tts.js';"],
  ['a cli group → another group, types only', 'src/cli/corpus/corpus.ts', "import type { x } from '../eval/views.js';"],
  ['a cli group → another group, lazily', 'src/cli/eval/eval.ts', "const { x } = await import('../speakers/speakers.js');"],
  ['serve (a lazy server entry) → another group, lazily', 'src/cli/serve/serve.ts', "const { x } = await import('../admin/admin.js');"],
  ['a cli group → the entry', 'src/cli/tts/tts.ts', "import { x } from '../program.js';"],
  ['cli core → a group', 'src/cli/core/session.ts', "import { x } from '../eval/views.js';"],
  ['cli core → a group, lazily', 'src/cli/core/session.ts', "const { x } = await import('../serve/serve.js');"],
  ['cli core → the entry', 'src/cli/core/util.ts', "import { x } from '../command-groups.js';"],
  ['better-sqlite3 value import outside the driver seam', 'src/server/storage/db.ts', "import x from 'better-sqlite3';"],
  // Infrastructure below the features: it imports no feature.
  ['storage → engines', 'src/server/storage/db.ts', "import { x } from '../engines/tts/catalogue.js';"],
  ['storage → a feature', 'src/server/storage/db.ts', "import { x } from '../features/accounts/index.js';"],
  ['storage → work, three folders down', 'src/server/storage/migrations/postgres/001-initial.ts', "import { x } from '../../../work/loop.js';"],
  ['engines → storage', 'src/server/engines/tts/catalogue.ts', "import { x } from '../../storage/db.js';"],
  ['audio → a feature', 'src/server/audio/decode.ts', "import { x } from '../features/audio/uploads.js';"],
  ['work → a feature (the composition root hands the loop its work kinds)', 'src/server/work/loop.ts', "import { x } from '../features/jobs/index.js';"],
  ['work → plugins', 'src/server/work/loop.ts', "import { x } from '../plugins/errors.js';"],
  ['plugins → storage', 'src/server/plugins/errors.ts', "import { x } from '../storage/db.js';"],
  ['plugins → a feature', 'src/server/plugins/errors.ts', "import { x } from '../features/accounts/index.js';"],
  // A feature reaches another only through its index.ts.
  ['a feature → a file inside another feature', 'src/server/features/jobs/jobs.ts', "import { x } from '../audio/repository.js';"],
  ['a feature → a file inside another, from a subfolder', 'src/server/features/evaluations/report/html.ts', "import { x } from '../../billing/page.js';"],
  ['a feature → a file inside another by way of ../features/', 'src/server/features/jobs/jobs.ts', "import { x } from '../../features/audio/repository.js';"],
  ['a feature → a folder inside another feature', 'src/server/features/billing/page.ts', "import { x } from '../evaluations/report/html.js';"],
  // The top of src/server: wiring files import down; nothing imports them back.
  ['a feature → runtime', 'src/server/features/jobs/jobs.ts', "import type { x } from '../../runtime.js';"],
  ['a feature → the work kinds\' wiring', 'src/server/features/jobs/jobs.ts', "import { x } from '../../work-kinds.js';"],
  ['a feature → start', 'src/server/features/evaluations/service.ts', "import { x } from '../../start.js';"],
  ['engines → config (the adapter list lives in engines/stt)', 'src/server/engines/stt/registry.ts', "import type { x } from '../../config.js';"],
  ['a leaf (clock) → runtime', 'src/server/clock.ts', "import { x } from './runtime.js';"],
  ['a leaf (errors) → storage', 'src/server/errors.ts', "import { x } from './storage/db.js';"],
  ['config → storage', 'src/server/config.ts', "import { x } from './storage/db.js';"],
  ['app → storage', 'src/server/app.ts', "import { x } from './storage/db.js';"],
  ['runtime → plugins', 'src/server/runtime.ts', "import { x } from './plugins/errors.js';"],
  ['runtime → app', 'src/server/runtime.ts', "import { x } from './app.js';"],
  ['work-kinds → plugins', 'src/server/work-kinds.ts', "import { x } from './plugins/errors.js';"],
  ['start → storage', 'src/server/start.ts', "import { x } from './storage/db.js';"],
  ['server → cli', 'src/server/start.ts', "import { x } from '../cli/main.js';"],
  ['server → client', 'src/server/features/jobs/jobs.ts', "import { x } from '../../../client/index.js';"],
];

const allowed: [string, string, string][] = [
  ['cli → client', 'src/cli/tts/tts.ts', "import { x } from '../../client/index.js';"],
  ['cli → server types', 'src/cli/serve/serve.ts', "import type { x } from '../../server/options.js';"],
  ['serve starts the server lazily', 'src/cli/serve/serve.ts', "const { x } = await import('../../server/start.js');"],
  ['admin loads its server entry lazily', 'src/cli/admin/admin.ts', "const { x } = await import('../../server/admin.js');"],
  ['a cli group → core, its own files, command-groups.ts and src/shared', 'src/cli/eval/eval.ts', "import { x } from '../core/session.js';\nimport { y } from './views.js';\nimport { z } from '../command-groups.js';\nimport { v } from '../../shared/constants.js';\nexport const w = [y, z, v];"],
  ['a cli group → its own files lazily', 'src/cli/eval/eval.ts', "const { x } = await import('./dry-run.js');"],
  ['cli core → core', 'src/cli/core/session.ts', "import { x } from './output.js';"],
  ['the cli entry → a group, lazily', 'src/cli/program.ts', "const { x } = await import('./eval/eval.js');"],
  ['the driver seam loads better-sqlite3', 'src/server/storage/sqlite-driver.ts', "import x from 'better-sqlite3';"],
  ['a type import of better-sqlite3', 'src/server/storage/db.ts', "import type x from 'better-sqlite3';"],
  ['storage → shared', 'src/server/storage/repositories/leases.ts', "import { x } from '../../../shared/schemas/users.js';"],
  ['a feature → its own files, infrastructure and src/shared', 'src/server/features/jobs/routes.ts', "import { x } from './jobs.js';\nimport { y } from '../../storage/db.js';\nimport { z } from '../../engines/tts/types.js';\nimport { v } from '../../../shared/errors.js';\nexport const w = [y, z, v];"],
  ['a feature → the work loop and plugins', 'src/server/features/jobs/batch-items-work.ts', "import type { x } from '../../work/kind.js';\nimport { y } from '../../plugins/uploads.js';\nexport const w = y;"],
  ['a feature → another feature\'s index.ts', 'src/server/features/jobs/jobs.ts', "import { x } from '../audio/index.js';"],
  ['a feature subfolder → its own feature and another\'s index.ts', 'src/server/features/evaluations/report/html.ts', "import { x } from '../views.js';\nimport { y } from '../../audio/index.js';\nexport const w = y;"],
  ['work → storage', 'src/server/work/loop.ts', "import { x } from '../storage/db.js';"],
  ['any layer → a leaf at the top (clock, errors)', 'src/server/features/jobs/jobs.ts', "import type { x } from '../../clock.js';\nimport { y } from '../../errors.js';\nexport const w = y;"],
  ['config → engines/stt', 'src/server/config.ts', "import { x } from './engines/stt/bindings.js';"],
  ['app → a feature\'s routes', 'src/server/app.ts', "import { x } from './features/jobs/routes.js';"],
  ['app → plugins and the runtime type', 'src/server/app.ts', "import { x } from './plugins/errors.js';\nimport type { y } from './runtime.js';\nexport type W = y;"],
  ['runtime → features, work and the work kinds', 'src/server/runtime.ts', "import { x } from './features/jobs/jobs.js';\nimport { y } from './work/loop.js';\nimport { z } from './work-kinds.js';\nexport const w = [y, z];"],
  ['work-kinds → a feature\'s work kind and the loop', 'src/server/work-kinds.ts', "import { x } from './features/jobs/batch-items-work.js';\nimport { y } from './work/loop.js';\nexport const w = y;"],
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

  it('every feature folder has its zone: no runtime, and no file inside another feature', async () => {
    const features = readdirSync('src/server/features', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(features.length).toBeGreaterThanOrEqual(10);
    for (const feature of features) {
      const other = features.find((f) => f !== feature)!;
      expect(await layerErrors(`src/server/features/${feature}/probe.ts`, "import { x } from '../../runtime.js';"), feature).toHaveLength(1);
      expect(await layerErrors(`src/server/features/${feature}/probe.ts`, `import { x } from '../${other}/probe.js';`), feature).toHaveLength(1);
      expect(await layerErrors(`src/server/features/${feature}/probe.ts`, `import { x } from '../${other}/index.js';`), feature).toEqual([]);
    }
  });

  it('the server never writes to the console (it logs through runtime.logger)', async () => {
    const lint = async (filePath: string) =>
      (await eslint.lintText("export const f = (): void => console.error('x');\n", { filePath }))[0]!.messages.filter((m) => m.ruleId === 'no-restricted-properties');
    expect(await lint('src/server/work/loop.ts')).toHaveLength(1);
    expect(await lint('src/server/features/jobs/jobs.ts')).toHaveLength(1);
    expect(await lint('src/cli/main.ts')).toEqual([]);
  });
});
