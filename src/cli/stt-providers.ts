import type { SPEC_PROVIDERS, LOCAL_PROVIDERS } from '../shared/schemas/stt.js';

/**
 * Every provider token the service accepts (DESIGN §4.11). Mirrors `ALL_PROVIDERS` of the shared
 * schema without importing TypeBox at CLI startup; test/unit/cli/stt.test.ts checks they are equal.
 */
export const ALL_PROVIDERS: readonly ((typeof SPEC_PROVIDERS)[number] | (typeof LOCAL_PROVIDERS)[number])[] = [
  'stt-a-model-1',
  'stt-a-model-2',
  'stt-b',
  'stt-c',
  'stt-d',
  'stt-e',
  'stt-f',
  'stt-g',
  'stt-h',
  'local-sphinx',
];
