import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * How much of a request body still arriving after its answer is read and dropped, and for how long, before
 * the connection is closed. A client that reads answers early (fetch, curl) hangs up well inside both.
 */
export const LINGER = Object.freeze({ ms: 5_000, bytes: 8 * 1024 * 1024 });

/**
 * Reads and drops the rest of `req`'s body from now on (its answer `res` is about to go out), and closes the
 * connection once the answer is out if the body has not ended within `limits`. Closing at once instead would
 * leave the unread body in the kernel, which answers the client's next bytes with a reset: the client's
 * write fails before it has read the answer. The body is read here rather than left to Node's own drop
 * after the answer, since that drop hides the bytes from any count.
 */
export function lingerAfterAnswer(req: IncomingMessage, res: ServerResponse, limits: { ms: number; bytes: number } = LINGER): void {
  if (req.complete || req.destroyed) return;
  const socket = req.socket;
  let dropped = 0;
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', stop);
    socket.off('close', stop);
  };
  const cut = () => {
    stop();
    if (res.writableFinished) socket.destroy();
    else res.once('finish', () => socket.destroy());
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limits.bytes) cut();
  };
  const timer = setTimeout(cut, limits.ms);
  req.on('data', onData);
  req.once('end', stop);
  socket.once('close', stop);
  req.resume();
}

/**
 * Whether a request has a body at all. One without may be answered before Node has marked it complete; its
 * `Connection: close` (a draining server's) must stay.
 */
const declaresBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * An answer given before its request's body has arrived (413 on a declared length, 429 on a busy user, 401
 * on a bad key) lingers instead of closing the connection (nginx's lingering close): the rest of the body
 * is read and dropped, within LINGER, so the client reads its answer instead of a reset. A `Connection:
 * close` such an answer asked for is taken off, since Node would close the socket the moment the answer is
 * written; LINGER bounds what it costs, and a body that does end leaves a connection fit for the next
 * request (a draining server closes it once it is idle). Registered after every hook that sets headers.
 */
export function registerLingeringClose(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise per request on the hot path.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && declaresBody(request.raw)) {
      reply.removeHeader('connection');
      lingerAfterAnswer(request.raw, reply.raw);
    }
    done(null, payload);
  });
}
