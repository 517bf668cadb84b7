export type { CallSite, ConnectionKind } from './call-site.js';
export type { CallTimer } from './call-timer.js';
export type { McpOptions, ResolvedMcpOptions } from './options.js';
export { type McpPrincipal, subjectId } from './principal.js';
export { LazyMcpEndpoint } from './transport/lazy-endpoint.js';
export type { McpEndpoint } from './transport/mcp-endpoint.js';
export { mountMcp } from './transport/routes.js';
export type { SweepTimer } from './transport/sessions/index.js';
