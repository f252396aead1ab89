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
  ['services → billing (no services ↔ billing cycle)', 'src/server/services/quota.ts', "import { x } from '../billing/service.js';"],
  ['shared → server', 'src/shared/normalize.ts', "import { x } from '../server/errors.js';"],
  ['shared → cli', 'src/shared/schemas/common.ts', "import { x } from '../../cli/errors.js';"],
  ['client → cli', 'src/client/client.ts', "import { x } from '../cli/errors.js';"],
  ['cli → server (static)', 'src/cli/commands/tts.ts', "import { x } from '../../server/errors.js';"],
  ['cli → server (lazy, not an entry point)', 'src/cli/commands/tts.ts', "const { x } = await import('../../server/start.js');"],
  ['serve → a server module other than start', 'src/cli/commands/serve.ts', "const { x } = await import('../../server/app.js');"],
  ['admin → a server module other than its entry', 'src/cli/commands/admin.ts', "const { x } = await import('../../server/storage/db.js');"],
  ['better-sqlite3 value import outside the driver seam', 'src/server/storage/db.ts', "import x from 'better-sqlite3';"],
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
];

describe('layer rules (eslint.config.js)', () => {
  it.each(wrong)('%s fails lint', async (_name, filePath, code) => {
    expect(await layerErrors(filePath, code)).toHaveLength(1);
  });

  it.each(allowed)('%s passes', async (_name, filePath, code) => {
    expect(await layerErrors(filePath, code)).toEqual([]);
  });

  it('the server never writes to the console (it logs through runtime.logger)', async () => {
    const lint = async (filePath: string) =>
      (await eslint.lintText("export const f = (): void => console.error('x');\n", { filePath }))[0]!.messages.filter((m) => m.ruleId === 'no-restricted-properties');
    expect(await lint('src/server/jobs/index.ts')).toHaveLength(1);
    expect(await lint('src/cli/main.ts')).toEqual([]);
  });
});
