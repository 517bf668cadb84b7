export type { CallSite, ConnectionKind } from './call-site.js';
export { McpEndpoint } from './mcp-endpoint.js';
export type { McpOptions, ResolvedMcpOptions } from './options.js';
export { type McpPrincipal, subjectId } from './principal.js';
export { renderOutput } from './render-result.js';
export { mountMcp } from './routes.js';
