/**
 * What the server's worker threads share (the TTS engines, the corpus decoders): where a worker's built
 * script is, and a Worker started with the parent's Node options less those a worker refuses.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Where the worker entry `file` beside the module at `moduleUrl` is. Running from TypeScript sources
 * (vitest), the worker must still be plain JavaScript, so `src/**.ts` maps to the build output
 * `dist/**.js` (`npm test` builds first).
 */
export function resolveWorkerUrl(moduleUrl: string, file: string): URL {
  let base = moduleUrl;
  if (base.endsWith('.ts')) {
    const at = base.lastIndexOf('/src/');
    if (at < 0) throw new Error(`Cannot locate the built worker ${file} for ${moduleUrl}`);
    base = `${base.slice(0, at)}/dist/${base.slice(at + 5, -3)}.js`;
  }
  const url = new URL(`./${file}`, base);
  if (!existsSync(fileURLToPath(url))) throw new Error(`The worker script ${fileURLToPath(url)} is missing: run npm run build`);
  return url;
}

/**
 * The parent's Node options minus those a worker refuses (`node -e`, `--input-type`): a server started
 * from an inline script must still get working workers.
 */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    if (/^(-e|-p|-pe|--eval|--print)$/.test(arg)) {
      i++; // and its script
      continue;
    }
    if (/^(--eval|--print|--input-type)(=|$)/.test(arg)) {
      if (arg === '--input-type') i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/**
 * The options a Worker constructor refused (`ERR_WORKER_INVALID_EXEC_ARGV`, whose message lists them), or
 * `undefined` for any other error. `node --max-old-space-size=512 voxctl serve` would otherwise fail to start.
 */
export function refusedExecArgv(err: unknown): string[] | undefined {
  if ((err as { code?: unknown } | null)?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') return undefined;
  const list = /flags: (.+)$/.exec((err as Error).message)?.[1];
  return list ? list.split(', ') : undefined;
}

/**
 * Starts the worker at `url` with the parent's Node options (`workerExecArgv`); the V8 flags Node refuses
 * to hand a worker (`--max-old-space-size`, `--expose-gc`, …) are dropped, since they are process-wide and
 * the worker has them anyway.
 */
export function startWorker(url: URL, resourceLimits?: ResourceLimits): Worker {
  const execArgv = workerExecArgv();
  try {
    return new Worker(url, { execArgv, resourceLimits });
  } catch (err) {
    const refused = refusedExecArgv(err);
    if (!refused) throw err;
    return new Worker(url, { execArgv: execArgv.filter((arg) => !refused.includes(arg)), resourceLimits });
  }
}
