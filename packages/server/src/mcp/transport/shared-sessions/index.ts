export { routeAnswers } from './answer-routing.js';
export { rebuildSession } from './rebuild-session.js';
export type { BusMessage, ToolsChange } from './session-bus.js';
export { SharedSessions, type SharedSessionsOptions } from './shared-sessions.js';
