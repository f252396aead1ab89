import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';

// DESIGN §12.3: the entity matcher is public through POST /v1/stt/calculate-accuracy.
describe('POST /v1/stt/calculate-accuracy with entities', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  const accuracy = (json: unknown) => call(server, 'POST', '/v1/stt/calculate-accuracy', { json });

  it('answers each entity with found, beside WER, without a key', async () => {
    const res = await accuracy({
      reference: 'your balance is twelve dollars and fifty cents due on march fourth twenty twenty seven',
      hypothesis: 'Your balance is $12.50, due on March 5th, 2027.',
      entities: [
        { type: 'money', value: '12.50' },
        { type: 'date', value: '2027-03-04' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.entities).toEqual([
      { type: 'money', value: '12.50', found: true },
      { type: 'date', value: '2027-03-04', found: false },
    ]);
    expect(res.body.wer).toBeGreaterThan(0);
  });

  it('leaves entities out when none are asked for', async () => {
    const res = await accuracy({ reference: 'a b', hypothesis: 'a b' });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('entities');
  });

  it.each([
    [[{ type: 'ssn', value: '1' }], "Invalid entity 0: unknown type 'ssn' (expected one of digits, phone, number, money, date, time, email, code)"],
    [[{ type: 'money', value: '12.50' }, { type: 'time', value: '2:30 pm' }], 'Invalid entity 1: time must be 24-hour HH:MM, like 14:30'],
    [[{ type: 'phone', value: '555-0132' }], 'Invalid entity 0: phone must be a North American number in E.164, like +14155550132'],
  ])('refuses %j: 400 %s', async (entities, detail) => {
    const res = await accuracy({ reference: 'a', hypothesis: 'a', entities });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ detail, status_code: 400 });
  });

  it('describes entities in /openapi.json', async () => {
    const spec = (await call(server, 'GET', '/openapi.json')).body as { paths: Record<string, { post?: { requestBody?: unknown } }> };
    expect(JSON.stringify(spec.paths['/v1/stt/calculate-accuracy'])).toContain('entities');
  });
});
