import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { serializeOnFirstCall, validateOnFirstCall } from '../../../../src/server/plugins/lazy-compile.js';

const schema = { type: 'object', properties: { limit: { type: 'integer', minimum: 1 } }, required: ['limit'] };

describe('validateOnFirstCall', () => {
  it('compiles on the first call only, and answers and reports errors as the compiled validator does', () => {
    const ajv = new Ajv({ coerceTypes: 'array' });
    let compiles = 0;
    const lazy = validateOnFirstCall(() => (compiles++, ajv.compile(schema)));
    expect(compiles).toBe(0);
    // Fastify passes the parent to validators with a schemaEnv, so Ajv can coerce in place.
    expect(lazy.schemaEnv).toBeTruthy();

    const eager: ValidateFunction = ajv.compile(schema);
    expect(lazy({ limit: 0 })).toBe(false);
    expect(eager({ limit: 0 })).toBe(false);
    expect(lazy.errors).toEqual(eager.errors);

    const data = { limit: '5' };
    expect(lazy(data)).toBe(true);
    expect(data.limit).toBe(5);
    expect(lazy.errors).toBeNull();
    expect(compiles).toBe(1);
  });
});

describe('serializeOnFirstCall', () => {
  it('builds a route serializer on its first response: same JSON, and a bad schema fails then, not before', () => {
    const compile = serializeOnFirstCall()(undefined, undefined);
    const route = { method: 'GET', url: '/x', httpStatus: '200' };
    const serialize = compile({ ...route, schema: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } } });
    expect(serialize({ id: 'a', n: 2, secret: 'not in the schema' })).toBe('{"id":"a","n":2}');

    const broken = compile({ ...route, schema: { type: 'object', properties: { id: { $ref: '#/definitions/missing' } } } });
    expect(() => broken({ id: 'a' })).toThrow();
  });
});
