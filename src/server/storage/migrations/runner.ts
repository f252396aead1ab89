import type { Db } from '../sql/types.js';
import { knownMigrations, type KnownMigration } from './known.js';
import { newerSchemaError } from './schema-version.js';
import { applyBaseline, readBaseline, type Baseline } from './baseline.js';

/** The refusal to run on a database whose applied migration no longer matches the code (DESIGN §14.1). */
export class MigrationChangedError extends Error {
  constructor(
    readonly version: number,
    readonly migration: string,
  ) {
    super(`Migration ${version} (${migration}) was changed after it was applied`);
    this.name = 'MigrationChangedError';
  }
}

/** One applied migration as `voxctl admin schema` shows it. */
export interface AppliedMigration {
  version: number;
  name: string;
  /** ISO time; for a SQLite migration applied before checksums were recorded, when they were first recorded. */
  applied_at: string | null;
  /**
   * `ok`: the recorded checksum is the code's, a known earlier text of a legacy migration, or not recorded
   * yet (the next migrate records it); `changed`: none of those; `unknown`: a version this voxctl does not know.
   */
  checksum: 'ok' | 'changed' | 'unknown';
  /** As recorded (DESIGN §14.13); null when it was applied before migration-compatibility recorded it. */
  compatible: boolean | null;
}

/** What the database holds against what this voxctl knows. */
export interface SchemaStatus {
  dialect: Db['dialect'];
  applied: AppliedMigration[];
  pending: { version: number; name: string }[];
}

interface Row {
  version: number;
  name: string;
  checksum: string | null;
  applied_at: string | Date | null;
  /** 1/0 on SQLite, boolean on PostgreSQL, null before the column existed. */
  compatible: number | boolean | null;
}

// Legacy SQLite migrations 1-3 were placeholders in the scaffold (9331b71): a database of that time
// records user_version 3 without their tables. A version whose first table is absent never really ran.
const SQLITE_MARKER_TABLES = ['users', 'speakers', 'jobs'];

const TRACKING_DDL = {
  sqlite: `CREATE TABLE IF NOT EXISTS voxctl_schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`,
  // Databases of earlier releases have the table without `checksum`: it is added, then back-filled.
  postgres: `CREATE TABLE IF NOT EXISTS voxctl_schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
  );
  ALTER TABLE voxctl_schema_migrations ADD COLUMN IF NOT EXISTS checksum TEXT`,
};

/**
 * Brings the database to the newest schema this voxctl knows, through the storage seam, for both
 * dialects: refuses a newer schema (§9.5) and an applied migration whose checksum differs from the code's
 * (§14.1) before changing anything; makes an empty database from the baseline (baseline.ts), which records
 * the migrations it stands for; back-fills the checksums of migrations applied before they were
 * recorded, then applies each pending migration in its own transaction with its row in
 * `voxctl_schema_migrations` (and, on SQLite, `user_version`, which older voxctl versions read).
 * On PostgreSQL the caller holds the migration advisory lock.
 */
export async function migrateSchema(db: Db, now: () => Date = () => new Date(), options: MigrateOptions = {}): Promise<SchemaStatus> {
  const known = options.known ?? (await knownMigrations(db.dialect));
  let state = await readState(db, known);
  check(state, known);
  const baseline = options.baseline === undefined ? readBaseline(db.dialect) : (options.baseline ?? undefined);
  if (baseline !== undefined && baseline.version <= known.length && state.applied.size === 0 && state.highest === 0) {
    // An empty database: made in one step from the baseline, its migrations recorded as applied by it.
    await db.transaction(
      async () => {
        // Another process may have made it since we looked (SQLite has no advisory lock).
        if (!(await trackingTable(db)).exists) await applyBaseline(db, baseline);
      },
      { isolation: 'read committed' },
    );
    state = await readState(db, known);
  }
  await db.exec(TRACKING_DDL[db.dialect]);
  await db.transaction(async () => backfill(db, known, state.legacyApplied, now()));
  for (const m of known) {
    if (state.applied.has(m.version)) continue;
    await db.transaction(
      async () => {
        // Another process may have applied it since we looked (SQLite has no advisory lock).
        if (await db.value('SELECT 1 FROM voxctl_schema_migrations WHERE version = ?', [m.version])) return;
        await m.apply(db);
        if (db.dialect === 'sqlite') await db.exec(`PRAGMA user_version = ${m.version}`);
        const row = [m.version, m.name, m.checksum, now().toISOString()];
        // From migration-compatibility on (it adds the column), each row says whether it is compatible.
        if ((await trackingTable(db)).compatible) {
          // TRUE/FALSE: a boolean on PostgreSQL, 1/0 on SQLite.
          await db.run(`INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (?, ?, ?, ?, ${m.compatible ? 'TRUE' : 'FALSE'})`, row);
        } else {
          await db.run('INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)', row);
        }
      },
      { isolation: 'read committed' },
    );
  }
  return statusOf(db, known);
}

/** What `migrateSchema` knows besides the database (both default to this build's; tests give their own). */
export interface MigrateOptions {
  /** Every migration, in order. */
  known?: KnownMigration[];
  /** The schema an empty database is made from in one step; null: an empty database replays every migration. */
  baseline?: Baseline | null;
}

/** Reads what is applied and what is pending, changing nothing (`voxctl admin schema`). */
export async function inspectSchema(db: Db): Promise<SchemaStatus> {
  return statusOf(db, await knownMigrations(db.dialect));
}

