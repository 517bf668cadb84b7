/**
 * What a service refuses, by code: the catalogue of domain errors. Each code names the HTTP
 * error code it becomes (`http/route.ts`, `httpErrorOf`), so the API's answers read the same
 * whichever layer refused.
 */
export const REFUSAL_CODES = [
  /** The request asks for something this gateway cannot do as asked (a malformed setting). */
  'bad_request',
  /** No such resource, or one the caller may not see (another user's is not found either). */
  'not_found',
  /** The resource's state forbids it: an id taken, the last admin, a role still held. */
  'conflict',
  /** A stored secret no configured auth secret opens. */
  'secret_unreadable',
  /** Something the service needs is down (an upstream's tool list could not be fetched). */
  'service_unavailable',
] as const;

/** A code of {@link REFUSAL_CODES}. */
export type RefusalCode = (typeof REFUSAL_CODES)[number];

const MARKER = Symbol.for('gateway.server.refusal');

/**
 * A service's refusal: a code of the catalogue, a message written for the caller (never a
 * secret, a token or a stack), and optional details saying what to fix. Services throw it; the
 * HTTP layer maps it to its answer in one place (`httpErrorOf` of `http/route.ts`).
 *
 * @example
 * throw new Refusal('not_found', `No role "${id}"`);
 */
export class Refusal extends Error {
  readonly code: RefusalCode;
  readonly details: unknown;
  readonly [MARKER] = true;

  constructor(code: RefusalCode, message: string, details?: unknown) {
    super(message);
    this.name = 'Refusal';
    this.code = code;
    this.details = details;
  }

  /** Whether `error` is a {@link Refusal}. */
  static isInstance(error: unknown): error is Refusal {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
