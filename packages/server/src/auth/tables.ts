// The tables better-auth defines that `auth/` owns, and the column types all of better-auth's
// tables share (`identity/`, `vending/` and `cli-auth/` own the others).
// `db/schema.ts` composes every owner's tables into `DatabaseSchema`, so this file imports
// nothing from `db/` (no cycle).
import type { ColumnType } from 'kysely';

/**
 * A date column owned by better-auth. better-auth's own migrations make it `date` on SQLite,
 * where its adapter writes ISO 8601 strings, and `timestamptz` on PostgreSQL, where `pg` reads
 * it back as a `Date`. Reads therefore yield either; writes take an ISO string (valid on both) or
 * a `Date` (the SQLite connection turns it into an ISO string, see `db/database.ts`).
 */
export type AuthDate = ColumnType<Date | string, Date | string, Date | string>;

/**
 * A boolean column owned by better-auth: `integer` 0/1 on SQLite, `boolean` on PostgreSQL.
 * Writes take a boolean on both (the SQLite connection stores it as 0/1).
 */
export type AuthBoolean = ColumnType<boolean | number, boolean | undefined, boolean>;

/** better-auth's core `session` table. */
export interface SessionTable {
  id: string;
  expiresAt: AuthDate;
  token: string;
  createdAt: AuthDate;
  updatedAt: AuthDate;
  ipAddress: string | null;
  userAgent: string | null;
  userId: string;
}

/**
 * better-auth's `rateLimit` table: one counter per client address and path. `lastRequest` is epoch
 * milliseconds (a bigint, which `pg` reads back as a string).
 */
export interface RateLimitTable {
  id: string;
  key: string;
  count: number;
  lastRequest: ColumnType<number | string, number, number>;
}
