import { builtin } from '../../shared/builtin.js';

/**
 * Has V8 compile WebAssembly with its baseline tier only, for the rest of this process. The CLI's only
 * WebAssembly is the HTTP parser of Node's fetch (uploads and streamed bodies): compiled in full, its
 * background optimising compile held the process's exit ~0.1 s. Never in `voxctl serve`, whose speech
 * engines are WebAssembly and need the optimising tier. Called at the first fetch, not at start: loading
 * `node:v8` costs a few ms that the commands without an upload need not pay.
 */
export function useBaselineWasmTier(): void {
  builtin('node:v8').setFlagsFromString('--liftoff-only');
}
