import { z } from 'zod';
import { userIdSchema } from '../http/common-schemas.js';

/** Body of `POST /api/connections/mcp-endpoints`. */
export const createEndpointBody = z
  .object({
    userId: userIdSchema,
    name: z.string().min(1).max(100).meta({ description: "Unique among the user's endpoints" }),
    description: z.string().max(1000).optional(),
  })
  .strict();

/** Answer of `POST /api/connections/mcp-endpoints`: the only answer that carries the raw token. */
export const endpointCreatedSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  token: z.string().meta({ description: 'The MCP token (`gw_mcp_...`); shown this once' }),
  createdAt: z.iso.datetime(),
});

/** One element of `GET /api/connections/mcp-endpoints`. */
export const endpointListItemSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  maskedToken: z.string().meta({ description: 'e.g. `gw_mcp_••••••••abcd`' }),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  kind: z.enum(['token', 'oauth']).meta({
    description: '`token`: a `gw_mcp_` token; `oauth`: a client signed in with OAuth',
  }),
  clientId: z.string().nullable().meta({
    description: 'The OAuth client of an `oauth` endpoint (a URL for a metadata document)',
  }),
});

/** Answer of `GET /api/connections/mcp-endpoints`. */
export const endpointListSchema = z.object({ endpoints: z.array(endpointListItemSchema) });
