import type { FastifyInstance } from 'fastify';
import { validationFailed } from '../../shared/errors.js';
import { hasLoneSurrogate } from '../../shared/text-rules.js';

/** A `\uD800`–`\uDFFF` escape in the raw JSON: the only way a surrogate gets into a strictly decoded body. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The path of the first string or key of `root` that holds a lone surrogate (explicit stack: any depth). */
function loneSurrogatePath(root: unknown): (string | number)[] | undefined {
  const stack: [unknown, (string | number)[]][] = [[root, []]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], [...path, i]]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value).reverse()) {
        if (hasLoneSurrogate(key)) return [...path, key];
        stack.push([child, [...path, key]]);
      }
    }
  }
  return undefined;
}

/**
 * JSON bodies must be valid Unicode text: the stock parser decodes leniently, turning malformed bytes
 * (lone surrogates, overlong forms) into U+FFFD that then pass for text, and `JSON.parse` turns an escaped
 * `"\ud800"` into a string no voice, database or vendor can take. Decode strictly, refuse lone surrogates
 * naming the field, and answer 400; the parsing itself stays Fastify's (prototype-poisoning checks included).
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // An empty body is no body (clients send the header on DELETE too); routes that need one answer 400.
    if ((body as Buffer).length === 0) {
      done(null, undefined);
      return;
    }
    let text: string;
    try {
      text = decoder.decode(body as Buffer);
    } catch {
      done(validationFailed('Request body is not valid UTF-8'), undefined);
      return;
    }
    if (!SURROGATE_ESCAPE.test(text)) return parseJson(request, text, done);
    parseJson(request, text, (err, value) => {
      const path = err ? undefined : loneSurrogatePath(value);
      if (!path) return done(err, value);
      const msg = 'must not contain a lone surrogate';
      done(validationFailed(`Invalid ${['body', ...path].join('.')}: ${msg}`, [{ loc: ['body', ...path], msg, type: 'unicode' }]), undefined);
    });
  });
}
