import { existsSync, readFileSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The package version, read once from package.json (works from src/ and dist/). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The git commit of this build (DESIGN §14.8), so two builds of one version are told apart: the one
 * `npm run build` recorded in `dist/build-info.json` (a packed or copied install has no .git), else the
 * checkout's HEAD read from `.git` directly (no git binary needed), else null.
 */
export const COMMIT: string | null = buildInfoCommit() ?? gitHeadCommit();

function buildInfoCommit(): string | null {
  // Beside the built modules (dist/build-info.json from dist/shared/); run from src/ there is none, and the
  // checkout's HEAD is the truth.
  const file = new URL('../build-info.json', import.meta.url);
  if (!existsSync(file)) return null;
  try {
    const commit = (JSON.parse(readFileSync(file, 'utf8')) as { commit?: unknown }).commit;
    return typeof commit === 'string' && /^[0-9a-f]{40}$/.test(commit) ? commit : null;
  } catch {
    return null;
  }
}

/** Resolves `.git/HEAD` (a worktree's `.git` file, a symbolic ref, loose or packed refs) to a commit id. */
export function gitHeadCommit(root: URL = new URL('../../', import.meta.url)): string | null {
  const dotGit = new URL('.git', root);
  try {
    if (!existsSync(dotGit)) return null;
    if (statSync(dotGit).isDirectory()) return resolveHead(new URL('.git/', root));
    // A linked worktree or submodule: `.git` is a file naming the real git dir.
    const target = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    return target ? resolveHead(pathToFileURL(`${target.replace(/\/$/, '')}/`)) : null;
  } catch {
    return null;
  }
}

function resolveHead(gitDir: URL): string | null {
  try {
    const head = readFileSync(new URL('HEAD', gitDir), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (!ref) return null;
    // A linked worktree keeps HEAD in its own folder but refs in the common dir.
    const commondir = new URL('commondir', gitDir);
    const common = existsSync(commondir) ? new URL(`${readFileSync(commondir, 'utf8').trim().replace(/\/?$/, '/')}`, gitDir) : gitDir;
    for (const dir of [gitDir, common]) {
      const loose = new URL(ref, dir);
      if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
      const packed = new URL('packed-refs', dir);
      if (existsSync(packed)) {
        const line = readFileSync(packed, 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`));
        if (line) return line.slice(0, 40);
      }
    }
    return null;
  } catch {
    return null;
  }
}

/** What `voxctl --version` prints: the version, and the commit when known (`0.1.0 (commit 1a2b…)`). */
export const versionLine = (): string => (COMMIT ? `${VERSION} (commit ${COMMIT})` : VERSION);
