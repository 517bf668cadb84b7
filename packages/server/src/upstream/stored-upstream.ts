import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { GatewayDatabase } from '../db/index.js';
import { insertUpstreamSource } from '../registry/source-store.js';
import type { UpstreamOAuthHooks } from './oauth-hooks.js';
import type { StoredUpstream, UpstreamAuth, UpstreamAuthInput } from './target.js';

/** `auth` as stored: an oauth client's secret goes to its own table, encrypted, never here. */
export function storedAuth(auth: UpstreamAuthInput): UpstreamAuth {
  if (auth.kind !== 'oauth') return auth;
  return {
    kind: 'oauth',
    ...(auth.clientId === undefined ? {} : { clientId: auth.clientId }),
    ...(auth.scopes === undefined ? {} : { scopes: auth.scopes }),
  };
}

/** A registration as {@link storeRegistration} stores it. */
export interface UpstreamRegistration {
  id: string;
  namespace: string;
  /** `auth` as the admin gave it (an oauth client's secret included). */
  auth: UpstreamAuthInput;
  stored: StoredUpstream;
  /** The tool list fetched at registration (an oauth source has none yet). */
  listed: readonly McpTool[];
  /** What it offers besides tools, as JSON (`Offers`). */
  capabilities: string;
  fetchedAt: string;
}

/**
 * Stores a registration for every instance, in one transaction: its `registry_sources` row, and
 * for an oauth source the admin's pre-registered client (when given), else the tool list in
 * `upstream_tools`.
 *
 * @throws whatever the database (or `oauth.storeClient`) throws; nothing is stored then.
 */
export async function storeRegistration(
  database: GatewayDatabase,
  oauth: Pick<UpstreamOAuthHooks, 'storeClient'> | undefined,
  registration: UpstreamRegistration,
): Promise<void> {
  const { id, auth, listed, fetchedAt } = registration;
  await database.db.transaction().execute(async (trx) => {
    await insertUpstreamSource(trx, {
      id,
      namespace: registration.namespace,
      createdAt: fetchedAt,
      upstream: JSON.stringify(registration.stored),
    });
    if (auth.kind === 'oauth') {
      if (auth.clientId !== undefined) {
        await oauth?.storeClient(trx, id, {
          clientId: auth.clientId,
          clientSecret: 'clientSecret' in auth ? auth.clientSecret : undefined,
        });
      }
      return;
    }
    await trx
      .insertInto('upstream_tools')
      .values({
        source_id: id,
        tools: JSON.stringify(listed),
        fetched_at: fetchedAt,
        capabilities: registration.capabilities,
      })
      .execute();
  });
}
