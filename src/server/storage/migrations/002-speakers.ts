import type { Migration } from './index.js';

/** PLACEHOLDER: owned by its workstream; replace with the real tables. */
export const m002Speakers: Migration = {
  version: 2,
  name: 'speakers',
  up() {},
};
