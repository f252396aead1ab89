import { join } from 'node:path';
import type { WorkSharing } from '../../src/server/work/leases.js';
import type { Lease } from '../../src/server/storage/repositories/leases.js';
import { createFilesystemBlobStore } from '../../src/server/storage/blobs/filesystem.js';
import type { AudioBlobStore } from '../../src/server/storage/blobs/index.js';

/** The owner of the leases unit tests take. */
export const TEST_OWNER = 'inst_test';

/** A lease that outlives any test. */
export const TEST_LEASE: Lease = { owner: TEST_OWNER, expiresAt: '9999-12-31T00:00:00.000Z' };

/** One instance alone on its data dir (SQLite): claims work, requeues at start, never polls. */
export const soloWork = (over: Partial<WorkSharing> = {}): WorkSharing => ({ owner: TEST_OWNER, leaseMs: 60_000, shared: false, claims: true, pollMs: 1_000, ...over });

/** The data dir's audio folder as the blob store, as `voxctl serve` on SQLite has it. */
export const dataDirBlobs = (dataDir: string): AudioBlobStore => createFilesystemBlobStore(join(dataDir, 'audio'));
