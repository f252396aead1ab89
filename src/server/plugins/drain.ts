import type { FastifyInstance } from 'fastify';

/** How often a draining server closes the keep-alive connections that went idle since it last looked. */
const IDLE_SWEEP_MS = 50;

/**
 * A stopping instance sheds its keep-alive connections instead of answering 503 (DESIGN §14.12): a proxy
 * retries a request on another instance when the connection fails, but passes a 503 on for a POST. From
 * the first moment of `close()` every response says `Connection: close` (requests still arriving on an
 * open connection are served), and the connections that fall idle — a response finished, no new request
 * yet — are closed every IDLE_SWEEP_MS until the server has closed, not left open for the keep-alive
 * timeout.
 */
export function registerDrain(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    app.server.closeIdleConnections();
    const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
    app.server.once('close', () => clearInterval(sweep));
    done();
  });
  // A callback hook: an async one costs a promise per request on the hot path.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('Connection', 'close');
    done(null, payload);
  });
}
