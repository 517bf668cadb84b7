import { CREDENTIAL_SOURCES, explanationSchema } from '@gateway/sdk/contract';
import { z } from 'zod';

/** Query of `GET /api/explain`. */
export const explainQuery = z
  .object({
    tool: z
      .string()
      .min(1)
      .max(300)
      .meta({ description: 'The tool path, e.g. `github.repos.list`' }),
    userId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'Whose call to explain; default the caller (admins: anyone)' }),
    serviceAccountId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "A service account's call instead of a user's (admins)" }),
    endpointId: z.string().min(1).max(200).optional().meta({
      description: "Through this MCP endpoint of the user: its tool patterns narrow the role's",
    }),
  })
  .strict();

export type Explanation = z.infer<typeof explanationSchema>;
export type CredentialExplanation = NonNullable<Explanation['credential']>;

export { CREDENTIAL_SOURCES, explanationSchema };
