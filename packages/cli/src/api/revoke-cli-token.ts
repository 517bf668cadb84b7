import { GatewayRefusal } from './api-error.js';
import { callGateway, type Fetch } from './gateway-api.js';
import { deleted } from './schemas.js';

/**
 * What came of revoking a token: the gateway confirmed (`revoked`), said it had expired already
 * (`expired`, when), or could not confirm (unreachable, revoked already, an old credential).
 */
export type RevokeOutcome =
  | { kind: 'revoked' }
  | { kind: 'expired'; expiredAt: string }
  | { kind: 'unconfirmed' };

/**
 * Revokes a CLI token with itself (`DELETE /api/cli/tokens/:id`). Never throws: the token may be
 * expired or revoked already, or the gateway unreachable.
 *
 * @example
 * const outcome = await revokeCliToken(base, token, tokenId);
 * if (outcome.kind === 'unconfirmed') warn();
 */
export async function revokeCliToken(
  base: string,
  token: string,
  tokenId: string | undefined,
  fetchImpl?: Fetch,
): Promise<RevokeOutcome> {
  if (tokenId === undefined) return { kind: 'unconfirmed' };
  try {
    await callGateway(
      { base, token, ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }) },
      { method: 'DELETE', path: `/api/cli/tokens/${encodeURIComponent(tokenId)}`, schema: deleted },
    );
    return { kind: 'revoked' };
  } catch (error) {
    // An expired token works nowhere any more: nothing is left to revoke.
    if (error instanceof GatewayRefusal && error.expiredAt !== undefined) {
      return { kind: 'expired', expiredAt: error.expiredAt };
    }
    return { kind: 'unconfirmed' };
  }
}
