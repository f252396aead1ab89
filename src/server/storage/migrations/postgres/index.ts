import type { PostgresMigration } from './types.js';
import { p001Initial } from './001-initial.js';
import { p002ScaleOut } from './002-scale-out.js';

/**
 * The legacy PostgreSQL migrations, written as code (numbered on their own: PostgreSQL's 1 is SQLite's
 * 1-5). Closed: later migrations are SQL text in ../next/ (the runner, ../runner.ts, applies both).
 */
export const postgresMigrations: PostgresMigration[] = [p001Initial, p002ScaleOut];
