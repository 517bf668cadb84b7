import { inviteCreatedSchema, inviteListSchema, inviteSchema } from '@gateway/sdk/contract';
import { z } from 'zod';

/** An email address as an invite is bound to it; compared case-insensitively. */
const inviteEmail = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((email) => email.toLowerCase());

/** Body of `POST /api/invites`. */
export const createInviteBody = z
  .object({
    email: inviteEmail.optional().meta({
      description:
        'The only address that may use the invite; omit for anyone (within the allowed domains)',
    }),
    expiresInDays: z
      .int()
      .min(1)
      .max(90)
      .optional()
      .meta({ description: 'Days the link stays valid, 1 to 90; default 7' }),
  })
  .strict();

export { inviteCreatedSchema, inviteListSchema, inviteSchema };
