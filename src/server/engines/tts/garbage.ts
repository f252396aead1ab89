import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection of the calling thread's isolate, or `undefined` where V8 does not provide one.
 * The TTS pool runs it on the main thread after loading a shared asset: compiling Flite leaves the 21 MB
 * file it read as garbage that a server's small main-thread heap might otherwise hold for minutes.
 * `--expose-gc` set at run time installs `gc` in the contexts created after it, hence the new context.
 */
export function fullGarbageCollector(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  return typeof gc === 'function' ? () => void (gc as () => void)() : undefined;
}
