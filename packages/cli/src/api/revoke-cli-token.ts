import { callGateway, type Fetch } from './gateway-api.js';
import { deleted } from './schemas.js';

/**
 * Revokes a CLI token with itself (`DELETE /api/cli/tokens/:id`). Resolves whether the gateway
 * confirmed; never throws: the token may be revoked already, or the gateway unreachable.
 */
export async function revokeCliToken(
  base: string,
  token: string,
  tokenId: string | undefined,
  fetchImpl?: Fetch,
): Promise<boolean> {
  if (tokenId === undefined) return false;
  try {
    await callGateway(
      { base, token, ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }) },
      { method: 'DELETE', path: `/api/cli/tokens/${encodeURIComponent(tokenId)}`, schema: deleted },
    );
    return true;
  } catch {
    return false;
  }
}
