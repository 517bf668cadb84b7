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
  linkedAccounts: z
    .array(
      z.object({
        id: z.string().meta({ description: 'The link (account row) id' }),
        providerId: z.string().meta({
          description: 'The OAuth provider, as `GET /api/connectors/availability` names it',
        }),
        createdAt: z.iso.datetime().meta({ description: 'When the account was linked' }),
        updatedAt: z.iso.datetime().meta({
          description: 'When the link last changed: linked again, or its tokens refreshed',
        }),
        needsReconnect: z.boolean().meta({
          description:
            'The provider refused to renew it (`invalid_grant`); `gateway connect <providerId>` or the Tools tab connects it again',
        }),
      }),
    )
    .meta({
      description:
        'The OAuth accounts linked to the user, by provider then age (no token; the password sign-in is not one)',
    }),
  token: z
    .object({
      id: z.uuid().meta({ description: 'The CLI token id (as `GET /api/cli/tokens` lists it)' }),
      expiresAt: z.iso.datetime().nullable().meta({
        description:
          'When the token stops working; null for a token issued before CLI tokens expired',
      }),
    })
    .optional()
    .meta({
      description: 'The `gw_cli_` token of the request (`via: cli_token` only), never its value',
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
