import type pg from 'pg';

/** One PostgreSQL schema step; `up` runs inside the migration's transaction on the locked connection. */
export interface PostgresMigration {
  version: number;
  name: string;
  up(client: pg.ClientBase): Promise<void>;
}
