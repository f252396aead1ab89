import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection of the calling thread's isolate, or `undefined` where V8 does not provide one.
 * Flite makes a WebAssembly instance (16 MB or more of linear memory) per call, and V8 frees a dead
 * instance's memory only when it collects, which a worker's small JS heap seldom asks for: dead instances
 * piled up to ~180 MB per worker between collections. `--expose-gc` set at run time installs `gc` in the
 * contexts created after it, hence the new context.
 */
export function fullGarbageCollector(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  return typeof gc === 'function' ? () => void (gc as () => void)() : undefined;
}
