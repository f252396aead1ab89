import { Type, type Static } from '@sinclair/typebox';
import { Tier } from './users.js';

export const CheckState = Type.Union([Type.Literal('ok'), Type.Literal('unavailable'), Type.Literal('not_configured')]);

/** GET /health (DESIGN §4.4). */
export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  version: Type.String(),
  uptime_seconds: Type.Number(),
  /** This process (DESIGN §9.6): which of several instances answered. */
  instance_id: Type.String(),
  /** Queued work shared by every instance: batch items and evaluation syntheses. */
  queue: Type.Object({ pending: Type.Integer(), processing: Type.Integer() }),
  checks: Type.Object({
    database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    tts: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    stt: Type.Record(Type.String(), CheckState),
  }),
});
export type Health = Static<typeof Health>;

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
