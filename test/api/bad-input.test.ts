import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { call, manualClock } from '../helpers/core-http.js';

/** One hostile request: who sends it (`valid` key, none, or a literal Authorization value) and what. */
interface Case {
  name: string;
  method: string;
  path: string;
  auth?: 'valid' | 'none' | 'revoked' | { header: string };
  json?: unknown;
  body?: string | Uint8Array;
  contentType?: string;
  /** The expected status when it is fixed by DESIGN; otherwise any 4xx. */
  status?: number;
  /** Part of the expected detail. */
  detail?: string | RegExp;
}

const J = 'application/json';
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
const NO_BOUNDARY = 'Invalid multipart/form-data: the Content-Type header has no usable boundary';
const CUT_OFF = '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF';
const huge = (field: string) => JSON.stringify({ [field]: 'x'.repeat(1024 * 1024 + 10) });

const cases: Case[] = [
  // Malformed JSON
  { name: 'truncated JSON', method: 'POST', path: '/v1/keys', body: '{"name":', contentType: J, status: 400, detail: 'Malformed JSON body' },
  { name: 'single-quoted JSON', method: 'POST', path: '/v1/keys', body: "{'name':'x'}", contentType: J, status: 400 },
  { name: 'trailing comma', method: 'POST', path: '/v1/keys', body: '{"name":"x",}', contentType: J, status: 400 },
  { name: 'empty JSON body', method: 'POST', path: '/v1/tts/synthesize', body: '', contentType: J, status: 400 },
  { name: 'JSON null', method: 'POST', path: '/v1/keys', body: 'null', contentType: J, status: 400 },
  { name: 'JSON string', method: 'POST', path: '/v1/keys', body: '"name"', contentType: J, status: 400 },
  { name: 'JSON array', method: 'POST', path: '/v1/keys', body: '[1,2]', contentType: J, status: 400 },
  { name: 'JSON number', method: 'POST', path: '/v1/keys', body: '123', contentType: J, status: 400 },
  { name: '__proto__ pollution', method: 'POST', path: '/v1/keys', body: '{"__proto__":{"admin":true}}', contentType: J, status: 400 },
  { name: 'malformed synthesize', method: 'POST', path: '/v1/tts/synthesize', body: '{"text": "hi"', contentType: J, status: 400 },
  { name: 'malformed batch', method: 'POST', path: '/v1/tts/batch', body: '{"items": [}', contentType: J, status: 400 },
  { name: 'malformed accuracy (public)', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: 'none', body: '{reference}', contentType: J, status: 400 },
  { name: 'malformed transcribe', method: 'POST', path: '/v1/stt/transcribe', body: '{"audio_url":', contentType: J, status: 400 },
  // Wrong types
  { name: 'name is a number', method: 'POST', path: '/v1/keys', json: { name: 42 }, status: 400 },
  { name: 'name is null', method: 'POST', path: '/v1/keys', json: { name: null }, status: 400 },
  { name: 'name is an object', method: 'POST', path: '/v1/keys', json: { name: {} }, status: 400 },
  { name: 'scope is a number', method: 'POST', path: '/v1/keys', json: { scope: 1 }, status: 400 },
  { name: 'scope is a boolean', method: 'POST', path: '/v1/keys', json: { scope: true }, status: 400 },
  { name: 'text is a number', method: 'POST', path: '/v1/tts/synthesize', json: { speaker_id: 'x', text: 123 }, status: 400 },
  { name: 'speaker_id is a number', method: 'POST', path: '/v1/tts/synthesize', json: { speaker_id: 5, text: 'hi' }, status: 400 },
  { name: 'text missing', method: 'POST', path: '/v1/tts/synthesize', json: { speaker_id: 'x' }, status: 400 },
  { name: 'text is an array', method: 'POST', path: '/v1/tts/synthesize', json: { speaker_id: 'x', text: ['hi'] }, status: 400 },
  { name: 'items is a string', method: 'POST', path: '/v1/tts/batch', json: { items: 'x' }, status: 400 },
  { name: 'items of numbers', method: 'POST', path: '/v1/tts/batch', json: { items: [1] }, status: 400 },
  { name: 'reference is a number', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: 'none', json: { reference: 1, hypothesis: 'a' }, status: 400 },
  { name: 'hypothesis missing', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: 'none', json: { reference: 'a' }, status: 400 },
  { name: 'normalize is a string', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: 'none', json: { reference: 'a', hypothesis: 'a', normalize: 'yes' }, status: 400 },
  { name: 'providers is a string', method: 'POST', path: '/v1/stt/transcribe', json: { audio_url: 'http://x/a.wav', providers: 'stt-b' }, status: 400 },
  { name: 'audio_url is a number', method: 'POST', path: '/v1/stt/transcribe', json: { audio_url: 5, providers: ['stt-b'] }, status: 400 },
  // Unknown enum values
  { name: 'unknown scope', method: 'POST', path: '/v1/keys', json: { scope: 'admin' }, status: 400, detail: 'must be one of' },
  { name: 'scope in upper case', method: 'POST', path: '/v1/keys', json: { scope: 'FULL' }, status: 400 },
  { name: 'unknown job status', method: 'GET', path: '/v1/jobs?status=done', status: 400 },
  { name: 'unknown sample rate', method: 'POST', path: '/v1/tts/synthesize', json: { speaker_id: 'x', text: 'hi', sample_rate: 44100 }, status: 400 },
  { name: 'unknown provider', method: 'POST', path: '/v1/stt/transcribe', json: { audio_url: 'http://example.com/a.wav', providers: ['nope'] }, status: 400 },
  // Huge numbers
  { name: 'limit 1e309', method: 'GET', path: '/v1/keys?limit=1e309', status: 400 },
  { name: 'limit 20 digits', method: 'GET', path: '/v1/keys?limit=99999999999999999999', status: 400 },
  { name: 'offset 20 digits', method: 'GET', path: '/v1/keys?offset=99999999999999999999', status: 400 },
  { name: 'speakers limit a million', method: 'GET', path: '/v1/speakers?limit=1000000', auth: 'none', status: 400 },
  { name: 'jobs offset 1e400', method: 'GET', path: '/v1/jobs?offset=1e400', status: 400 },
  { name: 'datasets offset 2^64', method: 'GET', path: '/v1/datasets?offset=18446744073709551616', status: 400 },
  { name: 'sample_rate 1e308', method: 'POST', path: '/v1/tts/synthesize', json: { speaker_id: 'x', text: 'hi', sample_rate: 1e308 }, status: 400 },
  // Negative offsets and bad limits
  { name: 'keys offset -1', method: 'GET', path: '/v1/keys?offset=-1', status: 400 },
  { name: 'speakers offset -5', method: 'GET', path: '/v1/speakers?offset=-5', auth: 'none', status: 400 },
  { name: 'jobs offset -1', method: 'GET', path: '/v1/jobs?offset=-1', status: 400 },
  { name: 'datasets offset -1', method: 'GET', path: '/v1/datasets?offset=-1', status: 400 },
  { name: 'keys limit 0', method: 'GET', path: '/v1/keys?limit=0', status: 400 },
  { name: 'keys limit 101', method: 'GET', path: '/v1/keys?limit=101', status: 400 },
  { name: 'keys limit abc', method: 'GET', path: '/v1/keys?limit=abc', status: 400 },
  { name: 'keys limit 1.5', method: 'GET', path: '/v1/keys?limit=1.5', status: 400 },
  { name: 'speakers limit 0', method: 'GET', path: '/v1/speakers?limit=0', auth: 'none', status: 400 },
  { name: 'speakers limit 101', method: 'GET', path: '/v1/speakers?limit=101', auth: 'none', status: 400 },
  { name: 'speakers limit abc', method: 'GET', path: '/v1/speakers?limit=abc', auth: 'none', status: 400 },
  { name: 'jobs limit abc', method: 'GET', path: '/v1/jobs?limit=abc', status: 400 },
  { name: 'datasets limit 0', method: 'GET', path: '/v1/datasets?limit=0', status: 400 },
  { name: 'datasets limit 101', method: 'GET', path: '/v1/datasets?limit=101', status: 400 },
  // Unicode edge cases
  { name: 'escaped lone high surrogate', method: 'POST', path: '/v1/keys', body: '{"name":"a\\ud800b"}', contentType: J, status: 400 },
  { name: 'escaped lone low surrogate', method: 'POST', path: '/v1/keys', body: '{"name":"\\udc00"}', contentType: J, status: 400 },
  { name: 'surrogate as raw UTF-8 bytes', method: 'POST', path: '/v1/keys', body: bytes('{"name":"a', [0xed, 0xa0, 0x80], 'b"}'), contentType: J, status: 400, detail: 'not valid UTF-8' },
  { name: 'overlong UTF-8', method: 'POST', path: '/v1/keys', body: bytes('{"name":"', [0xc0, 0xaf], '"}'), contentType: J, status: 400 },
  { name: 'invalid byte 0xFF', method: 'POST', path: '/v1/tts/synthesize', body: bytes('{"speaker_id":"x","text":"', [0xff, 0xfe], '"}'), contentType: J, status: 400 },
  { name: 'raw bytes to the public accuracy route', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: 'none', body: bytes('{"reference":"', [0xed, 0xbf, 0xbf], '","hypothesis":"a"}'), contentType: J, status: 400 },
  { name: 'escaped NUL in a name', method: 'POST', path: '/v1/keys', json: { name: 'a\u0000b' }, status: 400 },
  { name: 'raw NUL inside a JSON string', method: 'POST', path: '/v1/keys', body: bytes('{"name":"a', [0x00], 'b"}'), contentType: J, status: 400 },
  { name: 'only white space as name', method: 'POST', path: '/v1/keys', json: { name: '\u00a0\u2003 ' }, status: 400 },
  // Paging: decimal integers only (DESIGN §4.3), never what JavaScript's Number() would read
  { name: 'hex limit', method: 'GET', path: '/v1/keys?limit=0x10', status: 400, detail: 'Invalid querystring.limit: must be a decimal integer' },
  { name: 'binary offset', method: 'GET', path: '/v1/jobs?offset=0b11', status: 400, detail: 'Invalid querystring.offset: must be a decimal integer' },
  { name: 'blank limit', method: 'GET', path: '/v1/datasets?limit=%20', status: 400, detail: /querystring\.limit/ },
  { name: 'blank offset', method: 'GET', path: '/v1/keys?offset=%20', status: 400, detail: /querystring\.offset/ },
  { name: 'space before a limit', method: 'GET', path: '/v1/speakers?limit=%205', auth: 'none', status: 400, detail: /querystring\.limit/ },
  { name: 'exponent limit', method: 'GET', path: '/v1/keys?limit=1e1', status: 400, detail: /querystring\.limit/ },
  { name: 'plus-signed limit', method: 'GET', path: '/v1/keys?limit=%2B5', status: 400, detail: /querystring\.limit/ },
  { name: 'plus-as-space offset', method: 'GET', path: '/v1/jobs?offset=+5', status: 400, detail: /querystring\.offset/ },
  { name: 'octal-looking offset', method: 'GET', path: '/v1/keys?offset=0o7', status: 400, detail: /querystring\.offset/ },
  { name: 'fractional limit', method: 'GET', path: '/v1/keys?limit=5.0', status: 400, detail: /querystring\.limit/ },
  // Missing, garbled and expired keys
  { name: 'no key', method: 'GET', path: '/v1/users/me', auth: 'none', status: 401, detail: 'Invalid or expired API key' },
  { name: 'garbled key', method: 'GET', path: '/v1/users/usage', auth: { header: 'Bearer vox_%%%garbled' }, status: 401 },
  { name: 'key one character short', method: 'GET', path: '/v1/keys', auth: { header: `Bearer ${TEST_KEY.slice(0, -1)}` }, status: 401 },
  { name: 'key one character long', method: 'GET', path: '/v1/keys', auth: { header: `Bearer ${TEST_KEY}T` }, status: 401 },
  { name: 'revoked key', method: 'GET', path: '/v1/users/me', auth: 'revoked', status: 401, detail: 'Invalid or expired API key' },
  { name: 'Basic auth', method: 'GET', path: '/v1/users/me', auth: { header: 'Basic dXNlcjpwYXNz' }, status: 401 },
  { name: 'empty Authorization', method: 'GET', path: '/v1/users/me', auth: { header: '' }, status: 401 },
  { name: 'bad key on a private speaker route', method: 'GET', path: '/v1/speakers/spk_nope', auth: { header: 'Bearer nope' }, status: 401 },
  { name: 'bad key on a public route with a bad body', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: { header: 'Bearer nope' }, json: { reference: 'a' }, status: 400 },
  { name: 'no key on batch', method: 'POST', path: '/v1/tts/batch', auth: 'none', json: { items: [] }, status: 401 },
  // Oversized bodies
  { name: 'keys body over 1 MB', method: 'POST', path: '/v1/keys', body: huge('name'), contentType: J, status: 413 },
  { name: 'synthesize body over 1 MB', method: 'POST', path: '/v1/tts/synthesize', body: huge('text'), contentType: J, status: 413 },
  { name: 'accuracy body over 1 MB', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: 'none', body: huge('reference'), contentType: J, status: 413 },
  // Wrong content types
  { name: 'XML body', method: 'POST', path: '/v1/keys', body: '<name>x</name>', contentType: 'application/xml', status: 415 },
  { name: 'CSV to synthesize', method: 'POST', path: '/v1/tts/synthesize', body: 'speaker_id,text\nx,hi', contentType: 'text/csv', status: 415 },
  { name: 'form-encoded body', method: 'POST', path: '/v1/keys', body: 'name=x', contentType: 'application/x-www-form-urlencoded', status: 415 },
  { name: 'plain text to accuracy', method: 'POST', path: '/v1/stt/calculate-accuracy', auth: 'none', body: 'reference=a', contentType: 'text/plain', status: 400 },
  // Broken multipart bodies: busboy's parse errors are the client's fault, never a 500
  { name: 'dataset upload without a boundary', method: 'POST', path: '/v1/datasets/upload', body: 'x', contentType: 'multipart/form-data', status: 400, detail: NO_BOUNDARY },
  { name: 'audio upload without a boundary', method: 'POST', path: '/v1/audio', body: 'x', contentType: 'multipart/form-data', status: 400, detail: NO_BOUNDARY },
  { name: 'audio upload with only a charset', method: 'POST', path: '/v1/audio', body: 'x', contentType: 'multipart/form-data; charset=utf-8', status: 400, detail: NO_BOUNDARY },
  { name: 'dataset upload with a 300-char boundary', method: 'POST', path: '/v1/datasets/upload', body: 'x', contentType: `multipart/form-data; boundary=${'b'.repeat(300)}`, status: 400, detail: NO_BOUNDARY },
  { name: 'audio upload cut off mid-file', method: 'POST', path: '/v1/audio', body: CUT_OFF, contentType: 'multipart/form-data; boundary=xyz', status: 400, detail: 'Invalid multipart/form-data: the body ends in the middle of a part' },
  // Multipart parsing is registered only around the upload routes; elsewhere a multipart body is no body.
  { name: 'multipart body to a JSON route', method: 'POST', path: '/v1/tts/synthesize', body: 'x', contentType: 'multipart/form-data; boundary=xyz', status: 400, detail: 'Invalid body: must be object' },
  { name: 'multipart/mixed upload', method: 'POST', path: '/v1/audio', body: 'x', contentType: 'multipart/mixed; boundary=xyz', status: 415 },
  // Hostile path parameters
  { name: 'NUL in a speaker id', method: 'GET', path: '/v1/speakers/%00', status: 404 },
  { name: 'traversal in a job id', method: 'GET', path: '/v1/jobs/..%2F..%2Fetc%2Fpasswd', status: 404 },
  { name: 'SQL in a key id', method: 'DELETE', path: "/v1/keys/'%20OR%201=1%20--", status: 404, detail: 'Key not found' },
  { name: 'long dataset id', method: 'GET', path: `/v1/datasets/${'d'.repeat(400)}`, status: 404, detail: 'Dataset not found' },
  { name: 'very long dataset id', method: 'GET', path: `/v1/datasets/${'d'.repeat(5000)}`, status: 414, detail: 'Path parameter too long' },
  { name: 'bad percent-encoding', method: 'GET', path: '/v1/speakers/%E0%A4%A', status: 400, detail: 'Malformed URL' },
  { name: 'traversal in an audio file', method: 'GET', path: '/v1/audio/..%2F..%2Fvoxctl.db', auth: 'none' },
];

