import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, fliteSpeaker } from '../helpers/audio-jobs.js';
import { CONVERSATION_DEFAULT_SPEAKERS } from '../../src/cli/eval/request.js';

// Synthetic conversations (DESIGN §16.1): the rules of `conversation` on POST /v1/evaluations, against a real
// server process (SQLite in the sqlite project, PostgreSQL in the postgres one).

let s: TestServer;
let flite: string;
const post = (json: unknown) => call(s, 'POST', '/v1/evaluations', { key: s.key, json });
const expect400 = async (json: unknown, detail: string) => {
  const r = await post(json);
  expect([r.status, r.body.detail], r.text).toEqual([400, detail]);
};

beforeAll(async () => {
  s = await startTestServer();
  flite = await fliteSpeaker(s.runtime.db);
});
afterAll(async () => {
  await s?.close();
});

describe('POST /v1/evaluations with conversation (DESIGN §16.1)', () => {
  const body = (conversation: unknown) => ({ texts: ['Good morning.', 'How can I help?'], speakers: { ids: [flite] }, providers: ['local-sphinx'], conversation });

  it('names each field out of range', async () => {
    await expect400(body({}), 'conversation.calls must be 1..200');
    await expect400(body({ calls: 0 }), 'conversation.calls must be 1..200');
    await expect400(body({ calls: 201 }), 'conversation.calls must be 1..200');
    await expect400(body({ calls: 2, turns: 1 }), 'conversation.turns must be 2..60');
    await expect400(body({ calls: 2, turns: 61 }), 'conversation.turns must be 2..60');
    await expect400(body({ calls: 2, speakers_per_call: 1 }), 'conversation.speakers_per_call must be 2..4');
    await expect400(body({ calls: 2, speakers_per_call: 5 }), 'conversation.speakers_per_call must be 2..4');
    const gap = 'conversation.gap_ms must be [min, max] with 0 <= min <= max <= 5000';
    await expect400(body({ calls: 2, gap_ms: [-1, 200] }), gap);
    await expect400(body({ calls: 2, gap_ms: [0, 5001] }), gap);
    await expect400(body({ calls: 2, gap_ms: [800, 200] }), gap);
    await expect400(body({ calls: 2, gap_ms: [200] }), gap);
    await expect400(body({ calls: 2, overlap: 0.51 }), 'conversation.overlap must be 0..0.5');
    await expect400(body({ calls: 2, overlap: -0.1 }), 'conversation.overlap must be 0..0.5');
  });

  it('checks the texts before the conversation, and the conversation before the providers', async () => {
    await expect400({ ...body({ calls: 0 }), texts: [] }, 'Evaluation must contain at least one text');
    await expect400({ ...body({ calls: 0 }), providers: ['nope'] }, 'conversation.calls must be 1..200');
  });

  it('refuses more speakers per call than the selection has, and probes or streaming, creating nothing and charging nothing', async () => {
    const before = await call(s, 'GET', '/v1/evaluations', { key: s.key });
    const used = await charactersUsed(s);
    await expect400(body({ calls: 2, turns: 4 }), 'conversation.speakers_per_call (2) exceeds the 1 selected speaker');
    await expect400({ ...body({ calls: 2 }), probes: { non_speech: {} } }, 'probes do not apply to a conversation');
    expect((await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total).toBe(before.body.total);
    expect(await charactersUsed(s)).toBe(used);
  });

  it('takes the CLI\'s default voices for a conversation (two of each gender) and draws each call\'s speakers from them', async () => {
    const r = await post({ texts: ['Good morning.', 'How can I help?'], speakers: { ...CONVERSATION_DEFAULT_SPEAKERS, filter: {} }, providers: ['local-sphinx'], conversation: { calls: 2, turns: 2, speakers_per_call: 4 } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.total_utterances).toBe(2);
    const cancelled = await call(s, 'POST', `/v1/evaluations/${r.body.evaluation_id}/cancel`, { key: s.key });
    expect(cancelled.status, cancelled.text).toBe(200);
  });

  it('refuses a conversation with a corpus, before the corpus is looked up', async () => {
    await expect400({ corpus_id: 'cor_missing', providers: ['local-sphinx'], conversation: { calls: 2 } }, 'conversation does not apply to a corpus');
  });
});
