import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, fliteSpeaker, postMultipart, promoteToEnterprise } from '../helpers/audio-jobs.js';

/** Texts no voice can take: lone surrogates and texts with nothing to speak, in every text field. */
describe('text rules over HTTP: lone surrogates and texts with nothing to speak', () => {
  let server: TestServer;
  let slt: string;
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
    slt = await fliteSpeaker(server.runtime.db, 'slt');
  });
  afterAll(async () => server.close());

  const counts = async () => ({
    audio: await server.runtime.db.value<number>('SELECT COUNT(*) AS n FROM audio'),
    jobs: await server.runtime.db.value<number>('SELECT COUNT(*) AS n FROM jobs'),
    datasets: await server.runtime.db.value<number>('SELECT COUNT(*) AS n FROM datasets'),
  });

  it.each([
    ['a lone high surrogate', '/v1/tts/synthesize', () => ({ speaker_id: slt, text: '\ud800' }), 'Invalid body.text: must not contain a lone surrogate', ['body', 'text']],
    ['a lone low surrogate inside words', '/v1/tts/synthesize', () => ({ speaker_id: slt, text: 'hello \udc00 world' }), 'Invalid body.text: must not contain a lone surrogate', ['body', 'text']],
    ['a reversed pair', '/v1/tts/synthesize', () => ({ speaker_id: slt, text: 'hi \ude00\ud83d' }), 'Invalid body.text: must not contain a lone surrogate', ['body', 'text']],
    ['a batch item text', '/v1/tts/batch', () => ({ items: [{ speaker_id: slt, text: 'fine' }, { speaker_id: slt, text: 'bad \ud800' }] }), 'Invalid body.items.1.text: must not contain a lone surrogate', ['body', 'items', 1, 'text']],
    ['an accuracy reference', '/v1/stt/calculate-accuracy', () => ({ reference: '\udfff', hypothesis: 'a' }), 'Invalid body.reference: must not contain a lone surrogate', ['body', 'reference']],
    ['an accuracy hypothesis', '/v1/stt/calculate-accuracy', () => ({ reference: 'a', hypothesis: 'a\ud800' }), 'Invalid body.hypothesis: must not contain a lone surrogate', ['body', 'hypothesis']],
    ['a key name', '/v1/keys', () => ({ name: 'ci \ud800' }), 'Invalid body.name: must not contain a lone surrogate', ['body', 'name']],
    ['an object key', '/v1/tts/synthesize', () => ({ speaker_id: slt, text: 'hi', ['x\ud800']: 1 }), 'Invalid body.x\ud800: must not contain a lone surrogate', ['body', 'x\ud800']],
  ])('refuses %s with 400 naming the field, charging and storing nothing', async (_name, path, body, detail, loc) => {
    const before = { used: await charactersUsed(server), ...(await counts()) };
    const res = await call(server, 'POST', path, { key: server.key, json: body() });
    expect([res.status, res.body.detail]).toEqual([400, detail]);
    expect(res.body.errors[0].loc).toEqual(loc);
    expect({ used: await charactersUsed(server), ...(await counts()) }).toEqual(before);
  });

  it('still takes well-formed astral characters (a surrogate pair is one code point)', async () => {
    const res = await call(server, 'POST', '/v1/stt/calculate-accuracy', { json: { reference: 'smile 😀 now', hypothesis: 'smile 😀 now' } });
    expect([res.status, res.body.wer]).toEqual([200, 0]);
  });

  it.each([
    ['emoji only', '😀🎉👍'],
    ['punctuation only', '?!... — …'],
    ['symbols and marks only', '♪ © ° \u0301\u0301'],
    ['emoji with skin tone and ZWJ', '👩🏽‍💻 ❤️'],
  ])('answers %s with 400 "Text has nothing to speak", charging nothing', async (_name, text) => {
    const before = { used: await charactersUsed(server), ...(await counts()) };
    const one = await call(server, 'POST', '/v1/tts/synthesize', { key: server.key, json: { speaker_id: slt, text } });
    expect([one.status, one.body.detail]).toEqual([400, 'Text has nothing to speak']);
    const batch = await call(server, 'POST', '/v1/tts/batch', { key: server.key, json: { items: [{ speaker_id: slt, text: 'fine' }, { speaker_id: slt, text }] } });
    expect([batch.status, batch.body.detail]).toEqual([400, 'Item 1: Text has nothing to speak']);
    const csv = `text,speaker_id\nHello there,${slt}\n"${text}",${slt}\n`;
    const dataset = await postMultipart(server, '/v1/datasets/upload', { file: { bytes: csv, name: 'd.csv' }, fields: { name: 'n', generate_audio: 'true' } });
    expect([dataset.status, dataset.body.detail]).toEqual([400, 'Line 3: Text has nothing to speak']);
    expect({ used: await charactersUsed(server), ...(await counts()) }).toEqual(before);
  });

  it('speaks digits, any script, and compatibility forms (circled, full-width) after NFKC', async () => {
    for (const text of ['42', 'Ⓐ Ⓑ', 'Ｈｉ', '你好', '٣']) {
      const res = await call(server, 'POST', '/v1/tts/synthesize', { key: server.key, json: { speaker_id: slt, text } });
      expect([text, res.status]).toEqual([text, 200]);
    }
  });
});
