/** The accounts feature as its routes use it: the caller's profile and usage, and API keys (DESIGN §4.2–§4.5). */
import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import type { ApiKeyPage, CreatedKey, CreateKeyRequest, Usage, User } from '../../../shared/schemas/users.js';
import { mapSettled } from '../../../shared/maybe-promise.js';
import { getUsage } from '../limits/index.js';
import { createApiKey, deleteApiKey, listApiKeys } from './keys.js';
import { getUser, toUser } from './users.js';

/** What the accounts routes call. */
export interface AccountsFeature {
  /** The caller's profile; without a promise when the user is remembered (the hot path of scripts). */
  me(userId: string): User | Promise<User>;
  /** Usage of the current billing period, with the requests counted today. */
  usage(userId: string): Promise<Usage>;
  createKey(userId: string, request: CreateKeyRequest): Promise<CreatedKey>;
  keys(userId: string, paging: { limit: number; offset: number }): Promise<ApiKeyPage>;
  /** Revokes the caller's key `keyId`; the calling key cannot remove itself when it is the last full one. */
  deleteKey(caller: { userId: string; keyId: string }, keyId: string): Promise<void>;
}

/** Binds the account rules to the service's collaborators (called once, by the composition root). */
export function createAccountsFeature(deps: { db: Db; clock: Clock; requestsToday: (userId: string) => Promise<number> }): AccountsFeature {
  const { db, clock } = deps;
  return {
    me: (userId) => mapSettled(getUser(db, userId), toUser),
    usage: async (userId) => getUsage(db, { userId, now: clock.now(), requestsToday: await deps.requestsToday(userId) }),
    createKey: (userId, request) => createApiKey(db, { userId, name: request.name, scope: request.scope, now: clock.now() }),
    keys: (userId, paging) => listApiKeys(db, userId, paging),
    deleteKey: (caller, keyId) => deleteApiKey(db, { userId: caller.userId, keyId, callerKeyId: caller.keyId, now: clock.now() }),
  };
}
