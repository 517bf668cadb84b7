export type { SweepTimer } from './idle-sweeper.js';
export { LegacySessions, type LegacySessionsOptions } from './legacy-sessions.js';
export type { SessionPost } from './session-requests.js';
