import type { ValidateFunction } from 'ajv';
import { SerializerSelector, type Serializer, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/**
 * Why lazily: Fastify compiles a validator for every part of every route and a serializer for every status
 * of every response schema when the server starts — ~0.5 s of CPU and megabytes of generated code on each
 * start, for routes an instance may never serve (most tests, a worker-only instance, a CLI's auto-started
 * service answering three requests). Each is now compiled on its first call; a schema that cannot compile
 * fails on its route's first request instead of at start.
 */

/** A validator that compiles itself on its first call, with Ajv's `errors` of the last call. */
export function validateOnFirstCall(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown, ctx?: object) => {
    compiled ??= compile();
    const ok = (compiled as (d: unknown, c?: object) => boolean)(data, ctx);
    validate.errors = compiled.errors;
    return ok;
  }) as ValidateFunction;
  // Fastify hands the parent object to validators that have a `schemaEnv`, which lets Ajv coerce a root
  // value in place; the compiled one has it, so the stand-in must say so before it exists.
  (validate as { schemaEnv?: unknown }).schemaEnv = true;
  return validate;
}

/**
 * Fastify's own serializer factory (fast-json-stringify), each route's serializer built on its first
 * response: pass as `schemaController.compilersFactory.buildSerializer`.
 */
export function serializeOnFirstCall(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let serialize: Serializer | undefined;
      return (payload) => (serialize ??= compile(route))(payload);
    };
  };
}
