import type { Db } from '../storage/db.js';
import type { Health } from '../../shared/schemas/system.js';
import { VERSION } from '../../shared/version.js';

type SttState = 'ok' | 'unavailable' | 'not_configured';

/** `/health` (DESIGN §4.4): degraded (503) when the database cannot answer `SELECT 1`. */
export async function checkHealth(opts: {
  db: Db;
  startedAt: Date;
  now: Date;
  tts?: { status(): 'ok' | 'unavailable' };
  sttHealth?: () => Record<string, SttState>;
}): Promise<{ statusCode: 200 | 503; body: Health }> {
  let database: 'ok' | 'unavailable' = 'ok';
  try {
    await opts.db.value('SELECT 1');
  } catch {
    database = 'unavailable';
  }
  let tts: 'ok' | 'unavailable' = 'unavailable';
  try {
    tts = opts.tts?.status() ?? 'unavailable';
  } catch {
    tts = 'unavailable';
  }
  let stt: Record<string, SttState> = {};
  try {
    stt = opts.sttHealth?.() ?? {};
  } catch {
    stt = {};
  }
  const ok = database === 'ok';
  return {
    statusCode: ok ? 200 : 503,
    body: {
      status: ok ? 'ok' : 'degraded',
      version: VERSION,
      uptime_seconds: Math.max(0, Math.round((opts.now.getTime() - opts.startedAt.getTime()) / 1000)),
      checks: { database, tts, stt },
    },
  };
}
