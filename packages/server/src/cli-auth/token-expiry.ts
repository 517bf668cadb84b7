import { MAX_CLI_TOKEN_DAYS } from '../config/env.js';
import { Refusal } from '../errors/refusal.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What `details.reason` of the 401 for an expired CLI token says, for programs (the CLI). */
export const CLI_TOKEN_EXPIRED = 'cli_token_expired';

/**
 * Checks a CLI token lifetime given in code (`createGateway({ cliTokenDays })`).
 *
 * @throws Error naming both ways to set it when `days` is not a whole number from 1 to 36,500.
 * @example
 * const days = checkCliTokenDays(options.cliTokenDays ?? cliTokenDays(env));
 */
export function checkCliTokenDays(days: number): number {
  if (!Number.isInteger(days) || days < 1 || days > MAX_CLI_TOKEN_DAYS) {
    throw new Error(
      `createGateway({ cliTokenDays }) must be a whole number of days from 1 to ${MAX_CLI_TOKEN_DAYS}, got ${days}; set it or GATEWAY_CLI_TOKEN_DAYS`,
    );
  }
  return days;
}

/**
 * When a CLI token issued at `issuedAt` stops working, `days` later, as stored in `expires_at`.
 *
 * @example
 * cliTokenExpiry(new Date('2026-01-01T00:00:00Z'), 90); // '2026-04-01T00:00:00.000Z'
 */
export function cliTokenExpiry(issuedAt: Date, days: number): string {
  return new Date(issuedAt.getTime() + days * DAY_MS).toISOString();
}

/** `2026-04-01T09:30:12.000Z` as `2026-04-01 09:30 UTC`: a moment people read the same anywhere. */
export function formatExpiry(expiresAt: string): string {
  const date = new Date(expiresAt);
  if (Number.isNaN(date.getTime())) return expiresAt;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The 401 for a CLI token past its `expires_at`: distinct from an unknown or revoked one, so the
 * person learns that signing in again is all it takes. `details` carries the reason and the
 * moment for programs; the token itself is never in it.
 *
 * @example
 * if (row.kind === 'cli' && expired) throw cliTokenExpired(row.expires_at);
 */
export function cliTokenExpired(expiresAt: string): Refusal {
  return new Refusal(
    'unauthorized',
    `The CLI token expired on ${formatExpiry(expiresAt)}; run \`gateway login\` to sign in again`,
    { reason: CLI_TOKEN_EXPIRED, expiresAt },
  );
}
