#!/usr/bin/env node
// Run by `npm run build` after tsc: copies the data files that live beside the code reading them
// (src/**/*.sql and src/**/*.json: migrations, their baselines, the speaker seed) to the same place under
// dist/, which tsc does not do. Files that dist/ has from an earlier build and src/ no longer has are
// removed, so a deleted migration cannot be picked up from a stale build.
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const ASSET = /\.(sql|json)$/;

/** Every asset file under `dir`, as paths relative to it. */
function assets(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => ASSET.test(f) && statSync(join(dir, f)).isFile());
}

const wanted = new Set(assets(src));
for (const f of wanted) cpSync(join(src, f), join(dist, f), { preserveTimestamps: true });
// dist/build-info.json is written by scripts/build-info.mjs, not copied from src.
for (const f of assets(dist)) if (!wanted.has(f) && relative(dist, join(dist, f)) !== 'build-info.json') rmSync(join(dist, f));
