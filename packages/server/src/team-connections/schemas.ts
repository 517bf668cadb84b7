import { z } from 'zod';
import { connectionFields } from '../connections/schemas.js';

/** Body of `POST /api/team/connections`. */
export const createTeamConnectionBody = z
  .object({
    ...connectionFields,
    toolId: connectionFields.toolId.meta({
      description: 'The tool (auth provider id) the secret serves, e.g. `weather`',
    }),
  })
  .strict();

/** Answer of `POST /api/team/connections` (the camelCase create shape of connections). */
export const teamConnectionCreatedSchema = z.object({
  id: z.uuid(),
  toolId: z.string(),
  instanceName: z.string(),
  maskedSecret: z.string(),
});

/** One team connection as listed. `maskedSecret` is shown to admins only. */
export const teamConnectionItemSchema = z.object({
  id: z.uuid(),
  toolId: z.string(),
  instanceName: z.string(),
  description: z.string().nullable(),
  workspaceId: z.string().nullable(),
  maskedSecret: z.string().optional().meta({ description: 'Admins only' }),
  createdBy: z.string().optional().meta({ description: 'Admins only: the admin who stored it' }),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** Answer of `GET /api/team/connections`. */
export const teamConnectionListSchema = z.object({
  connections: z.array(teamConnectionItemSchema),
});
