import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Brings `dist/` up to date before any test imports it (see vitest.config.ts); fails the run on a build error. */
export default function setup(): void {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('`npm run build` failed (above): the tests run the build in dist/.');
}
