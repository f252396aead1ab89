import { Type, type Static } from '@sinclair/typebox';
import { Tier } from './users.js';

export const CheckState = Type.Union([Type.Literal('ok'), Type.Literal('unavailable'), Type.Literal('not_configured')]);

/** GET /health (DESIGN §4.4). */
export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  version: Type.String(),
  /** The build's git commit (DESIGN §14.8): two builds of one version are told apart; null when unknown. */
  commit: Type.Union([Type.String(), Type.Null()]),
  uptime_seconds: Type.Number(),
  /** This process (DESIGN §9.6): which of several instances answered. */
  instance_id: Type.String(),
  /** Queued work shared by every instance: batch items and evaluation syntheses. */
  queue: Type.Object({ pending: Type.Integer(), processing: Type.Integer() }),
  /** `newer_compatible`: a newer release migrated the database, compatibly, and this one serves on it (DESIGN §14.13). */
  schema: Type.Union([Type.Literal('current'), Type.Literal('newer_compatible')]),
  checks: Type.Object({
    database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    tts: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    stt: Type.Record(Type.String(), CheckState),
  }),
});
export type Health = Static<typeof Health>;

/** GET /health/live (DESIGN §14.2): the process serves. */
export const Liveness = Type.Object({ status: Type.Literal('ok') });
export type Liveness = Static<typeof Liveness>;

/** GET /health/ready (DESIGN §14.2): 200 `ready`, or 503 `not_ready` with the reason. */
export const Readiness = Type.Union([
  Type.Object({ status: Type.Literal('ready') }),
  Type.Object({ status: Type.Literal('not_ready'), reason: Type.String() }),
]);
export type Readiness = Static<typeof Readiness>;

export const BillingPortal = Type.Object({ url: Type.String(), expires_at: Type.String() });
export type BillingPortal = Static<typeof BillingPortal>;

export const Subscription = Type.Object({
  tier: Tier,
  status: Type.Union([Type.Literal('active'), Type.Literal('cancelled')]),
  current_period_start: Type.String(),
  current_period_end: Type.String(),
  cancel_at_period_end: Type.Boolean(),
});
export type Subscription = Static<typeof Subscription>;
