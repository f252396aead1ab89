import type { SqlMigration } from './types.js';
import { schemaRepairMigration } from './a-schema-repair.js';
import { userDisabledMigration } from './b-user-disabled.js';
import { evaluationSetupMigration } from './c-evaluation-setup.js';
import { speakersEngineIndexMigration } from './d-speakers-engine-index.js';
import { corporaMigration } from './e-corpora.js';
import { corpusEvaluationsMigration } from './f-corpus-evaluations.js';
import { streamingEvaluationsMigration } from './g-streaming-evaluations.js';
import { probesMigration } from './h-probes.js';
import { eventLoopLagMigration } from './i-event-loop-lag.js';
import { migrationCompatibilityMigration } from './j-migration-compatibility.js';

export type { SqlMigration } from './types.js';

/**
 * The migrations written as a text per dialect, in order, applied after each dialect's legacy ones: on
 * SQLite the migration at position p (from 1) is version 6 + p, on PostgreSQL 2 + p (DESIGN §9.5:
 * numbered per dialect). Closed: a new migration is one file in ../sql/ (the format of ../sql-file.ts,
 * both dialects in one text); never reorder, edit or remove a published entry.
 */
export const NEXT_MIGRATIONS: readonly SqlMigration[] = [schemaRepairMigration, userDisabledMigration, evaluationSetupMigration, speakersEngineIndexMigration, corporaMigration, corpusEvaluationsMigration, streamingEvaluationsMigration, probesMigration, eventLoopLagMigration, migrationCompatibilityMigration];
