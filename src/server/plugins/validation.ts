import { Ajv, type Options } from 'ajv';
import type { FastifyInstance } from 'fastify';

const common: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false };

/**
 * Query strings, params and headers arrive as text and are coerced to the schema's types; JSON bodies are
 * not — `{"text": 123}` is a wrong type and answers 400 (DESIGN §4.2), never silently "123".
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
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
  );
}
