import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PAGING } from '../constants.js';

/** One validation problem: where (`loc`), what (`msg`) and its kind (`type`). */
export const ValidationErrorItem = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  msg: Type.String(),
  type: Type.String(),
});

/** Every error response of the API (DESIGN §4.2). */
export const ErrorBody = Type.Object(
  {
    detail: Type.String(),
    status_code: Type.Integer(),
    request_id: Type.String(),
    /** The stable machine code of the error (`src/shared/errors.ts`); scripts rely on it, not on `detail`. */
    code: Type.String({ description: 'Stable machine-readable error code, e.g. speaker_not_found, quota_exceeded' }),
    errors: Type.Optional(Type.Array(ValidationErrorItem)),
  },
  { $id: 'ErrorBody' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** `limit`/`offset` query of every list endpoint (DESIGN §4.3). */
export const PagingQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: PAGING.minLimit, maximum: PAGING.maxLimit, default: PAGING.defaultLimit })),
  // The maximum keeps offsets bindable as SQLite integers (1e20 would be a 500 "datatype mismatch").
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
});
export type PagingQuery = Static<typeof PagingQuery>;

/** The paging envelope of every list response. */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    has_more: Type.Boolean(),
  });
export interface PageOf<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

/** Error responses a route declares besides its success status (for OpenAPI and serialisation). */
export const errorResponses = (...codes: number[]): Record<number, typeof ErrorBody> =>
  Object.fromEntries(codes.map((c) => [c, ErrorBody]));

/** ISO 8601 UTC timestamp string. */
export const Timestamp = Type.String({ format: 'date-time' });
