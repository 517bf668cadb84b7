import { z } from 'zod';

/** One invite as listed: never its token. */
export const inviteSchema = z.object({
  id: z.uuid(),
  email: z.string().nullable().meta({ description: 'The only address that may use it, or null' }),
  createdBy: z.string().meta({ description: 'The id of the admin user who made it' }),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  status: z.enum(['pending', 'used', 'expired', 'revoked']),
  usedAt: z.iso.datetime().nullable(),
  usedBy: z.string().nullable().meta({ description: 'The account made with it' }),
});

/** Answer of `POST /api/invites`: the link is shown this once. */
export const inviteCreatedSchema = z.object({
  invite: inviteSchema,
  url: z.string().meta({
    description:
      '`{base_url}/sign-up?invite=gw_inv_...`: shown once, the token stored only as a hash',
  }),
});

/** Answer of `GET /api/invites`. */
export const inviteListSchema = z.object({ invites: z.array(inviteSchema) });
