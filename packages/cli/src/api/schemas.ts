import {
  answerReader,
  approvalPageSchema,
  cliTokenIssuedSchema,
  cliTokenItemSchema,
  cliTokenListSchema,
  connectionCreatedSchema,
  connectionListSchema,
  connectorAvailabilitySchema,
  decidedSchema,
  deletedSchema,
  endpointCreatedSchema,
  endpointListItemSchema,
  endpointListSchema,
  endpointUpdatedSchema,
  executionPageSchema,
  executionSchema,
  explanationSchema,
  healthSchema,
  inviteCreatedSchema,
  inviteListSchema,
  meServiceAccountSchema,
  meServiceSchema,
  meUserSchema,
  resolvedToolsSchema,
  roleAssignedSchema,
  roleCreatedSchema,
  roleListSchema,
  roleUpdatedSchema,
  sourceListSchema,
  teamConnectionListSchema,
  toolStatusSchema,
} from '@gateway/sdk/contract';
import { z } from 'zod';

// The shapes of the gateway's answers the CLI reads. Most are the server's own answer schemas
// (`@gateway/sdk/contract`, which also drive `/api/openapi.json`), read through `answerReader`:
// loose objects keep fields the CLI does not know, so `--json` passes them on and a newer server
// breaks nothing. A field a gateway of a few days ago did not send yet is made optional here, by
// name, so this CLI still reads that gateway. The rest are still declared here by hand (see the
// decision "CLI answer schemas from the server's contract").

/** `POST /api/cli/token`. */
export const cliTokenIssued = answerReader(
  cliTokenIssuedSchema.extend({
    /** Absent from gateways whose tokens never expire. */
    expiresAt: cliTokenIssuedSchema.shape.expiresAt.optional(),
  }),
);

/** `GET /api/cli/tokens`. */
export const cliTokenList = answerReader(
  cliTokenListSchema.extend({
    tokens: z.array(
      cliTokenItemSchema.extend({ expiresAt: cliTokenItemSchema.shape.expiresAt.optional() }),
    ),
  }),
);

const linkedAccount = meUserSchema.shape.linkedAccounts.element;

/** `GET /api/me`: whose the token is, by kind (the server's `meSchema`, two fields relaxed). */
export const me = answerReader(
  z.discriminatedUnion('kind', [
    meUserSchema.extend({
      /** Absent from gateways older than the field, and so is `needsReconnect`. */
      linkedAccounts: z
        .array(
          linkedAccount.extend({ needsReconnect: linkedAccount.shape.needsReconnect.optional() }),
        )
        .optional(),
    }),
    meServiceAccountSchema,
    meServiceSchema,
  ]),
);
export type Me = z.infer<typeof me>;

/** `DELETE` answers. */
export const deleted = answerReader(deletedSchema);

/** `GET /healthz`; `database` is absent from gateways older than issue 30. */
export const health = answerReader(
  healthSchema.extend({ database: healthSchema.shape.database.optional() }),
);

const listedSource = sourceListSchema.shape.sources.element;
const upstreamStatus = listedSource.shape.upstream.unwrap();
/** A source as listed; an upstream's relay settings are absent from servers older than issue 31. */
const source = listedSource.extend({
  upstream: upstreamStatus
    .extend({
      approval: upstreamStatus.shape.approval.optional(),
      allowElicitation: upstreamStatus.shape.allowElicitation.optional(),
      allowSampling: upstreamStatus.shape.allowSampling.optional(),
    })
    .optional(),
});
export type Source = z.infer<typeof source>;

/** `GET /api/registry/sources`. */
export const sourceList = answerReader(z.object({ sources: z.array(source) }));
/** `PATCH /api/registry/sources/:id`. */
export const sourceUpdated = answerReader(z.object({ source }));

/** `GET /api/explain`. */
export const explanation = answerReader(explanationSchema);
export type Explanation = z.infer<typeof explanation>;

export type Approval = z.infer<typeof approvalPage>['approvals'][number];

/** `GET /api/approvals`. */
export const approvalPage = answerReader(approvalPageSchema);
/** `POST /api/approvals/:id`. */
export const approvalDecided = answerReader(decidedSchema);

/** `POST /api/invites`: the link is shown this once. */
export const inviteCreated = answerReader(inviteCreatedSchema);
/** `GET /api/invites`. */
export const inviteList = answerReader(inviteListSchema);

/** `GET /api/executions`. */
export const executionPage = answerReader(
  executionPageSchema.extend({
    executions: z.array(
      executionSchema.extend({
        /** Absent from gateways older than OAuth MCP endpoints. */
        clientId: executionSchema.shape.clientId.optional(),
      }),
    ),
  }),
);
export type Execution = z.infer<typeof executionPage>['executions'][number];

/** `GET /api/connectors/availability`. */
export const connectorList = answerReader(connectorAvailabilitySchema);
export type Connector = z.infer<typeof connectorList>['connectors'][number];

/** `POST /api/connections` and `POST /api/team/connections` (the same shape). */
export const connectionCreated = answerReader(connectionCreatedSchema);
/** `GET /api/connections`. */
export const connectionList = answerReader(connectionListSchema);
/** `GET /api/team/connections`. */
export const teamConnectionList = answerReader(teamConnectionListSchema);

/** `GET /api/policy/roles`. */
export const roleList = answerReader(roleListSchema);
/** `POST /api/policy/roles`. */
export const roleCreated = answerReader(roleCreatedSchema);
/** `PUT /api/policy/roles/:id`. */
export const roleUpdated = answerReader(roleUpdatedSchema);
/** `PUT /api/policy/users/:userId/role`. */
export const roleAssigned = answerReader(roleAssignedSchema);
/** `GET /api/policy/resolve`. */
export const resolvedTools = answerReader(resolvedToolsSchema);

/**
 * `GET /api/tools/status`: each provider's OAuth state (an upstream MCP source's is `mcp.<id>`)
 * and the user's own connections of it, as `gateway connections list` reads them.
 */
export const toolStatus = answerReader(toolStatusSchema);

// Gateways older than endpoint narrowing send no `tools` and `mode`; older than OAuth endpoints,
// no `kind` and `clientId`.
const endpointScope = {
  tools: endpointListItemSchema.shape.tools.optional(),
  mode: endpointListItemSchema.shape.mode.optional(),
};

/** `POST /api/connections/mcp-endpoints`. */
export const endpointCreated = answerReader(endpointCreatedSchema.extend(endpointScope));
/** `GET /api/connections/mcp-endpoints`. */
export const endpointList = answerReader(
  endpointListSchema.extend({
    endpoints: z.array(
      endpointListItemSchema.extend({
        ...endpointScope,
        kind: endpointListItemSchema.shape.kind.optional(),
        clientId: endpointListItemSchema.shape.clientId.optional(),
      }),
    ),
  }),
);
/** `PATCH /api/connections/mcp-endpoints/:id`. */
export const endpointUpdated = answerReader(endpointUpdatedSchema);
