import { join } from 'node:path';
import type { Db } from '../sql/types.js';
import { createDatabaseBlobStore } from './database.js';
import { createFilesystemBlobStore } from './filesystem.js';
import type { AudioBlobStore } from './types.js';

export type { AudioBlobStore, ByteRange, PutOptions } from './types.js';
export { BlobNotFoundError } from './types.js';

/** What `voxctl serve` knows when it picks the audio store. */
export interface AudioBlobStoreConfig {
  dataDir: string;
  db: Db;
  /** `--audio-store`: `s3://bucket/prefix`, `database` or `filesystem`; unset = by database dialect. */
  audioStore?: string;
  /** `--s3-endpoint`, for S3-compatible stores. */
  s3Endpoint?: string;
  /** The bucket's region (`AWS_REGION`, read with the flags). */
  s3Region?: string;
}

/** The store and a `close` for shutdown (the S3 client keeps sockets open). */
export interface OpenedBlobStore {
  store: AudioBlobStore;
  kind: 'filesystem' | 'database' | 's3';
  close(): void;
}

/**
 * Picks the audio store (DESIGN §9.2): an `s3://` URL names a bucket; otherwise audio lives in the
 * database on PostgreSQL (every instance must read every blob) and in `{dataDir}/audio` on SQLite.
 * Rejects a combination that cannot work (a local folder shared by PostgreSQL instances, an endpoint without a bucket).
 */
export async function openAudioBlobStore(config: AudioBlobStoreConfig): Promise<OpenedBlobStore> {
  const choice = config.audioStore ?? (config.db.dialect === 'postgres' ? 'database' : 'filesystem');
  if (config.s3Endpoint !== undefined && !choice.startsWith('s3://')) throw new Error('--s3-endpoint needs --audio-store s3://bucket/prefix');
  if (choice.startsWith('s3://')) {
    // Loaded only here: the AWS SDK is large, and an instance without S3 should not pay for it at start-up.
    const { createS3BlobStore } = await import('./s3.js');
    const store = createS3BlobStore({ url: choice, ...(config.s3Endpoint ? { endpoint: config.s3Endpoint } : {}), ...(config.s3Region ? { region: config.s3Region } : {}) });
    return { store, kind: 's3', close: () => store.client.destroy() };
  }
  if (choice === 'database') return { store: createDatabaseBlobStore(config.db), kind: 'database', close: () => {} };
  if (choice === 'filesystem') {
    // Instances on other machines could not read each other's files.
    if (config.db.dialect === 'postgres') throw new Error('--audio-store filesystem cannot be shared by several instances; use database or s3://bucket/prefix');
    return { store: createFilesystemBlobStore(join(config.dataDir, 'audio')), kind: 'filesystem', close: () => {} };
  }
  throw new Error(`Unknown --audio-store ${JSON.stringify(choice)}: expected s3://bucket/prefix, database or filesystem`);
}
