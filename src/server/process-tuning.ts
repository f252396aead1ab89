import { setFlagsFromString } from 'node:v8';

/**
 * Settings for a process whose one job is the service (`voxctl serve`), never for one that embeds it
 * (tests, scripts): V8's flags are process-wide.
 *
 * The main thread's young generation stays at its initial size. Under an evaluation's allocation V8 grew
 * it to 34 MB (semi-spaces of up to 16 MB on Node 20, 64 MB on Node 24 and later) and seldom gave it back,
 * a sixth of the server's peak memory; at its initial size the authenticated routes answer as fast
 * (bench/server.mjs, same run) and the idle server holds ~20 MB less.
 */
export function tuneServiceProcess(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
