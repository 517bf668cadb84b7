export { routeAnswers } from './answer-routing.js';
export { followStream } from './followed-stream.js';
export type { BusMessage, ToolsChange } from './session-bus.js';
export { SharedSessions, type SharedSessionsOptions } from './shared-sessions.js';
