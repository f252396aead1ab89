/**
 * Start-up clean-up of corpus uploads a crash interrupted (DESIGN §10.3: nothing half-stored survives a
 * SIGKILL). Their folders under `{dataDir}/tmp/corpora` are removed, and so are the blobs of every upload
 * row whose writer is gone: on SQLite every row (one process per data dir, and it is starting); on a shared
 * PostgreSQL the rows of an instance that no longer heartbeats, or whose process on this host has exited.
 */
import { readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../storage/db.js';
import type { AudioBlobStore } from '../../storage/blobs/index.js';
import { listCorpusUploads } from './repository.js';
import { discardUpload } from './upload.js';

/** True when a process with this pid runs on this machine. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** What the clean-up removed. */
export interface CorpusRecovery {
  folders: number;
  uploads: number;
}

/**
 * Removes the debris of interrupted uploads. `shared`: other instances may be uploading right now, so
 * only the work of dead writers is touched; `deadBefore`: a peer silent since then is dead.
 */
export async function recoverCorpusUploads(o: { db: Db; blobs: AudioBlobStore; tmpRoot: string; shared: boolean; self: string; deadBefore: Date }): Promise<CorpusRecovery> {
  let folders = 0;
  const names = await readdir(o.tmpRoot).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (o.shared && Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) continue;
    if (o.shared && pid === process.pid) continue;
    await rm(join(o.tmpRoot, name), { recursive: true, force: true });
    folders++;
  }
  let uploads = 0;
  const here = hostname();
  for (const u of await listCorpusUploads(o.db)) {
    if (o.shared) {
      if (u.owner === o.self) continue;
      const silent = u.owner_heartbeat_at === null || u.owner_heartbeat_at < o.deadBefore.toISOString();
      const exitedHere = u.host === here && !processAlive(u.pid);
      if (!silent && !exitedHere) continue;
    }
    await discardUpload(o.db, o.blobs, u);
    uploads++;
  }
  return { folders, uploads };
}
