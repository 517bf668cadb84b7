import { z } from 'zod';

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
