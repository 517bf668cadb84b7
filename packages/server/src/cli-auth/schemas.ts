import {
  cliTokenIssuedSchema,
  cliTokenItemSchema,
  cliTokenListSchema,
} from '@gateway/sdk/contract';
import { z } from 'zod';

/** Body of `POST /api/cli/token`: the code exchange of the loopback flow. */
export const cliTokenBody = z
  .object({
    code: z.string().min(1).max(200).meta({ description: 'The one-time code from the redirect' }),
    code_verifier: z.string().min(1).max(200).meta({ description: 'The PKCE verifier (RFC 7636)' }),
    redirect_uri: z
      .string()
      .min(1)
      .max(200)
      .meta({ description: 'The same loopback redirect URI' }),
  })
  .strict();

export { cliTokenIssuedSchema, cliTokenItemSchema, cliTokenListSchema };
