import { z } from 'zod';

/** Where the browser goes once a connect ends. */
export type ConnectReturn = { kind: 'web' } | { kind: 'cli'; redirectUri: string; state: string };

/** A stored {@link ConnectReturn}, checked as it is read back. */
export const returnSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('web') }),
  z.object({ kind: z.literal('cli'), redirectUri: z.string(), state: z.string() }),
]);

/**
 * Why a connect did not complete: `code` for the CLI's loopback and the page, `message` for the
 * person (never a token or an authorization server's raw answer).
 */
export class ConnectError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Where the flow wanted the browser to go, once the flow is known. */
    readonly flow?: { sourceId: string; returnTo: ConnectReturn },
  ) {
    super(message);
    this.name = 'ConnectError';
  }
}
