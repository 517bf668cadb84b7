import { z } from 'zod';

/** Answer of `POST /api/connections` (camelCase, as the spec gives it). */
export const connectionCreatedSchema = z.object({
  id: z.uuid(),
  toolId: z.string(),
  instanceName: z.string(),
  maskedSecret: z.string(),
});

/** One element of `GET /api/connections` (snake_case, as the spec gives it). */
export const connectionListItemSchema = z.object({
  id: z.uuid(),
  user_id: z.string(),
  tool_id: z.string(),
  instance_name: z.string(),
  masked_secret: z.string(),
  workspace_id: z.string().nullable(),
  parent_id: z.uuid().nullable().meta({ description: 'Parent connection, for nested instances' }),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

/** Answer of `GET /api/connections`. */
export const connectionListSchema = z.object({ connections: z.array(connectionListItemSchema) });
