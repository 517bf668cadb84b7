import type { TestGateway, TestUser } from '../support/test-gateway.js';

/** Who sends a request of the matrix. */
export type CallerName =
  | 'anonymous'
  | 'other user'
  | 'owner'
  | 'admin'
  | 'service'
  | 'service account';

/**
 * A caller, or "other user, own id": the other user sending the owner's request with their own
 * `userId` in it (reaching for the owner's resource through their own scope).
 */
export type Variant = CallerName | 'other user, own id';

/** What every fixture works with: a fresh gateway, the owner (user A) and the other callers. */
export interface MatrixWorld {
  gw: TestGateway;
  /** User A, a plain user who owns the target. */
  owner: TestUser;
  /** User B, another plain user. */
  other: TestUser;
  admin: TestUser;
  /** A `gw_sa_` key of a service account with the default role. */
  serviceAccount: { token: string };
  /** A fresh name with `prefix`, unique in this world. */
  unique(prefix: string): string;
  /** A fresh secret shaped so log redaction patterns do not hide a leak of it. */
  secret(): string;
  /** Sends as the service secret (or `as`), expects a 2xx answer and returns its JSON. */
  call(method: string, path: string, body?: unknown, as?: TestUser | 'service'): Promise<unknown>;
}

/** The request a fixture built for one caller, against a target owned by user A. */
export interface MatrixRequest {
  /** The path with its parameters filled in, without the query. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** The target's id: an answer to another user must not contain it (unless `global`). */
  targetId?: string;
  /** True while the target is untouched; checked after every refused request. */
  intact?: () => Promise<boolean>;
  /** Checks the JSON of a 2xx answer. */
  check?: (body: unknown, variant: Variant) => void;
}

/** How a route picks what it acts on, which decides what another user gets. */
export type Scope =
  /** Names a `userId` (query or body): another user's id answers 403. */
  | 'user'
  /** Addresses a resource by id alone: another user's answers 404, never 403. */
  | 'resource'
  /** Acts on the caller's own things (CLI tokens): another user succeeds, on their own. */
  | 'own'
  /** The same for every caller allowed in (roles, connector availability). */
  | 'global';

/** How to build and judge a request of one route. */
export interface Fixture {
  scope: Scope;
  /** The status of a successful call. */
  success: number;
  /** Statuses that differ from those {@link expectedStatus} derives. */
  expect?: Partial<Record<Variant, number>>;
  prepare(world: MatrixWorld): Promise<MatrixRequest>;
}
