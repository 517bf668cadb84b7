import type { ServerLogger } from '../http/logger.js';

/** How often an ongoing outage of one provider is logged: once a minute. */
export const OUTAGE_LOG_INTERVAL_MS = 60_000;

/** Logs that a sign-in provider cannot be reached, once per interval per provider. */
export interface OutageLog {
  /**
   * Logs `reason` (no secret in it) as a warning for `providerId` unless that provider's outage was logged less
   * than the interval ago; then only counts it, and the next line says how many were left out.
   */
  report(providerId: string, reason: string): void;
}

/**
 * An {@link OutageLog} on `logger`. Every call of every user during an outage fails the same
 * way; one line a minute says so without burying the log (issue 39: 50 calls gave 50 lines).
 *
 * @example
 * const outages = createOutageLog(logger);
 * outages.report('gcp', 'https://idp.example/.well-known/openid-configuration answered 503'); // logged; the same within a minute is counted, not logged
 */
export function createOutageLog(
  logger: ServerLogger,
  options: { intervalMs?: number; now?: () => number } = {},
): OutageLog {
  const intervalMs = options.intervalMs ?? OUTAGE_LOG_INTERVAL_MS;
  const now = options.now ?? Date.now;
  const last = new Map<string, { at: number; suppressed: number }>();
  return {
    report(providerId, reason) {
      const at = now();
      const seen = last.get(providerId);
      if (seen !== undefined && at - seen.at < intervalMs) {
        seen.suppressed += 1;
        return;
      }
      last.set(providerId, { at, suppressed: 0 });
      logger.warn('a sign-in provider cannot be reached', {
        providerId,
        error: reason,
        ...(seen !== undefined && seen.suppressed > 0
          ? { notLoggedSinceLastLine: seen.suppressed }
          : {}),
      });
    },
  };
}

/**
 * What a user is told when provider `name` cannot be reached: it is down, nothing of theirs
 * expired, and nothing needs reconnecting.
 *
 * @example
 * providerUnreachableText('Google Cloud'); // 'Google Cloud sign-in cannot be reached right now; try again shortly'
 */
export function providerUnreachableText(name: string): string {
  return `${name} sign-in cannot be reached right now; try again shortly`;
}
