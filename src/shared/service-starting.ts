/**
 * The header a starting service puts on its 503 `Service temporarily unavailable` (value `1`): the
 * request reached a listener that runs nothing yet, so sending it again is safe whatever its method. The
 * same 503 from a running service (a database outage, DESIGN §14.3) carries no such promise.
 */
export const SERVICE_STARTING_HEADER = 'X-Voxctl-Starting';

/** How long a client keeps trying a starting service before it passes the 503 on. */
export const SERVICE_STARTING_WAIT_MS = 30_000;

/** The pause between tries: a start takes a few seconds, and a starting listener answers without work. */
export const SERVICE_STARTING_RETRY_MS = 1_000;
