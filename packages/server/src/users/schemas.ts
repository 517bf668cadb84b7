import { z } from 'zod';

/** One user of `GET /api/users`. */
export const userItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  createdAt: z.iso.datetime(),
  roleId: z
    .string()
    .meta({ description: 'The role that applies: the assigned one or the default' }),
  roleAssigned: z
    .boolean()
    .meta({ description: 'false when the user has the default role (`GATEWAY_DEFAULT_ROLE`)' }),
});

/** Answer of `GET /api/users`. */
export const userListSchema = z.object({
  users: z.array(userItemSchema).meta({ description: 'Every user, oldest first' }),
});

export type UserItem = z.infer<typeof userItemSchema>;
