import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /openapi.json', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('serves the OpenAPI document with a request id', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const doc = (await res.json()) as { openapi: string; info: { title: string } };
    expect(doc.openapi).toBe('3.0.3');
  });

  it('answers unknown routes with the error envelope', async () => {
    const res = await fetch(`${server.url}/nope`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status_code: 404, request_id: res.headers.get('x-request-id') });
    expect(typeof body.detail).toBe('string');
    expect(body.code).toBe('not_found');
  });

  it('documents the machine code of every error body (issue 10)', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { required?: string[]; properties: Record<string, { type?: string }> }> };
    };
    const errorBody = Object.values(doc.components.schemas).find((s) => s.properties?.status_code && s.properties?.request_id);
    expect(errorBody?.properties.code?.type).toBe('string');
    expect(errorBody?.required).toContain('code');
  });
});
