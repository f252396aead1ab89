import { Ajv, type Options, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { validateOnFirstCall } from './lazy-compile.js';

const common: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false };

/** A query integer as people write it: optional minus, decimal digits; no `0x10`, `1e1`, `+5` or spaces. */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/** Names of the integer properties of an object schema (paging's `limit`/`offset` and the like). */
function integerProperties(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(props).filter((k) => props[k]?.type === 'integer');
}

/**
 * Ajv coerces any string JavaScript reads as a number (`0x10`, `0b11`, ` 5`, `1e1`, `+5`); a query integer
 * must be plain decimal digits (DESIGN §4.3), so those are refused before Ajv coerces them.
 */
function decimalQueryIntegers(validate: ValidateFunction, schema: unknown): ValidateFunction {
  const keys = integerProperties(schema);
  if (keys.length === 0) return validate;
  const wrapped = ((data: Record<string, unknown> | null, ctx?: object) => {
    for (const key of keys) {
      const raw = data?.[key];
      const values = Array.isArray(raw) ? raw : [raw];
      if (values.some((v) => typeof v === 'string' && !DECIMAL_INTEGER.test(v))) {
        wrapped.errors = [{ instancePath: `/${key}`, schemaPath: `#/properties/${key}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be a decimal integer' }];
        return false;
      }
    }
    const ok = (validate as (d: unknown, c?: object) => boolean)(data, ctx);
    wrapped.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

/**
 * Query strings, params and headers arrive as text and are coerced to the schema's types; JSON bodies are
 * not — `{"text": 123}` is a wrong type and answers 400 (DESIGN §4.2), never silently "123". Each
 * validator is compiled on the first request that needs it (see lazy-compile.ts).
 */
export function registerValidation(app: FastifyInstance): void {
  const coercing = new Ajv({ ...common, coerceTypes: 'array' });
  const strict = new Ajv({ ...common, coerceTypes: false });
  for (const ajv of [coercing, strict]) {
    ajv.addFormat('date-time', true);
    ajv.addFormat('uri', true);
    ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
  }
  app.setValidatorCompiler(({ schema, httpPart }) =>
    validateOnFirstCall(() => {
      if (httpPart === 'body') return strict.compile(schema as object);
      const validate = coercing.compile(schema as object);
      return httpPart === 'querystring' ? decimalQueryIntegers(validate, schema) : validate;
    }),
  );
}
