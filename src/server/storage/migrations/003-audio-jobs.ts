import type { Migration } from './index.js';

/** PLACEHOLDER: owned by its workstream; replace with the real tables. */
export const m003Audio: Migration = {
  version: 3,
  name: 'audio-jobs',
  up() {},
};
