import type { McpPrincipal } from '../../principal.js';
import type { ToolsChange } from '../shared-sessions/index.js';
import type { Session } from './session.js';

/**
 * Whose tools a change may change: a catalog change, everyone's; an assignment, that user's; a
 * role edit, every user's (whose role a session does not know without a lookup) and the service
 * accounts holding it; an endpoint's change, the sessions opened through that endpoint alone.
 */
export function affectedBy(change: ToolsChange): (principal: McpPrincipal) => boolean {
  if (change.kind === 'catalog') return () => true;
  if (change.kind === 'endpoint') {
    return (principal) => principal.kind === 'user' && principal.endpointId === change.endpointId;
  }
  if (change.kind === 'assignment') {
    return (principal) => principal.kind === 'user' && principal.userId === change.userId;
  }
  return (principal) => principal.kind === 'user' || principal.roleId === change.roleId;
}

/** Whether what `session` is served changed since its client last listed its tools. */
export type ServedChanged = (session: Session) => Promise<boolean>;

/**
 * Tells the sessions among `sessions` whose principal `change` affects that their tools changed
 * (`notifications/tools/list_changed`); with `onlyListening`, only those with a GET stream open
 * here. A catalog change, which may touch any session, is told only to those whose served tools
 * it changed (`servedChanged`). Never throws: a notification that fails is dropped.
 */
export function tellToolsChanged(
  sessions: Iterable<Session>,
  change: ToolsChange,
  onlyListening: boolean,
  servedChanged?: ServedChanged,
): void {
  const affected = affectedBy(change);
  for (const session of sessions) {
    if (onlyListening && session.listening === 0) continue;
    if (!affected(session.principal)) continue;
    if (change.kind === 'catalog' && servedChanged !== undefined) {
      void servedChanged(session)
        .catch(() => true)
        .then((changed) => (changed ? session.server.sendToolListChanged() : undefined))
        .catch(() => {});
      continue;
    }
    session.server.sendToolListChanged().catch(() => {});
  }
}
