import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { idParams, requireUuid } from '../http/id-param.js';
import type { ServerLogger } from '../http/logger.js';
import { defineRoute } from '../http/route.js';
import { SecretDecryptError, SecretUnreadableError } from '../secrets/index.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { decryptedSchema } from './schemas.js';
import { findEncryptedSecret } from './store.js';

/**
 * `POST /api/connections/:id/decrypt`: the raw secret of a connection, for trusted servers
 * holding `SERVICE_API_SECRET` only (token vending). No user, admin included, may call it: a
 * browser session that could read raw secrets would defeat storing them encrypted.
 *
 * @example
 * routes.push(decryptConnectionRoute(services));
 */
export function decryptConnectionRoute(services: {
  database: GatewayDatabase;
  secrets: SecretBox;
  logger: ServerLogger;
}) {
  return defineRoute({
    method: 'post',
    path: '/api/connections/:id/decrypt',
    summary: 'Decrypt a stored secret (server-to-server only)',
    tag: 'Connections',
    access: 'service',
    params: idParams,
    responses: {
      200: { description: 'The raw secret', schema: decryptedSchema },
      401: { description: 'No credentials' },
      403: { description: 'Not the service secret (a user session or CLI token)' },
      404: { description: 'No such connection' },
      409: {
        description:
          'secret_unreadable: no configured auth secret opens the stored value (AUTH_SECRET changed without the old one in GATEWAY_PREVIOUS_AUTH_SECRETS, or the value was altered)',
      },
    },
    async handler(c, { params }) {
      const id = requireUuid(params.id, 'connection');
      const stored = await findEncryptedSecret(services.database.db, id);
      if (stored === undefined) throw new Refusal('not_found', `No connection ${id}`);
      let secret: string;
      try {
        secret = services.secrets.decrypt(stored);
      } catch (error) {
        if (!(error instanceof SecretDecryptError)) throw error;
        // The decrypt error's message names the reason and never the stored value or key; the
        // stored value is not logged either, as it is the secret's ciphertext.
        services.logger.error('stored secret cannot be decrypted', {
          requestId: c.get('requestId'),
          connectionId: id,
          reason: error.message,
        });
        const row = await services.database.db
          .selectFrom('connections')
          .select(['owner', 'tool_id'])
          .where('id', '=', id)
          .executeTakeFirst();
        throw new SecretUnreadableError(
          { id, owner: row?.owner ?? 'user', toolId: row?.tool_id ?? 'unknown' },
          { cause: error },
        ).toRefusal();
      }
      // The raw secret must not linger in any cache between here and the caller.
      c.header('Cache-Control', 'no-store');
      return c.json({ id, secret }, 200);
    },
  });
}
