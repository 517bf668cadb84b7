import { z } from 'zod';

/** How an endpoint offers its tools: listed (`tools`), or found through meta-tools (`discovery`). */
export const ENDPOINT_MODES = ['tools', 'discovery'] as const;

const scopeFields = {
  tools: z.array(z.string()).nullable().meta({
    description: 'The patterns narrowing the role; null: the whole role',
  }),
  mode: z.enum(ENDPOINT_MODES),
};

/** Answer of `POST /api/connections/mcp-endpoints`: the only answer that carries the raw token. */
export const endpointCreatedSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  token: z.string().meta({ description: 'The MCP token (`gw_mcp_...`); shown this once' }),
  createdAt: z.iso.datetime(),
  ...scopeFields,
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
  ...scopeFields,
});

/** Answer of `GET /api/connections/mcp-endpoints`. */
export const endpointListSchema = z.object({ endpoints: z.array(endpointListItemSchema) });

/** Answer of `PATCH /api/connections/mcp-endpoints/:id`. */
export const endpointUpdatedSchema = z.object({ endpoint: endpointListItemSchema });
