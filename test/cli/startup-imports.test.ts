import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/voxctl.js', import.meta.url));
const RECORDER = fileURLToPath(new URL('../helpers/record-imports.mjs', import.meta.url));

/** The modules `voxctl args` resolves before it exits. */
async function importsOf(args: string[]): Promise<string[]> {
  const r = await execa(process.execPath, ['--import', RECORDER, BIN, ...args], { reject: false, env: { FORCE_COLOR: '0' }, timeout: 30_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('IMPORT '))
    .map((l) => l.slice('IMPORT '.length));
}

// The CLI's limits, sample rates and statuses come from shared/constants.ts, not from the TypeBox
// schemas or the server: a command's start-up must not pay for either.
const HEAVY = /@sinclair\/typebox|fastify|better-sqlite3|\/dist\/server\//;

describe('what the CLI loads at start-up', () => {
  it('--version loads nothing but the entry and the version', async () => {
    const ours = (await importsOf(['--version'])).filter((u) => u.startsWith('file:') && !u.endsWith('record-imports.mjs'));
    expect(ours.map((u) => u.replace(/^.*\/(bin|dist)\//, '$1/'))).toEqual(['bin/voxctl.js', 'dist/cli/main.js', 'dist/shared/version.js']);
  });

  it.each([['batch', 'submit', '--help'], ['tts', 'say', '--help'], ['dataset', 'upload', '--help'], ['serve', '--help']])(
    '%s %s %s loads no schema library, web framework, database driver or server module',
    async (...args) => {
      const heavy = (await importsOf(args)).filter((u) => HEAVY.test(u));
      expect(heavy).toEqual([]);
    },
  );

  it('a command loads its own command group only, and --help none of them', async () => {
    // src/cli/<group>/ holds a command group; src/cli/core/ is shared by all of them and is not one.
    const groupsOf = (urls: string[]) => [...new Set(urls.map((u) => /\/dist\/cli\/(?!core\/)([^/]+)\/[^/]+$/.exec(u)?.[1]).filter((g) => g !== undefined))];
    expect(groupsOf(await importsOf(['speakers', 'list', '--help']))).toEqual(['speakers']);
    expect(groupsOf(await importsOf(['--help']))).toEqual([]);
    // The eval group pulls its own helpers (views, watch, request) and core/, no other group (corpus upload is core's).
    expect(groupsOf(await importsOf(['eval', 'run', '--help']))).toEqual(['eval']);
  });
});
