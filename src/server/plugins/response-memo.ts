import type { FastifyReply } from 'fastify';

/**
 * Serialized answers kept while they cannot change. A route names the period its answers hold for (for
 * the speakers list: the second its sample URLs are signed in — the catalogue itself never changes while
 * the service runs) and a key for the request; an answer is reused only within its period. Serializing a
 * page of the catalogue is most of that route's cost on Node 20 (fast-json-stringify escapes every string
 * character by character there).
 */
export interface ResponseMemo {
  /** The answer kept for `key` in `period`, if any. */
  get(period: number, key: string): string | undefined;
  /** Keeps `answer` for `key` in `period` (a new period forgets the old one's answers). */
  set(period: number, key: string, answer: string): void;
}

/** A memo of at most `maxBytes` of answers (of string length); past it, the period's answers are forgotten. */
export function createResponseMemo(maxBytes = 4 * 1024 * 1024): ResponseMemo {
  let current = Number.NaN;
  let bytes = 0;
  const answers = new Map<string, string>();
  const enter = (period: number): void => {
    if (period === current) return;
    current = period;
    answers.clear();
    bytes = 0;
  };
  return {
    get(period, key) {
      return period === current ? answers.get(key) : undefined;
    },
    set(period, key, answer) {
      enter(period);
      if (bytes + answer.length > maxBytes) {
        answers.clear();
        bytes = 0;
      }
      answers.set(key, answer);
      bytes += answer.length;
    },
  };
}

/**
 * What a handler returns for an answer serialized already (by the route's own schema serializer): under a
 * JSON content type Fastify sends a string as it is. Typed as the route's payload, which it stands for.
 */
export function serializedAnswer<T>(reply: FastifyReply, body: string): T {
  // Without the content type Fastify would send the string as text/plain.
  reply.type('application/json; charset=utf-8');
  return body as unknown as T;
}
