import {
  ENDPOINT_MODES,
  endpointCreatedSchema,
  endpointListItemSchema,
  endpointListSchema,
  endpointUpdatedSchema,
} from '@gateway/sdk/contract';
import { patternSchema } from '@gateway/sdk/kernel';
import { z } from 'zod';
import { userIdSchema } from '../http/common-schemas.js';

/** As many patterns as a role may hold. */
const MAX_PATTERNS_PER_ROLE = 1000;

const toolsField = z.array(patternSchema).max(MAX_PATTERNS_PER_ROLE).meta({
  description:
    'Tool-path patterns in the role grammar (`notes.**`, `github.repos.list`, `*` segments): the endpoint serves the tools of your role that one of them matches. Null or empty: the whole role. A pattern may match no tool yet.',
});

const modeField = z.enum(ENDPOINT_MODES).meta({
  description:
    '`tools` lists the tools; `discovery` lists `gateway.search_tools`, `gateway.describe_tools` and `gateway.call_tool` instead',
});

/** Body of `POST /api/connections/mcp-endpoints`. */
export const createEndpointBody = z
  .object({
    userId: userIdSchema,
    name: z.string().min(1).max(100).meta({ description: "Unique among the user's endpoints" }),
    description: z.string().max(1000).optional(),
    tools: toolsField.nullable().optional(),
    mode: modeField.optional().meta({ description: 'Default `tools`' }),
  })
  .strict();

/** Body of `PATCH /api/connections/mcp-endpoints/:id`: what the endpoint serves, each optional. */
export const updateEndpointBody = z
  .object({
    userId: userIdSchema,
    tools: toolsField.nullable().optional(),
    mode: modeField.optional(),
  })
  .strict();

/** Body of `POST /api/connections/mcp-endpoints/preview`. */
export const previewEndpointBody = z
  .object({
    userId: userIdSchema,
    tools: z.array(z.string().max(1000)).max(MAX_PATTERNS_PER_ROLE).meta({
      description: 'Tool-path patterns as typed, valid or not',
    }),
  })
  .strict();

export { endpointCreatedSchema, endpointListItemSchema, endpointListSchema, endpointUpdatedSchema };
