import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createClient } from '../../src/client/client.js';
import { ApiRequestError, isErrorCode } from '../../src/client/index.js';
import { exitCodeFor } from '../../src/cli/program.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { reserveCharacters } from '../../src/server/features/limits/quota.js';

// The whole path scripts rely on (issue 10 item 1): service body → client `code` → CLI exit code and JSON.
describe('error codes from the service to the CLI', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  const failure = async (p: Promise<unknown>): Promise<ApiRequestError> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiRequestError);
    return err as ApiRequestError;
  };

  it('exposes the service code on the client error and in the CLI --json error', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: server.key });
    const err = await failure(client.getSpeaker('spk_nope'));
    expect([err.status, err.code, err.detail]).toEqual([404, 'speaker_not_found', 'Speaker not found']);
    expect(isErrorCode(err.code)).toBe(true);
    const mapped = exitCodeFor(err);
    expect(mapped.code).toBe(4);
    expect(mapped.error).toMatchObject({ code: 'speaker_not_found', status: 404, request_id: err.requestId });
  });

  it('tells a spent quota from a rate limit by code: the quota hint, exit 5', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'spent@example.com', tier: 'free', now: new Date() });
    await reserveCharacters(server.runtime.db, { userId: user.id, characters: 9_999, now: new Date() });
    const client = createClient({ baseUrl: server.url, apiKey: key.key });
    const speaker = (await client.listSpeakers({ limit: 1 })).items[0]!;
    const err = await failure(client.synthesize({ speaker_id: speaker.id, text: 'Hello there' }));
    expect([err.status, err.code]).toEqual([429, 'quota_exceeded']);
    const mapped = exitCodeFor(err, new Date('2026-03-15T12:00:00Z'));
    expect(mapped.code).toBe(5);
    expect(mapped.message).toContain('the character quota renews on 2026-04-01');
  });
});
