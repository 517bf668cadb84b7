import {
  connectionCreatedSchema,
  connectionListItemSchema,
  connectionListSchema,
} from '@gateway/sdk/contract';
import { z } from 'zod';
import { userIdSchema } from '../http/common-schemas.js';

/** The fields a stored connection is made of, shared by user and team connections. */
export const connectionFields = {
  toolId: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9_.-]{0,99}$/,
      'Use 1-100 of a-z, 0-9, _, . and -, starting with a letter or digit',
    )
    .meta({ description: 'The tool (or provider) the secret is for, e.g. `github`' }),
  instanceName: z.string().min(1).max(200).meta({ description: 'Display name of this connection' }),
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
};

/** Body of `POST /api/connections`. */
export const createConnectionBody = z
  .object({
    userId: userIdSchema,
    ...connectionFields,
    parentId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'A connection of the same user and tool to nest this one under' }),
  })
  .strict();

/** Answer of `POST /api/connections/:id/decrypt`. */
export const decryptedSchema = z.object({ id: z.uuid(), secret: z.string() });

export { connectionCreatedSchema, connectionListItemSchema, connectionListSchema };