async function statusOf(db: Db, known: KnownMigration[]): Promise<SchemaStatus> {
  const state = await readState(db, known);
  const byVersion = new Map(known.map((m) => [m.version, m]));
  const applied = [...state.applied.values()]
    .sort((a, b) => a.version - b.version)
    .map((r): AppliedMigration => {
      const m = byVersion.get(r.version);
      return {
        version: r.version,
        name: m?.name ?? r.name,
        applied_at: r.applied_at === null ? null : new Date(r.applied_at).toISOString(),
        checksum: m === undefined ? 'unknown' : r.checksum === null || accepts(m, r.checksum) ? 'ok' : 'changed',
        compatible: r.compatible === null ? null : Boolean(r.compatible),
      };
    });
  return { dialect: db.dialect, applied, pending: known.filter((m) => !state.applied.has(m.version)).map(({ version, name }) => ({ version, name })) };
}

/** The status of a database that does not exist yet: every migration pending. */
export async function unmigratedStatus(dialect: Db['dialect']): Promise<SchemaStatus> {
  return { dialect, applied: [], pending: (await knownMigrations(dialect)).map(({ version, name }) => ({ version, name })) };
}

interface State {
  /** Applied versions: recorded rows, plus on SQLite the legacy versions `user_version` says ran (no checksum yet). */
  applied: Map<number, Row>;
  /** Highest version the database says it has. */
  highest: number;
  /** Legacy versions applied whose checksum is not recorded yet. */
  legacyApplied: number[];
}

async function readState(db: Db, known: KnownMigration[]): Promise<State> {
  const legacyCount = known.filter((m) => m.format === 'legacy').length;
  const table = await trackingTable(db);
  const rows = table.exists
    ? await db.all<Row>(
        `SELECT version, name, ${table.checksum ? 'checksum' : 'NULL AS checksum'}, applied_at, ${table.compatible ? 'compatible' : 'NULL AS compatible'} FROM voxctl_schema_migrations ORDER BY version`,
      )
    : [];
  const applied = new Map(rows.map((r) => [r.version, r]));
  let highest = rows.reduce((max, r) => Math.max(max, r.version), 0);
  if (db.dialect === 'sqlite') {
    const userVersion = await sqliteLegacyVersion(db);
    highest = Math.max(highest, userVersion);
    for (let v = 1; v <= Math.min(userVersion, legacyCount); v++) {
      if (!applied.has(v)) applied.set(v, { version: v, name: known[v - 1]!.name, checksum: null, applied_at: null, compatible: null });
    }
  }
  const legacyApplied = [...applied.values()].filter((r) => r.checksum === null && r.version <= legacyCount).map((r) => r.version);
  return { applied, highest, legacyApplied };
}

function check(state: State, known: KnownMigration[]): void {
  if (state.highest > known.length && !newerAllCompatible(state, known)) throw newerSchemaError(state.highest, known.length);
  for (const m of known) {
    const row = state.applied.get(m.version);
    if (row?.checksum != null && !accepts(m, row.checksum)) throw new MigrationChangedError(m.version, m.name);
  }
}

/**
 * Whether every migration newer than this voxctl is recorded compatible (DESIGN §14.13): then it runs on
 * the schema as it is (a newer release migrated first, or this is a rollback) instead of refusing it.
 */
function newerAllCompatible(state: State, known: KnownMigration[]): boolean {
  const newer = [...state.applied.values()].filter((r) => r.version > known.length);
  const recorded = newer.reduce((max, r) => Math.max(max, r.version), 0);
  return newer.length > 0 && recorded === state.highest && newer.every((r) => r.compatible === true || r.compatible === 1);
}

/** The schema against this voxctl (`/health`'s `schema`): `newer_compatible` when newer migrations are all compatible. */
export function schemaState(status: SchemaStatus): 'current' | 'newer_compatible' | 'newer' {
  const newer = status.applied.filter((m) => m.checksum === 'unknown');
  if (newer.length === 0) return 'current';
  return newer.every((m) => m.compatible === true) ? 'newer_compatible' : 'newer';
}

const accepts = (m: KnownMigration, checksum: string): boolean => checksum === m.checksum || m.accepted.includes(checksum);

/**
 * Records a checksum for the legacy migrations applied before checksums existed. Which text ran is
 * unknowable; the code's current text is recorded because this same run applies `schema-repair`, which
 * brings a database made with any earlier text of a legacy migration to what the current text makes.
 */
async function backfill(db: Db, known: KnownMigration[], versions: number[], at: Date): Promise<void> {
  for (const v of versions) {
    const m = known[v - 1]!;
    if (db.dialect === 'postgres') {
      await db.run('UPDATE voxctl_schema_migrations SET checksum = ? WHERE version = ? AND checksum IS NULL', [m.checksum, v]);
    } else {
      await db.run('INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?) ON CONFLICT (version) DO NOTHING', [
        v,
        m.name,
        m.checksum,
        at.toISOString(),
      ]);
    }
  }
}

/** Whether the tracking table exists, and whether it has `checksum` (PostgreSQL tables of earlier releases do not) and `compatible`. */
async function trackingTable(db: Db): Promise<{ exists: boolean; checksum: boolean; compatible: boolean }> {
  const columns =
    db.dialect === 'sqlite'
      ? await db.column<string>("SELECT name FROM pragma_table_info('voxctl_schema_migrations')")
      : await db.column<string>(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'voxctl_schema_migrations'",
        );
  return { exists: columns.length > 0, checksum: columns.includes('checksum'), compatible: columns.includes('compatible') };
}

async function sqliteLegacyVersion(db: Db): Promise<number> {
  const userVersion = (await db.value<number>('PRAGMA user_version')) ?? 0;
  for (let v = 1; v <= Math.min(userVersion, SQLITE_MARKER_TABLES.length); v++) {
    const present = await db.value("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [SQLITE_MARKER_TABLES[v - 1]!]);
    if (present === undefined) return v - 1;
  }
  return userVersion;
}
