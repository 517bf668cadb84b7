import type { Context } from 'hono';
import { clientAddress } from '../auth/client-ip.js';
import { consumeRateLimit, type RateLimitRule } from '../auth/rate-limit.js';
import type { GatewayDatabase } from '../db/index.js';
import { Refusal } from '../errors/refusal.js';
import type { ServerLogger } from '../http/logger.js';

/** Thirty wrong credentials a minute per client address. */
export const DEFAULT_FAILED_CREDENTIAL_LIMIT: RateLimitRule = Object.freeze({
  window: 60,
  max: 30,
});

/**
 * Counts wrong bearer credentials (unknown, expired or revoked tokens and keys, a wrong service
 * secret) per client address, in the database's rate-limit table, so the count holds across
 * instances. Past the limit a wrong credential answers 429 with `Retry-After` instead of 401. Only
 * failures are counted: a valid token is never slowed, whoever shares its address.
 *
 * A request made in process (`gateway.fetch()`, the web app's own API calls) has no address and
 * is not counted.
 *
 * @example
 * const limit = createFailedCredentialLimit({ database, trustedProxies: [] });
 * throw await limit.refuse(c, unauthorized);
 */
export function createFailedCredentialLimit(options: {
  database: GatewayDatabase;
  trustedProxies: readonly string[];
  logger?: ServerLogger;
  rule?: RateLimitRule;
  /** The clock the limit counts by (a test's; `Date.now` otherwise). */
  now?: (() => number) | undefined;
}) {
  const rule = options.rule ?? DEFAULT_FAILED_CREDENTIAL_LIMIT;
  return {
    /** Counts a failure of the request's address; returns `error`, or a 429 past the limit. */
    async refuse(c: Context, error: Refusal): Promise<Refusal> {
      let address: string | undefined;
      try {
        address = clientAddress(c, options.trustedProxies, options.logger);
      } catch (refusal) {
        // A forwarded chain it cannot read: refused, never charged to the proxy.
        if (Refusal.isInstance(refusal)) return refusal;
        throw refusal;
      }
      if (address === undefined) return error;
      const decision = await consumeRateLimit(
        options.database.db,
        `${address}|bad-credential`,
        rule,
        options.now?.(),
      );
      if (decision.allowed) return error;
      return new Refusal(
        'rate_limited',
        `Too many wrong credentials from your address; retry in ${decision.retryAfter}s`,
        undefined,
        { retryAfter: decision.retryAfter },
      );
    },
  };
}

/** The failed-credential limit of a gateway. */
export type FailedCredentialLimit = ReturnType<typeof createFailedCredentialLimit>;
