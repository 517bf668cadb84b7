import type { GatewayDatabase } from '../db/database.js';
import { Refusal } from '../errors/refusal.js';
import { defineRoute } from '../http/route.js';
import { maskSecret } from '../secrets/index.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { connectionCreatedSchema, createConnectionBody } from './schemas.js';
import { type CreateConnectionProblem, createConnection } from './store.js';

/**
 * `POST /api/connections`: stores a tool secret for a user, encrypted, and answers with its
 * masked form only.
 *
 * @example
 * routes.push(createConnectionRoute(services));
 */
export function createConnectionRoute(services: { database: GatewayDatabase; secrets: SecretBox }) {
  return defineRoute({
    method: 'post',
    path: '/api/connections',
    summary: 'Connect a tool: store its API key or token for a user',
    tag: 'Connections',
    access: 'user',
    actsFor: 'body',
    body: createConnectionBody,
    responses: {
      201: { description: 'Stored; the secret is shown masked', schema: connectionCreatedSchema },
      400: {
        description:
          'Invalid or unknown fields (`validation_failed`), or a parent of another tool (`bad_request`)',
      },
      401: { description: 'No credentials' },
      403: { description: "Another user's userId, without being an admin" },
      404: { description: 'No such user, or the parent is not one of their connections' },
      409: { description: 'The user already has a connection of this tool with this name here' },
    },
    async handler(c, { body }) {
      const result = await createConnection(services.database.db, {
        userId: body.userId,
        toolId: body.toolId,
        instanceName: body.instanceName,
        encryptedSecret: services.secrets.encrypt(body.secret),
        maskedSecret: maskSecret(body.secret),
        description: body.description,
        workspaceId: body.workspaceId,
        parentId: body.parentId,
      });
      if (!result.ok) throw problemError(result, body);
      const { connection } = result;
      return c.json(
        {
          id: connection.id,
          toolId: connection.tool_id,
          instanceName: connection.instance_name,
          maskedSecret: connection.masked_secret,
        },
        201,
      );
    },
  });
}

function problemError(
  result: CreateConnectionProblem,
  body: { userId: string; toolId: string; instanceName: string; parentId?: string | undefined },
): Refusal {
  switch (result.problem) {
    case 'user_not_found':
      return new Refusal('not_found', `No user ${body.userId}`);
    case 'parent_not_found':
      return new Refusal('not_found', `No connection ${body.parentId}`);
    case 'parent_tool_mismatch':
      return new Refusal(
        'bad_request',
        `Parent connection ${body.parentId} is for tool "${result.parentToolId}", not "${body.toolId}"; a nested connection must be for its parent's tool`,
      );
    case 'duplicate':
      return new Refusal(
        'conflict',
        `A connection of tool "${body.toolId}" named "${body.instanceName}" already exists here; choose another instanceName or delete that one`,
      );
  }
}
