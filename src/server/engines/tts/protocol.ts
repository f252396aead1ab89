/** Messages between the TTS pool (main thread) and its worker threads. */
import type { SerializedTtsError } from './errors.js';
import type { SharedAsset, SharedAssetName } from './shared-assets.js';
import type { TtsEngineName, VoiceBinding } from './types.js';

/** Pool → worker: synthesise one piece. `attempt` is 1, or 2 when retried after a worker crash. */
export interface SynthesizeRequest {
  type: 'synthesize';
  id: number;
  text: string;
  voice: VoiceBinding;
  attempt: number;
}

/** Worker → pool: the piece's PCM (its buffer is transferred, not copied). */
export interface SynthesizeSuccess {
  type: 'result';
  id: number;
  pcm: ArrayBuffer;
  sampleRate: number;
}

/** Worker → pool: the piece failed for a reason a retry would not fix. */
export interface SynthesizeFailure {
  type: 'error';
  id: number;
  error: SerializedTtsError;
}

/** Worker → pool: whether an engine loaded (drives the pool's `status()`). */
export interface EngineStatus {
  type: 'engine';
  engine: TtsEngineName;
  ok: boolean;
  message?: string;
}

/** Worker → pool: send a shared asset (loaded once per process, see shared-assets.ts). */
export interface AssetRequest {
  type: 'asset';
  name: SharedAssetName;
}

/** Pool → worker: the asset, or why it could not be loaded. */
export interface AssetReply {
  type: 'asset';
  name: SharedAssetName;
  value?: SharedAsset;
  message?: string;
}

export type WorkerReply = SynthesizeSuccess | SynthesizeFailure | EngineStatus | AssetRequest;

/**
 * Test hooks, honoured only when the worker's environment has VOXCTL_TTS_TEST_HOOKS=1: a piece whose
 * text contains one of these markers makes the worker exit (every time / on the first attempt only),
 * fail like a broken engine, or hang. Without the variable the markers are ordinary text.
 */
export const TEST_HOOKS_ENV = 'VOXCTL_TTS_TEST_HOOKS';
export const TEST_CRASH = '[[test:crash]]';
export const TEST_CRASH_FIRST = '[[test:crash-first]]';
export const TEST_FAIL = '[[test:fail]]';
/** Blocks the worker forever (exercises the pool's task timeout). */
export const TEST_HANG = '[[test:hang]]';
