/**
 * `@gateway/sdk/contract`: the schemas of the gateway's JSON answers, shared by the server (which
 * documents its routes with them, so they drive `/api/openapi.json`) and the `gateway` CLI (which
 * reads the answers with them through `answerReader`). Not the plugin author's API; these change
 * with the gateway's HTTP API.
 */
export { answerReader } from './answer-reader.js';
export { approvalPageSchema, approvalSchema, decidedSchema } from './approvals.js';
export { cliTokenIssuedSchema, cliTokenItemSchema, cliTokenListSchema } from './cli-tokens.js';
export {
  connectionCreatedSchema,
  connectionListItemSchema,
  connectionListSchema,
} from './connections.js';
export { connectorAvailabilitySchema } from './connectors.js';
export { deletedSchema } from './deleted.js';
export { executionDetailSchema, executionPageSchema, executionSchema } from './executions.js';
export { CREDENTIAL_SOURCES, explanationSchema } from './explain.js';
export { healthSchema } from './health.js';
export { inviteCreatedSchema, inviteListSchema, inviteSchema } from './invites.js';
export {
  ENDPOINT_MODES,
  endpointCreatedSchema,
  endpointListItemSchema,
  endpointListSchema,
  endpointUpdatedSchema,
} from './mcp-endpoints.js';
export { meSchema, meServiceAccountSchema, meServiceSchema, meUserSchema } from './me.js';
export {
  resolvedToolSchema,
  resolvedToolsSchema,
  roleAssignedSchema,
  roleCreatedSchema,
  roleListSchema,
  roleResponseSchema,
  roleUpdatedSchema,
} from './policy.js';
export {
  type ApprovalMode,
  approvalModeSchema,
  sourceListSchema,
  sourceRegisteredSchema,
  sourceSchema,
  sourceUpdatedSchema,
  type UpstreamAuth,
  type UpstreamAuthInput,
  upstreamAuthInputSchema,
  upstreamAuthSchema,
} from './registry-sources.js';
export {
  teamConnectionCreatedSchema,
  teamConnectionItemSchema,
  teamConnectionListSchema,
} from './team-connections.js';
export {
  pluginStatusSchema,
  providerStateSchema,
  providerStatusSchema,
  statusConnectionSchema,
  statusToolSchema,
  toolStatusSchema,
} from './tool-status.js';
