import { z } from 'zod';

export const CREDENTIAL_SOURCES = [
  'connection',
  'team_connection',
  'oauth',
  'api_key',
  'none',
  'not_needed',
] as const;

/** Answer of `GET /api/explain`. */
export const explanationSchema = z.object({
  toolPath: z.string(),
  subject: z.object({
    kind: z.enum(['user', 'service_account']),
    id: z.string(),
    roleId: z.string(),
  }),
  known: z.boolean().meta({
    description:
      'The tool exists, as far as the asker may know: false also for a tool the subject may not see when the asker is not an admin',
  }),
  visible: z.boolean().meta({ description: 'The subject sees the tool and may call it' }),
  callable: z.boolean().meta({
    description: 'Visible, a credential would be found (or none is needed), and the source is up',
  }),
  reasons: z.array(z.string()).meta({ description: 'The verdict, in sentences' }),
  role: z.object({
    id: z.string(),
    admits: z.boolean(),
    pattern: z.string().nullable().meta({ description: 'The first pattern of the role matching' }),
  }),
  endpoint: z
    .object({
      id: z.string(),
      admits: z.boolean(),
      pattern: z.string().nullable().meta({
        description: 'The toolset pattern matching; null: the endpoint serves the whole role',
      }),
      mode: z.enum(['tools', 'discovery']),
    })
    .nullable(),
  credential: z
    .object({
      source: z.enum(CREDENTIAL_SOURCES).meta({
        description:
          '`connection`: own connection; `team_connection`; `oauth`: the sign-in account; `api_key`: the server key; `none`; `not_needed`',
      }),
      provider: z.string().nullable(),
      required: z.boolean().meta({
        description:
          'The tool names this provider, so a call needs it; false when the tool picks one (or none) at run time',
      }),
      why: z.string(),
    })
    .nullable()
    .meta({ description: 'Null when the tool is not visible' }),
  approval: z
    .object({
      asks: z.enum(['yes', 'no', 'tool']).meta({
        description:
          '`yes`: the gateway asks before every call (a plugin tool declaring `approval:` too); `no`: it does not; `tool`: a plugin tool, whose handler decides (`requireApproval`)',
      }),
      why: z.string(),
    })
    .nullable(),
  source: z
    .object({ id: z.string(), healthy: z.boolean(), detail: z.string().nullable() })
    .nullable(),
});
