import { z } from 'zod';

// The shapes of the gateway's answers the CLI reads (see `/api/openapi.json`). Loose objects keep
// fields the CLI does not know, so `--json` passes them on and a newer server breaks nothing.

/** `GET /healthz`. */
export const health = z.looseObject({ ok: z.boolean() });

/** `POST /api/cli/token`. */
export const cliTokenIssued = z.looseObject({
  token: z.string(),
  userId: z.string(),
  id: z.string(),
  /** When the token stops working; absent from gateways whose tokens never expire. */
  expiresAt: z.string().optional(),
});

/** `GET /api/cli/tokens`. */
export const cliTokenList = z.looseObject({
  tokens: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      maskedToken: z.string(),
      createdAt: z.string(),
      lastUsedAt: z.string().nullable(),
      expiresAt: z.string().nullable().optional(),
    }),
  ),
});

/** `GET /api/me`: whose the token is, by kind. */
export const me = z.discriminatedUnion('kind', [
  z.looseObject({
    kind: z.literal('user'),
    userId: z.string(),
    email: z.string(),
    name: z.string(),
    roleId: z.string(),
    isAdmin: z.boolean(),
    /** Absent from gateways older than the field. */
    linkedAccounts: z
      .array(
        z.looseObject({
          id: z.string(),
          providerId: z.string(),
          updatedAt: z.string(),
          /** The provider refused to renew it; absent from older gateways. */
          needsReconnect: z.boolean().optional(),
        }),
      )
      .optional(),
    /** The CLI token of the request (none for a session); absent from older gateways. */
    token: z.looseObject({ id: z.string(), expiresAt: z.string().nullable() }).optional(),
  }),
  z.looseObject({
    kind: z.literal('service_account'),
    serviceAccountId: z.string(),
    name: z.string(),
    roleId: z.string(),
  }),
  z.looseObject({ kind: z.literal('service') }),
]);
export type Me = z.infer<typeof me>;

/** `DELETE` answers. */
export const deleted = z.looseObject({ deleted: z.array(z.string()) });

/** `GET /api/connectors/availability`. */
export const connectorList = z.looseObject({
  connectors: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      kind: z.enum(['social', 'generic', 'api_key', 'mcp_oauth', 'plugin_oauth']),
      configured: z.boolean(),
    }),
  ),
});
export type Connector = z.infer<typeof connectorList>['connectors'][number];

/** `POST /api/connections` and `POST /api/team/connections`. */
export const connectionCreated = z.looseObject({
  id: z.string(),
  toolId: z.string(),
  instanceName: z.string(),
  maskedSecret: z.string(),
});

/** `GET /api/connections`. */
export const connectionList = z.looseObject({
  connections: z.array(
    z.looseObject({
      id: z.string(),
      tool_id: z.string(),
      instance_name: z.string(),
      masked_secret: z.string(),
      workspace_id: z.string().nullable(),
      parent_id: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    }),
  ),
});

/**
 * `GET /api/tools/status`, as far as `gateway connections list` reads it: each provider's OAuth
 * state (an upstream MCP source's is `mcp.<id>`) and the user's own connections of it.
 */
export const toolStatus = z.looseObject({
  plugins: z.array(
    z.looseObject({
      providers: z.array(
        z.looseObject({
          id: z.string(),
          upstream: z.string(),
          oauth: z
            .looseObject({
              needsReconnect: z.boolean(),
              /** Absent from gateways older than step-up authorization. */
              moreScope: z.string().optional(),
            })
            .nullable(),
          connections: z.array(z.looseObject({ id: z.string(), parentId: z.string().nullable() })),
        }),
      ),
    }),
  ),
});

/** `GET /api/team/connections`. */
export const teamConnectionList = z.looseObject({
  connections: z.array(
    z.looseObject({
      id: z.string(),
      toolId: z.string(),
      instanceName: z.string(),
      description: z.string().nullable(),
      workspaceId: z.string().nullable(),
      maskedSecret: z.string().optional(),
      createdAt: z.string(),
    }),
  ),
});

/** `POST /api/connections/mcp-endpoints`. */
export const endpointCreated = z.looseObject({
  id: z.string(),
  name: z.string(),
  token: z.string(),
  createdAt: z.string(),
  tools: z.array(z.string()).nullable().optional(),
  mode: z.string().optional(),
});

/** `GET /api/connections/mcp-endpoints`. */
export const endpointList = z.looseObject({
  endpoints: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      maskedToken: z.string(),
      createdAt: z.string(),
      lastUsedAt: z.string().nullable(),
      expiresAt: z.string().nullable().optional(),
      tools: z.array(z.string()).nullable().optional(),
      mode: z.string().optional(),
      /** `oauth`: made by a client's sign-in; absent from servers before it existed. */
      kind: z.enum(['token', 'oauth']).optional(),
      clientId: z.string().nullable().optional(),
    }),
  ),
});

