import {
  createTeamConnection,
  deleteTeamConnection,
  listTeamConnections,
} from '../connections/team-store.js';
import type { GatewayDatabase } from '../db/database.js';
import { deletedSchema } from '../http/common-schemas.js';
import { HttpError } from '../http/errors.js';
import { idParams, requireUuid } from '../http/id-param.js';
import { type AnyRoute, defineRoute, noQuery } from '../http/route.js';
import { maskSecret } from '../secrets/index.js';
import type { SecretBox } from '../secrets/secret-box.js';
import {
  createTeamConnectionBody,
  teamConnectionCreatedSchema,
  teamConnectionListSchema,
} from './schemas.js';

/** What the team connection routes read of the gateway's services. */
export type TeamConnectionsDeps = { database: GatewayDatabase; secrets: SecretBox };

/**
 * `POST`, `GET` and `DELETE /api/team/connections`: tool secrets an admin connects once for
 * everyone. Token vending uses one for a user without a connection of their own for the tool.
 *
 * @example
 * routes.push(...teamConnectionRoutes(services));
 */
export function teamConnectionRoutes(services: TeamConnectionsDeps): AnyRoute[] {
  return [
    createTeamConnectionRoute(services),
    listTeamConnectionsRoute(services.database),
    deleteTeamConnectionRoute(services.database),
  ];
}

/** `POST /api/team/connections`: a tool secret an admin stores for everyone. */
function createTeamConnectionRoute(services: TeamConnectionsDeps) {
  const { db } = services.database;
  return defineRoute({
    method: 'post',
    path: '/api/team/connections',
    summary: 'Connect a tool for the whole team (admin)',
    tag: 'Team connections',
    access: 'admin',
    body: createTeamConnectionBody,
    responses: {
      201: {
        description: 'Stored; the secret is shown masked',
        schema: teamConnectionCreatedSchema,
      },
      400: { description: 'Invalid or unknown fields' },
      401: { description: 'No credentials' },
      403: { description: 'Not an admin user' },
      409: { description: 'A team connection of this tool with this name exists' },
    },
    // Access `admin`: a team connection records the admin user who stored it.
    async handler(c, { body, principal }) {
      const row = await createTeamConnection(db, {
        createdBy: principal.userId,
        toolId: body.toolId,
        instanceName: body.instanceName,
        encryptedSecret: services.secrets.encrypt(body.secret),
        maskedSecret: maskSecret(body.secret),
        description: body.description,
        workspaceId: body.workspaceId,
      });
      if (!row) {
        throw new HttpError(
          'conflict',
          `A team connection of tool "${body.toolId}" named "${body.instanceName}" exists; choose another instanceName or delete that one`,
        );
      }
      return c.json(
        {
          id: row.id,
          toolId: row.tool_id,
          instanceName: row.instance_name,
          maskedSecret: row.masked_secret,
        },
        201,
      );
    },
  });
}

/** `GET /api/team/connections`: every team connection; its secret, masked, for admins only. */
function listTeamConnectionsRoute({ db }: GatewayDatabase) {
  return defineRoute({
    method: 'get',
    path: '/api/team/connections',
    summary: 'List the tools connected for the team',
    tag: 'Team connections',
    access: 'user',
    query: noQuery,
    responses: {
      200: {
        description: 'Every team connection; the masked secret and its author for admins only',
        schema: teamConnectionListSchema,
      },
      401: { description: 'No credentials' },
    },
    async handler(c, { principal }) {
      const admin =
        principal.kind === 'trusted' || (principal.kind === 'user' && principal.isAdmin);
      const rows = await listTeamConnections(db);
      return c.json({
        connections: rows.map((row) => ({
          id: row.id,
          toolId: row.tool_id,
          instanceName: row.instance_name,
          description: row.description,
          workspaceId: row.workspace_id,
          ...(admin ? { maskedSecret: row.masked_secret, createdBy: row.user_id } : {}),
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        })),
      });
    },
  });
}

/** `DELETE /api/team/connections/:id`: disconnects a team tool. */
function deleteTeamConnectionRoute({ db }: GatewayDatabase) {
  return defineRoute({
    method: 'delete',
    path: '/api/team/connections/:id',
    summary: 'Disconnect a team tool (admin)',
    tag: 'Team connections',
    access: 'service-or-admin',
    params: idParams,
    query: noQuery,
    responses: {
      200: { description: 'Deleted; the ids removed', schema: deletedSchema },
      401: { description: 'No credentials' },
      403: { description: 'Not an admin (or the service secret)' },
      404: { description: 'No such team connection' },
    },
    async handler(c, { params }) {
      const id = requireUuid(params.id, 'team connection');
      const deleted = await deleteTeamConnection(db, id);
      if (deleted.length === 0) throw new HttpError('not_found', `No team connection ${id}`);
      return c.json({ deleted });
    },
  });
}
