import { Type, type Static } from '@sinclair/typebox';
import { Page, Timestamp } from './common.js';
import { TIER_NAMES } from '../tier-limits.js';

export const Tier = Type.Union(TIER_NAMES.map((t) => Type.Literal(t)));
export type Tier = Static<typeof Tier>;
export const TIERS: readonly Tier[] = TIER_NAMES;

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.Optional(Type.String()),
  subscription_tier: Tier,
  created_at: Timestamp,
});
export type User = Static<typeof User>;

export const Usage = Type.Object({
  characters_used: Type.Integer(),
  characters_limit: Type.Integer(),
  requests_today: Type.Integer(),
  period_start: Type.String({ format: 'date' }),
  period_end: Type.String({ format: 'date' }),
  subscription_tier: Tier,
});
export type Usage = Static<typeof Usage>;

export const KeyScope = Type.Union([Type.Literal('full'), Type.Literal('read')]);
export type KeyScope = Static<typeof KeyScope>;

export const CreateKeyRequest = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  scope: Type.Optional(KeyScope),
});
export type CreateKeyRequest = Static<typeof CreateKeyRequest>;

export const CreatedKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: KeyScope,
  key: Type.String(),
  created_at: Timestamp,
});
export type CreatedKey = Static<typeof CreatedKey>;

export const ApiKeyInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: KeyScope,
  prefix: Type.String(),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
});
export type ApiKeyInfo = Static<typeof ApiKeyInfo>;
export const ApiKeyPage = Page(ApiKeyInfo);
export type ApiKeyPage = Static<typeof ApiKeyPage>;
