#!/usr/bin/env node
// Run by `npm run build`: records the commit being built in dist/build-info.json, so a build copied
// without its .git (a container image, a packed tarball) still reports it in --version and /health.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

// A build without .git (a container image) is told its commit: docker build --build-arg VOXCTL_COMMIT=$(git rev-parse HEAD).
let commit = /^[0-9a-f]{40}$/.test(process.env.VOXCTL_COMMIT ?? '') ? process.env.VOXCTL_COMMIT : null;
if (!commit) try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  // Not a git checkout (or no git): version.ts falls back to reading .git, else reports null.
}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', JSON.stringify({ commit }) + '\n');
