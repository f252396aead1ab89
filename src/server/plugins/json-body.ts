import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors.js';

/**
 * JSON bodies must be valid UTF-8: the stock parser decodes leniently, turning malformed bytes (lone
 * surrogates, overlong forms) into U+FFFD that then pass for text. Decode strictly and answer 400
 * instead; the parsing itself stays Fastify's (prototype-poisoning checks included).
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
      done(badRequest('Request body is not valid UTF-8'), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
