import { z } from 'zod';

/** `GET /api/me` for a signed-in person (a session cookie or a `gw_cli_` token). */
export const meUserSchema = z.object({
  kind: z.literal('user'),
  userId: z.string().meta({ description: 'The `userId` the user-scoped routes take' }),
  email: z.string(),
  name: z.string(),
  roleId: z
    .string()
    .meta({ description: 'The role that applies: the assigned one or the default' }),
  isAdmin: z.boolean(),
  via: z.enum(['session', 'cli_token']).meta({
    description: '`session`: a browser session cookie; `cli_token`: a `gw_cli_` bearer token',
  }),
});

/** `GET /api/me` for a service account's `gw_sa_` key. */
export const meServiceAccountSchema = z.object({
  kind: z.literal('service_account'),
  serviceAccountId: z.string(),
  name: z.string(),
  roleId: z.string().meta({ description: 'The role whose tools the account may call' }),
});

/** `GET /api/me` for the service secret (`SERVICE_API_SECRET`), which is nobody in particular. */
export const meServiceSchema = z.object({ kind: z.literal('service') });

/** Answer of `GET /api/me`: who the credential of the request belongs to, by kind. */
export const meSchema = z.discriminatedUnion('kind', [
  meUserSchema,
  meServiceAccountSchema,
  meServiceSchema,
]);

export type Me = z.infer<typeof meSchema>;
