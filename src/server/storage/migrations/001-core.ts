import type { Migration } from './index.js';

/** PLACEHOLDER: owned by its workstream; replace with the real tables. */
export const m001Core: Migration = {
  version: 1,
  name: 'core',
  up() {},
};
