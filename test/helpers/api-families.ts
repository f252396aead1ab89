import { call } from './core-http.js';

/** One request of the family walk and what it answered. */
export interface FamilyCall {
  family: string;
  request: string;
  status: number;
  text: string;
}

/**
 * Walks every API family once with `key` — the requests an upgraded deployment's users make first
 * (health, users, keys incl. a revocation, speakers, synthesis and its signed audio, batch jobs, audio,
 * STT accuracy/providers/transcription, datasets, billing, evaluations) — and returns each answer, so an
 * upgrade test can say which family a schema gap broke.
 */
export async function walkApiFamilies(server: { url: string }, key: string): Promise<FamilyCall[]> {
  const out: FamilyCall[] = [];
  const req = async (family: string, method: string, path: string, json?: unknown, useKey: string | undefined = key) => {
    const r = await call(server, method, path, { ...(useKey ? { key: useKey } : {}), ...(json === undefined ? {} : { json }) });
    out.push({ family, request: `${method} ${path}`, status: r.status, text: r.text.slice(0, 300) });
    return r;
  };
  await req('health', 'GET', '/health', undefined, undefined);
  await req('users', 'GET', '/v1/users/me');
  await req('users', 'GET', '/v1/users/usage');
  const created = await req('keys', 'POST', '/v1/keys', { name: 'after-upgrade' });
  await req('keys', 'GET', '/v1/keys');
  if (created.status === 201) {
    await req('keys', 'GET', '/v1/users/me', undefined, created.body.key as string);
    await req('keys', 'DELETE', `/v1/keys/${created.body.id as string}`);
    // A revoked key must stop working at once (on PostgreSQL through the cache epoch's triggers).
    await req('keys', 'GET', '/v1/users/me', undefined, created.body.key as string);
  }
  const speakers = await req('speakers', 'GET', '/v1/speakers?limit=2');
  await req('speakers', 'GET', '/v1/speakers/facets');
  const speakerId = speakers.body?.items?.[0]?.id as string | undefined;
  if (speakerId) await req('speakers', 'GET', `/v1/speakers/${speakerId}`);
  const synth = await req('tts', 'POST', '/v1/tts/synthesize', { speaker_id: speakerId, text: 'Upgrade check.' });
  const audioUrl = synth.body?.audio_url as string | undefined;
  if (audioUrl) {
    const audio = await fetch(audioUrl);
    await audio.arrayBuffer();
    out.push({ family: 'audio', request: 'GET signed audio URL', status: audio.status, text: '' });
  }
  await req('audio', 'GET', '/v1/audio');
  const batch = await req('jobs', 'POST', '/v1/tts/batch', { items: [{ speaker_id: speakerId, text: 'One.' }, { speaker_id: speakerId, text: 'Two.' }] });
  await req('jobs', 'GET', '/v1/jobs');
  const jobId = batch.body?.job_id as string | undefined;
  if (jobId) {
    // The worker claims the items under a lease and stores their audio: the write path of the queue.
    let status = '';
    for (let i = 0; i < 120 && !['completed', 'failed', 'partial'].includes(status); i++) {
      if (i) await new Promise((r) => setTimeout(r, 250));
      status = (await call(server, 'GET', `/v1/jobs/${jobId}`, { key })).body?.status as string;
    }
    await req('jobs', 'GET', `/v1/jobs/${jobId}`);
    out.push({ family: 'jobs', request: 'batch outcome', status: status === 'completed' ? 200 : 500, text: status });
  }
  await req('stt', 'GET', '/v1/stt/providers');
  await req('stt', 'POST', '/v1/stt/calculate-accuracy', { reference: 'The quick brown fox.', hypothesis: 'the quick brown box' });
  if (audioUrl) await req('stt', 'POST', '/v1/stt/transcribe', { audio_url: audioUrl, providers: ['local-sphinx'] });
  await req('datasets', 'GET', '/v1/datasets');
  await req('billing', 'GET', '/v1/billing/subscription');
  await req('billing', 'GET', '/v1/billing/portal');
  const evaluation = await req('evaluations', 'POST', '/v1/evaluations', {
    texts: ['Hello there.'],
    speakers: { ids: [speakerId] },
    providers: ['local-sphinx'],
    conditions: ['clean'],
  });
  await req('evaluations', 'GET', '/v1/evaluations');
  if (evaluation.body?.evaluation_id) await req('evaluations', 'GET', `/v1/evaluations/${evaluation.body.evaluation_id as string}`);
  return out;
}
