import { NAMESPACE_MAX_LENGTH, NAMESPACE_PATTERN } from '@gateway/sdk/kernel';
import { z } from 'zod';
import { approvalModeSchema, relaySwitches, upstreamAuthInputSchema } from '../upstream/target.js';

export {
  sourceListSchema,
  sourceRegisteredSchema,
  sourceSchema,
  sourceUpdatedSchema,
} from '@gateway/sdk/contract';

import { RESERVED_NAMESPACES } from './plugin-catalog.js';

const sourceId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,63}$/,
    'Use 1-64 of a-z, 0-9, _ and -, starting with a letter or digit',
  )
  .meta({ description: 'The registration id' });

const namespace = z
  .string()
  .regex(NAMESPACE_PATTERN, 'Use a-z, 0-9 and _ (underscore style), e.g. `google_drive`')
  .max(NAMESPACE_MAX_LENGTH, `Use at most ${NAMESPACE_MAX_LENGTH} characters`)
  .refine((value) => !RESERVED_NAMESPACES.has(value), {
    message: "The namespace `gateway` is reserved for the gateway's own tools; choose another",
  });

/** A plugin source in `POST /api/registry/sources`. */
const pluginSourceBody = z
  .object({
    type: z.literal('plugin').meta({ description: 'A plugin the gateway has loaded' }),
    id: sourceId,
    namespace: namespace.meta({
      description: 'Every tool path of the plugin must start with `<namespace>.`',
    }),
    pluginId: z.string().min(1).max(100).meta({ description: 'A plugin the gateway has loaded' }),
  })
  .strict();

/** An upstream MCP server in `POST /api/registry/sources`. */
const mcpSourceBody = z
  .object({
    type: z.literal('mcp').meta({ description: 'An upstream MCP server (Streamable HTTP)' }),
    id: sourceId,
    namespace: namespace.meta({
      description: 'The upstream tool `search` is served as `<namespace>.search`',
    }),
    url: z
      .string()
      .max(2048)
      .meta({ description: 'The upstream MCP endpoint, `http:` or `https:`' }),
    auth: upstreamAuthInputSchema.optional(),
    approvalRequired: z.array(z.string().max(200)).max(1000).optional().meta({
      description:
        'Upstream tool names that always ask the user for approval, whatever their annotations say',
    }),
    approval: approvalModeSchema.optional(),
    serviceAccountAllowed: z
      .boolean()
      .optional()
      .meta({ description: 'Whether service accounts may use its tools (default false)' }),
    ...relaySwitches,
  })
  .strict();

/** Body of `POST /api/registry/sources`. */
export const registerSourceBody = z.discriminatedUnion('type', [pluginSourceBody, mcpSourceBody]);

/** Body of `POST /api/registry/sources`. */
export type RegisterSourceBody = z.infer<typeof registerSourceBody>;

/** Body of `PATCH /api/registry/sources/:id`: an `mcp` source's settings, each optional. */
export const updateSourceBody = z
  .object({
    approvalRequired: z.array(z.string().max(200)).max(1000).optional().meta({
      description:
        'Upstream tool names that always ask the user for approval, whatever their annotations say (replaces the list)',
    }),
    approval: approvalModeSchema.optional(),
    serviceAccountAllowed: z
      .boolean()
      .optional()
      .meta({ description: 'Whether service accounts may use its tools' }),
    ...relaySwitches,
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message:
      'Send at least one of approvalRequired, approval, serviceAccountAllowed, allowElicitation, allowSampling',
  });

/** Path parameters of `DELETE` and `PATCH /api/registry/sources/:id`. */
export const sourceIdParams = z
  .object({ id: z.string().meta({ description: 'The registration id' }) })
  .strict();

/** Answer of `DELETE /api/registry/sources/:id`. */
export const sourceDeletedSchema = z.object({ deleted: z.array(z.string()) });