/** `PATCH /api/connections/mcp-endpoints/:id`. */
export const endpointUpdated = z.looseObject({
  endpoint: z.looseObject({
    id: z.string(),
    name: z.string(),
    tools: z.array(z.string()).nullable(),
    mode: z.string(),
  }),
});

const role = z.looseObject({ id: z.string(), name: z.string(), patterns: z.array(z.string()) });

/** `GET /api/policy/roles`. */
export const roleList = z.looseObject({ roles: z.array(role) });
/** `POST /api/policy/roles`. */
export const roleCreated = z.looseObject({ created: role });
/** `PUT /api/policy/roles/:id`. */
export const roleUpdated = z.looseObject({ updated: role });
/** `PUT /api/policy/users/:userId/role`. */
export const roleAssigned = z.looseObject({ userId: z.string(), roleId: z.string() });

/** `GET /api/policy/resolve`. */
export const resolvedTools = z.looseObject({
  userId: z.string(),
  tools: z.array(
    z.looseObject({
      path: z.string(),
      name: z.string(),
      description: z.string(),
      destructive: z.boolean(),
      authProvider: z.string().optional(),
      pluginId: z.string(),
    }),
  ),
});

const approval = z.looseObject({
  id: z.string(),
  executionId: z.string(),
  userId: z.string(),
  toolPath: z.string(),
  message: z.string(),
  args: z.unknown(),
  status: z.enum(['pending', 'approved', 'denied', 'expired']),
  decidedBy: z.string().nullable(),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
  expiresAt: z.string(),
});
export type Approval = z.infer<typeof approval>;

/** `GET /api/approvals`. */
export const approvalPage = z.looseObject({
  approvals: z.array(approval),
  nextCursor: z.string().nullable(),
});
/** `POST /api/approvals/:id`. */
export const approvalDecided = z.looseObject({ approval });

const invite = z.looseObject({
  id: z.string(),
  email: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  status: z.string(),
});

/** `POST /api/invites`: the link is shown this once. */
export const inviteCreated = z.looseObject({ invite, url: z.string() });
/** `GET /api/invites`. */
export const inviteList = z.looseObject({ invites: z.array(invite) });

const source = z.looseObject({
  id: z.string(),
  type: z.string(),
  namespace: z.string(),
  pluginId: z.string().nullable(),
  mounted: z.boolean(),
  tools: z.array(z.string()),
  /** An upstream MCP source's settings and health; absent for a plugin. */
  upstream: z
    .looseObject({
      health: z.looseObject({ state: z.string() }),
      approvalRequired: z.array(z.string()),
      serviceAccountAllowed: z.boolean(),
      /** Absent from servers older than issue 31. */
      approval: z.string().optional(),
      allowElicitation: z.boolean().optional(),
      allowSampling: z.boolean().optional(),
      mappedNames: z.record(z.string(), z.string()),
    })
    .optional(),
});
export type Source = z.infer<typeof source>;

/** `GET /api/registry/sources`. */
export const sourceList = z.looseObject({ sources: z.array(source) });
/** `PATCH /api/registry/sources/:id`. */
export const sourceUpdated = z.looseObject({ source });

const execution = z.looseObject({
  id: z.string(),
  userId: z.string(),
  toolPath: z.string(),
  startedAt: z.string(),
  durationMs: z.number().nullable(),
  outcome: z.string().nullable(),
  approval: z.string().nullable(),
  error: z.string().nullable(),
  endpointId: z.string().nullable(),
});
export type Execution = z.infer<typeof execution>;

/** `GET /api/executions`. */
export const executionPage = z.looseObject({
  executions: z.array(execution),
  nextCursor: z.string().nullable(),
});

/** `GET /api/explain`. */
export const explanation = z.looseObject({
  toolPath: z.string(),
  subject: z.looseObject({ kind: z.string(), id: z.string(), roleId: z.string() }),
  known: z.boolean(),
  visible: z.boolean(),
  callable: z.boolean(),
  reasons: z.array(z.string()),
  role: z.looseObject({ id: z.string(), admits: z.boolean(), pattern: z.string().nullable() }),
  credential: z
    .looseObject({ source: z.string(), provider: z.string().nullable(), why: z.string() })
    .nullable(),
  approval: z.looseObject({ asks: z.string(), why: z.string() }).nullable(),
  source: z
    .looseObject({ id: z.string(), healthy: z.boolean(), detail: z.string().nullable() })
    .nullable(),
});
export type Explanation = z.infer<typeof explanation>;
