import type { GatewayDatabase } from '../../src/db/index.js';
import { createTokenRepository } from '../../src/identity/index.js';

/**
 * The endpoint an MCP token opens and its user, as the gateway's own token repository finds it
 * (undefined when the token opens nothing): what a test asks after creating or deleting one.
 *
 * @example
 * expect(await endpointOwner(gw.services.database, token)).toEqual({ id, userId: alice.id });
 */
export async function endpointOwner(
  database: GatewayDatabase,
  token: string,
): Promise<{ id: string; userId: string } | undefined> {
  const lookup = await createTokenRepository(database, 'member').find(token);
  if (!lookup.found || lookup.owner.kind !== 'mcp') return undefined;
  return { id: lookup.owner.endpointId, userId: lookup.owner.userId };
}
