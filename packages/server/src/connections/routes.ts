import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import type { AnyRoute } from '../http/route.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { createConnectionRoute } from './create-connection.js';
import { decryptConnectionRoute } from './decrypt-connection.js';
import { deleteConnectionRoute } from './delete-connection.js';
import { listConnectionsRoute } from './list-connections.js';

/** What the connection routes read of the gateway's services. */
export type ConnectionsDeps = {
  database: GatewayDatabase;
  secrets: SecretBox;
  logger: ServerLogger;
};

/**
 * The `/api/connections` routes: create, list, delete and (server-side) decrypt.
 *
 * @example
 * const routes: AnyRoute[] = [...connectionRoutes(services)];
 */
export function connectionRoutes(services: ConnectionsDeps): AnyRoute[] {
  return [
    createConnectionRoute(services),
    listConnectionsRoute(services),
    deleteConnectionRoute(services),
    decryptConnectionRoute(services),
  ];
}
