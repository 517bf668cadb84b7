export type { CallSite, ConnectionKind } from './call-site.js';
export { LazyMcpEndpoint } from './lazy-endpoint.js';
export type { McpEndpoint } from './mcp-endpoint.js';
export type { McpOptions, ResolvedMcpOptions } from './options.js';
export { type McpPrincipal, subjectId } from './principal.js';
export { mountMcp } from './routes.js';
