/**
 * What a service refuses, by code: the catalogue of domain errors. Each code names the HTTP
 * error code it becomes (`http/route.ts`, `httpErrorOf`), so the API's answers read the same
 * whichever layer refused; in an MCP call it becomes the tool's error result, or the protocol
 * error of `mcp/refusal-errors.ts`.
 */
export const REFUSAL_CODES = [
  /** The request asks for something this gateway cannot do as asked (a malformed setting). */
  'bad_request',
  /** The input breaks a rule of its schema; `details` lists each field as `{ path, message }`. */
  'validation_failed',
  /** No credential where one is needed, or one that matches nothing (expired, revoked). */
  'unauthorized',
  /** The caller is known but may not do this (a service account deciding an approval). */
  'forbidden',
  /** No such resource, or one the caller may not see (another user's is not found either). */
  'not_found',
  /** The resource's state forbids it: an id taken, the last admin, a role still held. */
  'conflict',
  /** A stored secret no configured auth secret opens. */
  'secret_unreadable',
  /** Too many attempts: the same request may succeed after {@link RefusalHints.retryAfter}. */
  'rate_limited',
  /** Something the service needs is down (an upstream's tool list could not be fetched). */
  'service_unavailable',
] as const;

/** A code of {@link REFUSAL_CODES}. */
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/**
 * What a refusal tells the caller beyond its message, in the protocol's own terms: the HTTP layer
 * sends them as `Retry-After` and `WWW-Authenticate`.
 */
export interface RefusalHints {
  /** Whole seconds after which the same request may succeed. */
  readonly retryAfter?: number;
  /** The authentication challenge of an `unauthorized` refusal (RFC 6750 `Bearer ...`). */
  readonly challenge?: string;
}

const MARKER = Symbol.for('gateway.server.refusal');

/**
 * A service's refusal: a code of the catalogue, a message written for the caller (never a
 * secret, a token or a stack), optional details saying what to fix, and optional
 * {@link RefusalHints}. Services throw it; the HTTP layer maps it to its answer in one place
 * (`httpErrorOf` of `http/route.ts`), the MCP call pipeline to a tool error or protocol error.
 *
 * @example
 * throw new Refusal('not_found', `No role "${id}"`);
 * throw new Refusal('rate_limited', 'Retry in 6s', undefined, { retryAfter: 6 });
 */
export class Refusal extends Error {
  readonly code: RefusalCode;
  readonly details: unknown;
  readonly hints: RefusalHints | undefined;
  readonly [MARKER] = true;

  constructor(code: RefusalCode, message: string, details?: unknown, hints?: RefusalHints) {
    super(message);
    this.name = 'Refusal';
    this.code = code;
    this.details = details;
    this.hints = hints;
  }

  /** Whether `error` is a {@link Refusal}. */
  static isInstance(error: unknown): error is Refusal {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
