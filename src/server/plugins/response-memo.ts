import type { FastifyReply } from 'fastify';

/**
 * Serialized answers kept while they cannot change. A route names the period its answers hold for (for
 * the speakers list: the second its sample URLs are signed in — the catalogue itself never changes while
 * the service runs) and a key for the request; an answer is reused only within its period. Serializing a
 * page of the catalogue is most of that route's cost on Node 20 (fast-json-stringify escapes every string
 * character by character there). Answers are kept as the UTF-8 bytes that go out, encoded once.
 */
export interface ResponseMemo {
  /** The answer kept for `key` in `period`, if any. */
  get(period: number, key: string): Buffer | undefined;
  /** Keeps `answer` for `key` in `period` (a new period forgets the old one's answers). */
  set(period: number, key: string, answer: Buffer): void;
}

/** A memo of at most `maxBytes` of answers; past it, the period's answers are forgotten. */
export function createResponseMemo(maxBytes = 4 * 1024 * 1024): ResponseMemo {
  let current = Number.NaN;
  let bytes = 0;
  const answers = new Map<string, Buffer>();
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
      if (bytes + answer.byteLength > maxBytes) {
        answers.clear();
        bytes = 0;
      }
      answers.set(key, answer);
      bytes += answer.byteLength;
    },
  };
}

/**
 * What a handler returns for an answer serialized already (by the route's own schema serializer) and
 * encoded: Fastify sends bytes as they are, under the JSON content type set here. Typed as the route's
 * payload, which it stands for.
 */
export function serializedAnswer<T>(reply: FastifyReply, body: Buffer): T {
  reply.type('application/json; charset=utf-8');
  return body as unknown as T;
}
