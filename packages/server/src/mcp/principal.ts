import type { ToolPrincipal } from '../identity/index.js';

/** Who an MCP request acts for: a user through one of their endpoints, or a service account. */
export type McpPrincipal = ToolPrincipal;

export { principalKey, subjectId } from '../identity/index.js';
