import type { ConnectionOwner } from '../../src/connections/tables.js';
import { maskSecret } from '../../src/secrets/index.js';
import { rememberSecret } from '../support/known-secrets.js';
import type { TestGateway } from '../support/test-gateway.js';

/**
 * Stores a connection (a credential for `toolId`) as the Tools tab would, encrypted, and answers
 * its id. The secret is remembered, so the leak check fails a test that lets it out.
 */
export async function addConnection(
  gw: TestGateway,
  input: { userId: string; owner?: ConnectionOwner; toolId: string; secret: string },
): Promise<string> {
  rememberSecret(input.secret);
  const id = crypto.randomUUID();
  const at = new Date().toISOString();
  await gw.services.database.db
    .insertInto('connections')
    .values({
      id,
      user_id: input.userId,
      owner: input.owner ?? 'user',
      tool_id: input.toolId,
      instance_name: 'Default',
      description: null,
      encrypted_secret: gw.services.secrets.encrypt(input.secret),
      masked_secret: maskSecret(input.secret),
      workspace_id: null,
      parent_id: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}
