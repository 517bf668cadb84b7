import { z } from 'zod';

/** Answer of `POST /api/cli/token`. */
export const cliTokenIssuedSchema = z.object({
  token: z.string().meta({ description: '`gw_cli_...`: shown once, stored only as a hash' }),
  userId: z.string(),
  id: z.uuid().meta({ description: 'The token id, for listing and revoking' }),
  expiresAt: z.iso.datetime().meta({
    description: 'When the token stops working (`GATEWAY_CLI_TOKEN_DAYS` after issue)',
  }),
});

/** One CLI token as listed. */
export const cliTokenItemSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  maskedToken: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  expiresAt: z.iso.datetime().nullable().meta({
    description: 'When the token stops working; null for a token issued before tokens expired',
  }),
});

/** Answer of `GET /api/cli/tokens`. */
export const cliTokenListSchema = z.object({ tokens: z.array(cliTokenItemSchema) });