describe('bad input table', () => {
  let server: TestServer;
  let revoked: string;
  // Anonymous cases share one client IP (60/min): each case runs in its own minute of this clock.
  const clock = manualClock('2025-03-10T00:05:00Z');
  beforeAll(async () => {
    server = await startTestServer({ clock });
    const created = await call(server, 'POST', '/v1/keys', { key: TEST_KEY, json: { name: 'to revoke' } });
    revoked = created.body.key;
    await call(server, 'DELETE', `/v1/keys/${created.body.id}`, { key: TEST_KEY });
  });
  afterAll(async () => server.close());

  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s → 4xx with a string detail', async (_name, c) => {
    clock.advance(60_000);
    const headers: Record<string, string> = {};
    if (c.contentType) headers['content-type'] = c.contentType;
    const auth = c.auth ?? 'valid';
    if (auth === 'valid') headers.authorization = `Bearer ${TEST_KEY}`;
    else if (auth === 'revoked') headers.authorization = `Bearer ${revoked}`;
    else if (auth !== 'none') headers.authorization = auth.header;
    const res = await call(server, c.method, c.path, { headers, json: c.json, body: c.body });
    expect(res.status, `${c.name}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    expect(res.status, `${c.name}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    if (c.status !== undefined) expect(res.status, `${c.name}: ${res.text.slice(0, 200)}`).toBe(c.status);
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.status_code).toBe(res.status);
    if (c.detail !== undefined) expect(res.body.detail).toMatch(c.detail);
    expect(res.text).not.toMatch(/SQLITE|at .+\.(ts|js):\d+/);
  });

  it('keeps serving afterwards', async () => {
    const health = await call(server, 'GET', '/health');
    expect([health.status, health.body.status]).toEqual([200, 'ok']);
    expect((await call(server, 'GET', '/v1/users/me', { key: TEST_KEY })).status).toBe(200);
  });
});
