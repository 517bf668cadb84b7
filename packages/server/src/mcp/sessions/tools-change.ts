import type { McpPrincipal } from '../principal.js';
import type { ToolsChange } from '../shared-sessions/index.js';

/**
 * Whose tools a change may change: a catalog change, everyone's; an assignment, that user's; a
 * role edit, every user's (whose role a session does not know without a lookup) and the service
 * accounts holding it.
 */
export function affectedBy(change: ToolsChange): (principal: McpPrincipal) => boolean {
  if (change.kind === 'catalog') return () => true;
  if (change.kind === 'assignment') {
    return (principal) => principal.kind === 'user' && principal.userId === change.userId;
  }
  return (principal) => principal.kind === 'user' || principal.roleId === change.roleId;
}
