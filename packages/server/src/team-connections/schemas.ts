import { z } from 'zod';

/** Body of `POST /api/team/connections`. */
export const createTeamConnectionBody = z
  .object({
    toolId: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_.-]{0,99}$/,
        'Use 1-100 of a-z, 0-9, _, . and -, starting with a letter or digit',
      )
      .meta({ description: 'The tool (auth provider id) the secret serves, e.g. `weather`' }),
    instanceName: z
      .string()
      .min(1)
      .max(200)
      .meta({ description: 'Display name of this connection' }),
    secret: z
      .string()
      .min(1)
      .max(10_000)
      .meta({ description: 'API key or token; stored encrypted, never returned raw' }),
    description: z.string().max(1000).optional(),
    workspaceId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'Workspace or project id' }),
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
